package org.hotpate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What review found wrong in the deployments, held statically (no Docker engine or Kubernetes here;
 * {@code ComposeUpITCase} starts the compose file where Docker exists): pinned images, a checkpoint
 * volume Flink (uid 9999) can write, Kafka reachable from the host, the cluster's restart strategy,
 * retained checkpoints, max parallelism; on Kubernetes HA through Kubernetes HA services whenever
 * {@code last-state} upgrades are used, checkpoints on storage that is mounted (or S3 with its
 * plugin), and the FlinkDeployment valid against the Flink Kubernetes Operator's own CRD schema
 * ({@code flinkdeployments.flink.apache.org} v1beta1, from the operator's Helm chart, in the test
 * resources).
 */
class DeploymentStaticChecksTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private static JsonNode yaml(String path) throws Exception {
        return YAML.readTree(Files.readString(Path.of(path)));
    }

    private static Map<String, String> flinkProperties(JsonNode service) throws Exception {
        String props = service.get("environment").get("FLINK_PROPERTIES").asText();
        JsonNode n = YAML.readTree(props);
        Map<String, String> m = new java.util.TreeMap<>();
        n.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
        return m;
    }

    @Test
    void composePinsImagesAndLetsFlinkWriteItsCheckpoints() throws Exception {
        JsonNode services = yaml("docker-compose.yml").get("services");
        for (Iterator<Map.Entry<String, JsonNode>> it = services.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> s = it.next();
            String image = s.getValue().get("image").asText();
            assertThat(image)
                    .as(s.getKey() + ": an exact image tag")
                    .matches("[a-z0-9./_-]+:[0-9][A-Za-z0-9._-]*")
                    .doesNotEndWith(":latest");
        }
        // The named volume starts root-owned; Flink's image runs as uid 9999.
        JsonNode init = services.get("checkpoints-init");
        assertThat(init.get("user").asText()).isEqualTo("root");
        assertThat(init.get("entrypoint").toString())
                .contains("chown -R 9999:9999 /flink-checkpoints");
        for (String flink : List.of("jobmanager", "taskmanager")) {
            JsonNode svc = services.get(flink);
            assertThat(svc.get("volumes").toString()).contains("checkpoints:/flink-checkpoints");
            assertThat(svc.get("depends_on").get("checkpoints-init").get("condition").asText())
                    .isEqualTo("service_completed_successfully");
            Map<String, String> p = flinkProperties(svc);
            assertThat(p.get("execution.checkpointing.dir")).isEqualTo("file:///flink-checkpoints");
        }
        Map<String, String> jm = flinkProperties(services.get("jobmanager"));
        assertThat(jm).containsKey("restart-strategy.type");
        assertThat(jm.get("execution.checkpointing.externalized-checkpoint-retention"))
                .isEqualTo("RETAIN_ON_CANCELLATION");
        assertThat(jm).containsKey("pipeline.max-parallelism");
        assertThat(services.get("jobmanager").get("image").asText())
                .isEqualTo(services.get("taskmanager").get("image").asText());
    }

    @Test
    void composeKafkaHasAListenerTheHostCanReach() throws Exception {
        JsonNode kafka = yaml("docker-compose.yml").get("services").get("kafka");
        JsonNode env = kafka.get("environment");
        String advertised = env.get("KAFKA_ADVERTISED_LISTENERS").asText();
        String hostListener = null;
        for (String l : advertised.split(",")) {
            if (l.contains("//localhost:")) {
                hostListener = l;
            }
        }
        assertThat(hostListener).as("an advertised listener on localhost").isNotNull();
        String name = hostListener.substring(0, hostListener.indexOf(':'));
        String port = hostListener.substring(hostListener.lastIndexOf(':') + 1);
        assertThat(env.get("KAFKA_LISTENERS").asText()).contains(name + "://0.0.0.0:" + port);
        assertThat(env.get("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP").asText()).contains(name + ":");
        assertThat(kafka.get("ports").toString()).contains(port + ":" + port);
        // the containers keep using the internal listener
        assertThat(advertised).contains("PLAINTEXT://kafka:9092");
    }

    @Test
    void kubernetesLastStateOnlyWithHaAndCheckpointsOnMountedOrPluginStorage() throws Exception {
        JsonNode fd = yaml("deploy/flink-deployment.yaml");
        JsonNode spec = fd.get("spec");
        JsonNode conf = spec.get("flinkConfiguration");
        assertThat(spec.get("image").asText()).matches("[a-z0-9./_-]+:[0-9][A-Za-z0-9._-]*");
        if (spec.get("job").get("upgradeMode").asText().equals("last-state")) {
            assertThat(conf.get("high-availability.type").asText())
                    .as("last-state upgrades need HA (the operator rejects them otherwise)")
                    .isEqualTo("kubernetes");
            assertThat(conf.get("high-availability.storageDir").asText()).isNotBlank();
        }
        assertThat(conf.get("execution.checkpointing.externalized-checkpoint-retention").asText())
                .isEqualTo("RETAIN_ON_CANCELLATION");
        assertThat(conf.get("pipeline.max-parallelism").asInt())
                .isGreaterThanOrEqualTo(spec.get("job").get("parallelism").asInt());
        JsonNode pod = spec.get("podTemplate").get("spec");
        List<String> mounts = new ArrayList<>();
        pod.get("containers")
                .get(0)
                .get("volumeMounts")
                .forEach(m -> mounts.add(m.get("mountPath").asText()));
        String env = pod.get("containers").get(0).path("env").toString();
        for (String key :
                List.of(
                        "execution.checkpointing.dir",
                        "execution.checkpointing.savepoint-dir",
                        "high-availability.storageDir")) {
            String uri = conf.get(key).asText();
            if (uri.startsWith("file://")) {
                String path = uri.substring("file://".length());
                assertThat(mounts)
                        .as(key + " on a mounted volume")
                        .anyMatch(m -> path.startsWith(m + "/"));
                assertThat(pod.get("securityContext").get("fsGroup").asInt())
                        .as("the volume writable by the flink user")
                        .isEqualTo(9999);
            } else {
                assertThat(uri).startsWith("s3://");
                assertThat(env).contains("ENABLE_BUILT_IN_PLUGINS").contains("flink-s3-fs");
                assertThat(env).contains("secretKeyRef");
            }
        }
        // the claim the pods mount exists in deploy/
        String claim = null;
        for (JsonNode v : pod.get("volumes")) {
            if (v.has("persistentVolumeClaim")) {
                claim = v.get("persistentVolumeClaim").get("claimName").asText();
            }
        }
        JsonNode pvc = yaml("deploy/flink-data-pvc.yaml");
        assertThat(pvc.get("metadata").get("name").asText()).isEqualTo(claim);
        assertThat(pvc.get("spec").get("accessModes").toString()).contains("ReadWriteMany");
    }

    @Test
    void flinkDeploymentIsValidAgainstTheOperatorsCrdSchema() throws Exception {
        JsonSchema schema;
        try (InputStream in =
                getClass().getResourceAsStream("/deploy/flinkdeployment-v1beta1.schema.json")) {
            schema =
                    JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4)
                            .getSchema(new ObjectMapper().readTree(in));
        }
        JsonNode fd = yaml("deploy/flink-deployment.yaml");
        Set<ValidationMessage> errors = schema.validate(fd);
        assertThat(errors).as("deploy/flink-deployment.yaml against the CRD schema").isEmpty();
        // and the schema does catch a broken manifest (the check cannot pass vacuously)
        JsonNode broken = fd.deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) broken.get("spec").get("job"))
                .put("upgradeMode", "last-checkpoint");
        ((com.fasterxml.jackson.databind.node.ObjectNode) broken.get("spec").get("jobManager"))
                .put("resource", "2 GiB");
        assertThat(schema.validate(broken)).hasSizeGreaterThanOrEqualTo(2);
    }
}
