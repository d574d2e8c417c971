package org.hotpate.stream.driver;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.KafkaAcls;
import org.hotpate.io.KafkaIo;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;

/**
 * Kafka client settings of the two principals a spec names ({@code kafka.security-protocol}, {@code
 * kafka.sasl.*}): the <b>job</b> principal (the Flink job's sources and sink, and the driver) and
 * the <b>teacher</b> principal (the teacher worker). Passwords never appear in a spec: {@code
 * kafka.sasl.password-env} / {@code teacher-password-env} name an environment variable, or a Java
 * system property of that name, that holds them ({@link #ENV}).
 */
public final class KafkaClients {
    private KafkaClients() {}

    /** Passwords by variable name: the environment first, then Java system properties. */
    public static final UnaryOperator<String> ENV =
            name -> {
                String v = System.getenv(name);
                return v != null ? v : System.getProperty(name);
            };

    /** The job's (and the driver's) client properties. */
    public static Properties job(JobConfig cfg, String bootstrap, UnaryOperator<String> secrets) {
        JobConfig.Security s = cfg.kafka().security();
        return principal(
                bootstrap, s, s.username(), s.passwordEnv(), "kafka.sasl.password-env", secrets);
    }

    /** The teacher worker's client properties. */
    public static Properties teacher(
            JobConfig cfg, String bootstrap, UnaryOperator<String> secrets) {
        JobConfig.Security s = cfg.kafka().security();
        if (s.sasl() && s.teacherUsername().isBlank()) {
            throw new JobSpec.SpecException(
                    "kafka.sasl.teacher-username must be set when kafka.security-protocol is "
                            + s.protocol()
                            + " (the teacher worker has its own principal: it may read steps and"
                            + " write distributions only)");
        }
        return principal(
                bootstrap,
                s,
                s.teacherUsername(),
                s.teacherPasswordEnv(),
                "kafka.sasl.teacher-password-env",
                secrets);
    }

    private static Properties principal(
            String bootstrap,
            JobConfig.Security s,
            String user,
            String passwordEnv,
            String envKey,
            UnaryOperator<String> secrets) {
        Properties p = new Properties();
        if (s.sasl()) {
            String password = secrets.apply(passwordEnv);
            if (password == null || password.isEmpty()) {
                throw new JobSpec.SpecException(
                        envKey
                                + ": the password of "
                                + user
                                + " is expected in the environment variable "
                                + passwordEnv
                                + ", which is not set");
            }
            p.putAll(KafkaIo.saslProperties(s.protocol(), s.saslMechanism(), user, password));
        }
        return KafkaIo.clientProperties(bootstrap, p);
    }

    /** The topics of a spec in the ACL layout's terms ({@link Topic#JOB_TOPICS}). */
    public static KafkaAcls.Topics aclTopics(JobConfig cfg) {
        JobConfig.Topics t = cfg.kafka().topics();
        return new KafkaAcls.Topics(
                t.names(
                        Topic.JOB_TOPICS.stream()
                                .filter(x -> x.writer() == Topic.Writer.JOB)
                                .toList()),
                t.names(Topic.JOB_TOPICS),
                t.name(Topic.STEPS),
                t.name(Topic.DISTRIBUTIONS));
    }

    /**
     * On an embedded SASL broker: the spec's job and teacher principals as SCRAM users (passwords
     * from {@code secrets}, or fresh random ones that never leave this process) and the ACL layout
     * of {@link KafkaAcls}.
     */
    static UnaryOperator<String> embeddedPrincipals(
            JobConfig cfg, EmbeddedKafka kafka, UnaryOperator<String> secrets) {
        JobConfig.Security sec = cfg.kafka().security();
        Map<String, String> generated = new HashMap<>();
        UnaryOperator<String> resolved =
                name -> {
                    String v = secrets.apply(name);
                    return v != null ? v : generated.get(name);
                };
        String teacher =
                sec.teacherUsername().isBlank() ? "hotpate-teachers" : sec.teacherUsername();
        for (String[] user :
                new String[][] {
                    {sec.username(), sec.passwordEnv()}, {teacher, sec.teacherPasswordEnv()}
                }) {
            if (secrets.apply(user[1]) == null) {
                byte[] b = new byte[18];
                new java.security.SecureRandom().nextBytes(b);
                generated.put(user[1], java.util.HexFormat.of().formatHex(b));
            }
            kafka.createScramUser(user[0], resolved.apply(user[1]));
        }
        KafkaAcls.grant(
                kafka.adminProperties(), KafkaClients.aclTopics(cfg), sec.username(), teacher);
        return resolved;
    }
}
