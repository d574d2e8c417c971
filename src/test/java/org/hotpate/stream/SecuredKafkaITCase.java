package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.io.AvroWire;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.model.Distribution;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;
import org.hotpate.stream.driver.KafkaClients;
import org.hotpate.stream.driver.RunSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may speak for a teacher (issue 10 item 11): the embedded broker with SASL_PLAINTEXT /
 * SCRAM-SHA-512 and ACLs ({@code kafka.security-protocol: SASL_PLAINTEXT} with {@code kafka:
 * embedded}). The authorised job — job principal for the job and the driver, teacher principal for
 * the built-in worker — runs end to end; an unauthenticated client, a wrong password and the
 * teacher principal cannot write {@code steps} or {@code results}; the teacher principal can write
 * {@code distributions}. Fails on the code before: the embedded broker was PLAINTEXT without an
 * authorizer, and anyone could write every topic.
 */
class SecuredKafkaITCase {
    private static final String JOB_PW = "HOTPATE_IT_JOB_PASSWORD";
    private static final String TEACHER_PW = "HOTPATE_IT_TEACHER_PASSWORD";

    @TempDir Path ledgerDir;

    @BeforeAll
    static void passwords() {
        System.setProperty(JOB_PW, "job-secret-" + System.nanoTime());
        System.setProperty(TEACHER_PW, "teacher \"secret\" " + System.nanoTime());
    }

    @AfterAll
    static void forget() {
        System.clearProperty(JOB_PW);
        System.clearProperty(TEACHER_PW);
    }

    @Test
    void onlyTheJobWritesStepsAndResults_teachersWriteDistributions() throws Exception {
        JobConfig cfg =
                JobSpec.parse(
                        """
                        name: sasl
                        ensemble: {id: pz, teachers: 20, source: planet-z, k: 3, seed: 5, top-k: 32}
                        sampler: {type: coordinated, seed: 11}
                        mechanism: {name: confident-gnmax, params: {sigma1: 1.5, threshold: 6, sigma2: 1.5}}
                        budget: {epsilon: 50.0, delta: 1.0e-6, ledger-dir: '%s'}
                        generation: {sequences: 3, concurrency: 3, max-steps: 3, step-deadline-ms: 3000}
                        kafka:
                          mode: embedded
                          security-protocol: SASL_PLAINTEXT
                          sasl: {username: hotpate-job, password-env: %s,
                                 teacher-username: teachers, teacher-password-env: %s}
                        flink: {parallelism: 2, checkpoint-interval-ms: 300}
                        output: {dir: target/it-out}
                        """
                                .formatted(ledgerDir, JOB_PW, TEACHER_PW),
                        "sasl");
        JobConfig.Topics t = cfg.kafka().topics();
        try (RunSession run = RunSession.start(cfg, null)) {
            String bootstrap = run.bootstrap();
            byte[] forged =
                    AvroWire.encode(
                            Distribution.sparse(
                                    run.runId(), 0, 0, 0, 1, new int[] {101}, new double[] {1.0}));

            // No credentials: the SASL listener does not let the client in.
            Properties anonymous = new Properties();
            anonymous.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            assertThatThrownBy(() -> send(anonymous, t.name(Topic.STEPS), forged))
                    .isInstanceOf(Exception.class);

            // A wrong password: authentication fails.
            Properties wrong =
                    EmbeddedKafka.saslClient("SCRAM-SHA-512", "teachers", "not-the-password");
            wrong.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            assertThatThrownBy(() -> send(wrong, t.name(Topic.STEPS), forged))
                    .hasRootCauseInstanceOf(SaslAuthenticationException.class);

            // The teacher principal: distributions yes, steps and results no.
            Properties teacher = KafkaClients.teacher(cfg, bootstrap, KafkaClients.ENV);
            send(teacher, t.name(Topic.DISTRIBUTIONS), forged);
            assertThatThrownBy(() -> send(teacher, t.name(Topic.STEPS), forged))
                    .hasRootCauseInstanceOf(TopicAuthorizationException.class);
            assertThatThrownBy(() -> send(teacher, t.name(Topic.RESULTS), forged))
                    .hasRootCauseInstanceOf(TopicAuthorizationException.class);
            assertThatThrownBy(() -> send(teacher, t.name(Topic.BUDGET_LEDGER), forged))
                    .hasRootCauseInstanceOf(TopicAuthorizationException.class);

            assertThat(run.await(Duration.ofSeconds(120), null))
                    .as("the authorised job runs end to end")
                    .isTrue();
            run.finish();
            assertThat(run.records()).hasSize(3);
            assertThat(run.tokens()).isPositive();
            HotPateJobITCase.assertConsistent(run, cfg);
        }
    }

    private static void send(Properties client, String topic, byte[] value)
            throws ExecutionException, InterruptedException {
        Properties p = new Properties();
        p.putAll(client);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "5000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "4000");
        p.put(ProducerConfig.RETRIES_CONFIG, "0");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        try (KafkaProducer<byte[], byte[]> prod =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            prod.send(new ProducerRecord<>(topic, "k".getBytes(StandardCharsets.UTF_8), value))
                    .get();
        }
    }
}
