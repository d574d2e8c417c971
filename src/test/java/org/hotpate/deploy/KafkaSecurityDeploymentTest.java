package org.hotpate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclBinding;
import org.hotpate.io.KafkaAcls;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;
import org.hotpate.stream.driver.KafkaClients;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes deployment's Kafka security (deploy/kafka-users.yaml, the spec's SASL keys, the
 * secrets wired into the job and the teacher worker) agrees with the code: the Strimzi KafkaUsers
 * use SCRAM-SHA-512 and carry exactly the ACL layout of {@link KafkaAcls}, for the user names the
 * spec names; the password variables the spec names come from those users' secrets; the budget
 * ledger topic is compacted. Static checks only (no Kubernetes here).
 */
class KafkaSecurityDeploymentTest {
    private static final Path ROOT = Path.of("").toAbsolutePath();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Test
    void kafkaUsersCarryExactlyTheAclLayoutForTheSpecsPrincipals() throws IOException {
        JobConfig cfg = JobSpec.load(ROOT.resolve("deploy/job-spec.yaml"));
        JobConfig.Security sec = cfg.kafka().security();
        assertThat(sec.sasl()).isTrue();
        assertThat(sec.saslMechanism()).isEqualTo("SCRAM-SHA-512");
        Map<String, Set<String>> declared = new HashMap<>();
        for (JsonNode user : yaml("deploy/kafka-users.yaml")) {
            assertThat(user.get("kind").asText()).isEqualTo("KafkaUser");
            JsonNode spec = user.get("spec");
            assertThat(spec.get("authentication").get("type").asText()).isEqualTo("scram-sha-512");
            assertThat(spec.get("authorization").get("type").asText()).isEqualTo("simple");
            Set<String> acls = new HashSet<>();
            for (JsonNode acl : spec.get("authorization").get("acls")) {
                JsonNode r = acl.get("resource");
                for (JsonNode op : acl.get("operations")) {
                    acls.add(
                            key(
                                    r.get("type").asText(),
                                    r.get("name").asText(),
                                    r.get("patternType").asText(),
                                    op.asText()));
                }
            }
            declared.put("User:" + user.get("metadata").get("name").asText(), acls);
        }
        Map<String, Set<String>> expected = new HashMap<>();
        for (AclBinding b :
                KafkaAcls.bindings(
                        KafkaClients.aclTopics(cfg), sec.username(), sec.teacherUsername())) {
            expected.computeIfAbsent(b.entry().principal(), k -> new HashSet<>())
                    .add(
                            key(
                                    b.pattern().resourceType().name(),
                                    b.pattern().name(),
                                    b.pattern().patternType().name(),
                                    b.entry().operation().name()));
        }
        assertThat(declared).isEqualTo(expected);
    }

    /** Strimzi spells types camelCase (transactionalId), Kafka TRANSACTIONAL_ID; compare both. */
    private static String key(String type, String name, String pattern, String op) {
        String norm = type.replace("_", "").toLowerCase(Locale.ROOT);
        String p = pattern.toLowerCase(Locale.ROOT).replace("prefixed", "prefix");
        return norm + " " + name + " " + p + " " + op.replace("_", "").toLowerCase(Locale.ROOT);
    }

    @Test
    void passwordsComeFromTheUsersSecretsInTheVariablesTheSpecNames() throws IOException {
        JobConfig cfg = JobSpec.load(ROOT.resolve("deploy/job-spec.yaml"));
        JobConfig.Security sec = cfg.kafka().security();
        JsonNode job =
                yaml("deploy/flink-deployment.yaml")
                        .get(0)
                        .get("spec")
                        .get("podTemplate")
                        .get("spec")
                        .get("containers")
                        .get(0);
        assertSecretEnv(job, sec.passwordEnv(), sec.username());
        JsonNode teacher =
                yaml("deploy/teacher-worker.yaml")
                        .get(0)
                        .get("spec")
                        .get("template")
                        .get("spec")
                        .get("containers")
                        .get(0);
        assertSecretEnv(teacher, sec.teacherPasswordEnv(), sec.teacherUsername());
        // The teacher worker never gets the job's password.
        assertThat(teacher.get("env").toString()).doesNotContain(sec.passwordEnv());
    }

    private static void assertSecretEnv(JsonNode container, String variable, String user) {
        List<JsonNode> env = new ArrayList<>();
        container.get("env").forEach(env::add);
        assertThat(env)
                .as(variable + " from secret " + user)
                .anySatisfy(
                        e -> {
                            assertThat(e.get("name").asText()).isEqualTo(variable);
                            JsonNode ref = e.get("valueFrom").get("secretKeyRef");
                            assertThat(ref.get("name").asText()).isEqualTo(user);
                            assertThat(ref.get("key").asText()).isEqualTo("password");
                        });
    }

    @Test
    void theBudgetLedgerTopicIsCompacted() throws IOException {
        JobConfig cfg = JobSpec.load(ROOT.resolve("deploy/job-spec.yaml"));
        assertThat(cfg.ledgerMode()).isEqualTo(JobConfig.LedgerMode.KAFKA);
        JsonNode ledger =
                yaml("deploy/kafka-topics.yaml").stream()
                        .filter(
                                d ->
                                        d.get("metadata")
                                                .get("name")
                                                .asText()
                                                .equals(
                                                        cfg.kafka()
                                                                .topics()
                                                                .name(Topic.BUDGET_LEDGER)))
                        .findFirst()
                        .orElseThrow();
        assertThat(ledger.get("spec").get("config").get("cleanup.policy").asText())
                .isEqualTo("compact");
    }

    private static List<JsonNode> yaml(String path) throws IOException {
        List<JsonNode> docs = new ArrayList<>();
        try (YAMLParser p = new YAMLFactory().createParser(ROOT.resolve(path).toFile())) {
            YAML.readValues(p, JsonNode.class).forEachRemaining(docs::add);
        }
        return docs;
    }
}
