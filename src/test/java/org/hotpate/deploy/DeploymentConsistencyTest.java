package org.hotpate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.hotpate.cli.Main;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * docker-compose.yml and deploy/ cannot run here (no Docker engine, no Kubernetes), so this test
 * checks that they agree with the code: versions with pom.xml, commands and entry classes with the
 * jar, job specs with {@link JobSpec}, hosts/ports/paths between services, topic names, and every
 * Flink configuration key against Flink's own option classes.
 */
class DeploymentConsistencyTest {
    private static final Path ROOT = Path.of("").toAbsolutePath();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private static final Map<String, String> POM = pomProperties();
    private static final String JAR_NAME =
            POM.get("artifactId") + "-" + POM.get("version") + "-all.jar";

    @Test
    void composeUsesThePomVersions() throws IOException {
        JsonNode services = compose().get("services");
        assertThat(services.get("kafka").get("image").asText())
                .isEqualTo("apache/kafka:" + POM.get("kafka.version"));
        for (String s : List.of("jobmanager", "taskmanager")) {
            assertThat(services.get(s).get("image").asText())
                    .startsWith("flink:" + POM.get("flink.version") + "-");
        }
        assertThat(Files.readString(ROOT.resolve("deploy/Dockerfile")))
                .contains("FROM flink:" + POM.get("flink.version") + "-");
    }

    @Test
    void composeCommandsRunExistingCliCommandsOnTheBuiltJarAndAValidSpec() throws IOException {
        JsonNode services = compose().get("services");
        Set<String> commands = new HashSet<>();
        Main.class.getDeclaredMethods(); // the CLI is on the classpath
        for (String s : List.of("hotpate-run", "hotpate-teachers")) {
            JsonNode svc = services.get(s);
            List<String> cmd = strings(svc.get("command"));
            int jar = cmd.indexOf("-jar");
            assertThat(jar).as(s + " runs the fat jar").isGreaterThanOrEqualTo(0);
            String jarInContainer = cmd.get(jar + 1);
            assertThat(hostPathOf(svc, jarInContainer))
                    .as(s + " mounts the jar Maven builds")
                    .isEqualTo("./target/" + JAR_NAME);
            String command = cmd.get(jar + 2);
            commands.add(command);
            String specInContainer = cmd.get(jar + 3);
            JobConfig cfg = JobSpec.load(ROOT.resolve(hostPathOf(svc, specInContainer)));
            checkClusterSpecAgainstCompose(cfg, services, jarInContainer);
        }
        assertThat(commands).containsExactlyInAnyOrder("run", "teachers");
        Set<String> known = new HashSet<>();
        for (String c : List.of("run", "teachers")) {
            int code =
                    Main.execute(
                            new String[] {c, "--help"},
                            new java.io.PrintStream(java.io.OutputStream.nullOutputStream()),
                            new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
            if (code == 0) {
                known.add(c);
            }
        }
        assertThat(known).containsExactlyInAnyOrder("run", "teachers");
    }

    private static void checkClusterSpecAgainstCompose(
            JobConfig cfg, JsonNode services, String jarInContainer) {
        assertThat(cfg.kafka().embedded()).isFalse();
        String[] hostPort = cfg.kafka().bootstrap().split(":");
        JsonNode kafkaEnv = services.get("kafka").get("environment");
        assertThat(kafkaEnv.get("KAFKA_ADVERTISED_LISTENERS").asText())
                .contains("//" + hostPort[0] + ":" + hostPort[1]);
        long brokerMaxTx =
                Long.parseLong(kafkaEnv.get("KAFKA_TRANSACTION_MAX_TIMEOUT_MS").asText());
        assertThat(cfg.kafka().transactionTimeoutMs())
                .as("sink transaction timeout <= broker max")
                .isLessThanOrEqualTo(brokerMaxTx);

        assertThat(cfg.flink().embedded()).isFalse();
        assertThat(services.has(cfg.flink().host())).as("flink.host is a compose service").isTrue();
        assertThat(strings(services.get(cfg.flink().host()).get("ports")))
                .contains(cfg.flink().port() + ":" + cfg.flink().port());
        assertThat(cfg.flink().jar()).isEqualTo(jarInContainer);
        // Checkpoints: the spec's directory is the one JobManager and TaskManager share.
        String stateDir = cfg.flink().stateDir().orElseThrow();
        for (String s : List.of("jobmanager", "taskmanager")) {
            Map<String, String> props = flinkProperties(services.get(s));
            assertThat(props.get("execution.checkpointing.dir")).isEqualTo(stateDir);
            assertThat(props.get("state.backend.type")).isEqualTo("rocksdb");
            String mountPath = stateDir.replaceFirst("^file://", "");
            assertThat(strings(services.get(s).get("volumes")))
                    .anyMatch(v -> v.endsWith(":" + mountPath));
        }
    }

    @Test
    void kubernetesDeploymentRunsTheClusterEntryPointWithItsSpec() throws Exception {
        JsonNode fd = yaml("deploy/flink-deployment.yaml").get(0);
        assertThat(fd.get("kind").asText()).isEqualTo("FlinkDeployment");
        String[] v = POM.get("flink.version").split("\\.");
        assertThat(fd.get("spec").get("flinkVersion").asText()).isEqualTo("v" + v[0] + "_" + v[1]);

        JsonNode job = fd.get("spec").get("job");
        Class<?> entry = Class.forName(job.get("entryClass").asText());
        Method main = entry.getMethod("main", String[].class);
        assertThat(Modifier.isStatic(main.getModifiers())).isTrue();
        // The jar the image copies is the one the job names.
        String jarUri = job.get("jarURI").asText().replaceFirst("^local://", "");
        assertThat(Files.readString(ROOT.resolve("deploy/Dockerfile")))
                .contains("COPY target/" + JAR_NAME + " " + jarUri);

        // args[0] is the spec mounted from the ConfigMap made of deploy/job-spec.yaml.
        String specPath = strings(job.get("args")).get(0);
        JsonNode mount =
                fd.get("spec")
                        .get("podTemplate")
                        .get("spec")
                        .get("containers")
                        .get(0)
                        .get("volumeMounts")
                        .get(0);
        assertThat(specPath).isEqualTo(mount.get("mountPath").asText() + "/job-spec.yaml");
        JobConfig cfg = JobSpec.load(ROOT.resolve("deploy/job-spec.yaml"));
        assertThat(cfg.kafka().embedded()).isFalse();

        JsonNode conf = fd.get("spec").get("flinkConfiguration");
        assertThat(conf.get("state.backend.type").asText()).isEqualTo("rocksdb");
        assertThat(conf.get("execution.checkpointing.mode").asText()).isEqualTo("EXACTLY_ONCE");
        assertThat(conf.get("execution.checkpointing.dir").asText())
                .isEqualTo(cfg.flink().stateDir().orElseThrow());
        assertThat(Integer.parseInt(job.get("parallelism").asText()))
                .isEqualTo(cfg.flink().parallelism());
    }

    @Test
    void kubernetesTopicsAreTheSpecTopics() throws IOException {
        JobConfig cfg = JobSpec.load(ROOT.resolve("deploy/job-spec.yaml"));
        JobConfig.Topics t = cfg.kafka().topics();
        Set<String> declared = new HashSet<>();
        for (JsonNode doc : yaml("deploy/kafka-topics.yaml")) {
            assertThat(doc.get("kind").asText()).isEqualTo("KafkaTopic");
            declared.add(doc.get("metadata").get("name").asText());
            assertThat(doc.get("spec").get("partitions").asInt())
                    .isEqualTo(cfg.kafka().partitions());
        }
        assertThat(declared)
                .containsExactlyInAnyOrder(
                        t.name(Topic.STEPS),
                        t.name(Topic.DISTRIBUTIONS),
                        t.name(Topic.RESULTS),
                        t.name(Topic.RECORDS),
                        t.name(Topic.LEDGER),
                        t.name(Topic.REJECTED),
                        t.name(Topic.BUDGET_LEDGER),
                        t.name(Topic.TEACHER_FEEDBACK));
    }

    @Test
    void teacherWorkerDeploymentRunsTheTeachersCommandOnTheSameSpec() throws IOException {
        JsonNode dep = yaml("deploy/teacher-worker.yaml").get(0);
        JsonNode container = dep.get("spec").get("template").get("spec").get("containers").get(0);
        List<String> cmd = strings(container.get("command"));
        int main = cmd.indexOf(Main.class.getName());
        assertThat(main).isGreaterThan(0);
        assertThat(cmd.get(main + 1)).isEqualTo("teachers");
        assertThat(cmd.get(main + 2)).isEqualTo("/etc/hotpate/job-spec.yaml");
        JsonNode fd = yaml("deploy/flink-deployment.yaml").get(0);
        // The worker answers the run id the job runs under.
        List<String> jobArgs = strings(fd.get("spec").get("job").get("args"));
        assertThat(cmd.get(cmd.indexOf("--run") + 1)).isEqualTo(jobArgs.get(1));
    }

    @Test
    void everyFlinkKeyInComposeAndDeployIsAFlinkOption() throws IOException {
        Set<String> known = flinkOptionKeys();
        Map<String, String> used = new HashMap<>();
        JsonNode services = compose().get("services");
        for (String s : List.of("jobmanager", "taskmanager")) {
            flinkProperties(services.get(s))
                    .forEach((k, v) -> used.put(k, "docker-compose.yml " + s));
        }
        yaml("deploy/flink-deployment.yaml")
                .get(0)
                .get("spec")
                .get("flinkConfiguration")
                .fieldNames()
                .forEachRemaining(k -> used.put(k, "deploy/flink-deployment.yaml"));
        assertThat(used).isNotEmpty();
        used.forEach(
                (key, where) ->
                        assertThat(known).as(where + " uses an unknown Flink key").contains(key));
    }

    // ---- helpers ----

    private static Set<String> flinkOptionKeys() {
        Set<String> keys = new HashSet<>();
        for (Class<?> c :
                List.of(
                        CheckpointingOptions.class,
                        StateBackendOptions.class,
                        RestartStrategyOptions.class,
                        CoreOptions.class,
                        JobManagerOptions.class,
                        TaskManagerOptions.class,
                        RestOptions.class,
                        RocksDBOptions.class,
                        org.apache.flink.configuration.HighAvailabilityOptions.class,
                        org.apache.flink.configuration.PipelineOptions.class)) {
            for (Field f : c.getFields()) {
                if (Modifier.isStatic(f.getModifiers())
                        && ConfigOption.class.isAssignableFrom(f.getType())) {
                    try {
                        ConfigOption<?> o = (ConfigOption<?>) f.get(null);
                        keys.add(o.key());
                        for (FallbackKey fk : o.fallbackKeys()) {
                            keys.add(fk.getKey());
                        }
                    } catch (IllegalAccessException e) {
                        throw new AssertionError(e);
                    }
                }
            }
        }
        return keys;
    }

    private static Map<String, String> flinkProperties(JsonNode service) {
        Map<String, String> props = new HashMap<>();
        for (String line :
                service.get("environment").get("FLINK_PROPERTIES").asText().split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                props.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        return props;
    }

    /**
     * The host path mounted at {@code containerPath} (file mounts or a directory mount above it).
     */
    private static String hostPathOf(JsonNode service, String containerPath) {
        for (String v : strings(service.get("volumes"))) {
            String[] parts = v.split(":");
            if (parts[1].equals(containerPath)) {
                return parts[0];
            }
            if (containerPath.startsWith(parts[1] + "/")) {
                return parts[0] + containerPath.substring(parts[1].length());
            }
        }
        throw new AssertionError("nothing is mounted at " + containerPath);
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static JsonNode compose() throws IOException {
        return YAML.readTree(ROOT.resolve("docker-compose.yml").toFile());
    }

    private static List<JsonNode> yaml(String path) throws IOException {
        List<JsonNode> docs = new ArrayList<>();
        try (YAMLParser p = new YAMLFactory().createParser(ROOT.resolve(path).toFile())) {
            YAML.readValues(p, JsonNode.class).forEachRemaining(docs::add);
        }
        return docs;
    }

    private static Map<String, String> pomProperties() {
        try {
            Document d =
                    DocumentBuilderFactory.newInstance()
                            .newDocumentBuilder()
                            .parse(ROOT.resolve("pom.xml").toFile());
            Map<String, String> m = new HashMap<>();
            m.put("artifactId", d.getElementsByTagName("artifactId").item(0).getTextContent());
            m.put("version", d.getElementsByTagName("version").item(0).getTextContent());
            String text = Files.readString(ROOT.resolve("pom.xml"));
            Matcher matcher =
                    Pattern.compile("<(flink\\.version|kafka\\.version)>([^<]+)<").matcher(text);
            while (matcher.find()) {
                m.put(matcher.group(1), matcher.group(2));
            }
            return m;
        } catch (Exception e) {
            throw new AssertionError("cannot read pom.xml", e);
        }
    }
}
