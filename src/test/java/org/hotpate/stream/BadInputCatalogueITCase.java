package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.io.AvroWire;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.Rejected;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;
import org.hotpate.stream.driver.RunSession;
import org.hotpate.stream.driver.TeacherWorker;
import org.junit.jupiter.api.Test;

/**
 * The bad-input catalogue (docs/bad-input.md) against one running job: every class is injected into
 * the live topics while the run goes on; each lands on the rejected topic with its reason, the run
 * completes with all its sequences, and the job never restarts — read from Flink's own {@code
 * numRestarts} on the Prometheus endpoint, which the test also scrapes for the job's gauges.
 *
 * <p>Teachers 0..17 are answered by an in-process worker; teachers 18 and 19 belong to the test, so
 * their forged answers meet open steps they have not answered yet. The records classes (lines that
 * are not JSON, missing fields, empty text, non-UTF-8, too long) are held by {@code
 * RecordsJobITCase} on a running records job.
 */
class BadInputCatalogueITCase {
    private static final String P = "catalogue";

    @Test
    void everyClassIsDeadLetteredWithItsReasonAndTheJobNeverRestarts() throws Exception {
        int metricsPort;
        try (ServerSocket s = new ServerSocket(0)) {
            metricsPort = s.getLocalPort();
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            // The distributions topic accepts records over 1 MB, so an oversized one reaches the
            // job (the broker's default would refuse it at the producer).
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(
                                List.of(
                                        new NewTopic(P + ".distributions", 2, (short) 1)
                                                .configs(Map.of("max.message.bytes", "4194304"))))
                        .all()
                        .get();
            }
            JobConfig cfg =
                    JobSpec.parse(
                            """
                            name: %s
                            ensemble: {teachers: 20, source: external, k: 3, seed: 5, top-k: 32}
                            sampler: {type: coordinated, seed: 11}
                            mechanism: {name: confident-gnmax, params: {sigma1: 1.5, threshold: 6, sigma2: 1.5}}
                            budget: {epsilon: 50.0, delta: 1.0e-6}
                            generation: {sequences: 4, concurrency: 4, max-steps: 3, max-attempts: 3, step-deadline-ms: 3000}
                            kafka:
                              mode: external
                              bootstrap: %s
                              topics: {steps: %s.steps, distributions: %s.distributions, results: %s.results,
                                       records: %s.records, ledger: %s.ledger, rejected: %s.rejected}
                            flink: {parallelism: 2, checkpoint-interval-ms: 500, metrics-port: %d}
                            output: {dir: target/it-out}
                            """
                                    .formatted(P, bootstrap, P, P, P, P, P, P, metricsPort),
                            P);
            try (RunSession run = RunSession.start(cfg, null)) {
                String runId = run.runId();
                TeacherWorker worker =
                        new TeacherWorker(
                                TeacherWorker.settings(cfg, bootstrap, runId, 0, 18),
                                TeacherWorker.answers(cfg, cfg.ensemble()));
                Thread t = new Thread(worker, "catalogue-teachers");
                t.setDaemon(true);
                t.start();
                try {
                    injectWhileRunning(cfg, bootstrap, runId);
                    assertThat(run.await(Duration.ofSeconds(120), null))
                            .as("the run completes despite every class of bad input")
                            .isTrue();
                    // After the run: an answer to a step that has closed.
                    send(
                            bootstrap,
                            cfg.kafka().topics().name(Topic.DISTRIBUTIONS),
                            AvroWire.encode(
                                    Distribution.sparse(
                                            runId,
                                            1,
                                            0,
                                            0,
                                            18,
                                            new int[] {101},
                                            new double[] {1.0})));
                    Set<String> expected =
                            Set.of(
                                    Rejected.UNDECODABLE,
                                    Rejected.UNKNOWN_SCHEMA,
                                    Rejected.INVALID_DISTRIBUTION,
                                    Rejected.UNKNOWN_TEACHER,
                                    Rejected.DUPLICATE_VOTE,
                                    Rejected.UNKNOWN_STEP,
                                    Rejected.INVALID_STEP);
                    assertThat(
                                    run.awaitCondition(
                                            r ->
                                                    reasons(r).keySet().containsAll(expected)
                                                            && countOf(r, Rejected.UNDECODABLE) >= 3
                                                            && countOf(
                                                                            r,
                                                                            Rejected
                                                                                    .INVALID_DISTRIBUTION)
                                                                    >= 4
                                                            && closedStepAnswerRejected(r),
                                            Duration.ofSeconds(60)))
                            .as("every class on the rejected topic; got " + reasons(run))
                            .isTrue();
                    // while the job still runs (finish() cancels it)
                    String metrics = scrape(metricsPort);
                    java.nio.file.Files.writeString(
                            java.nio.file.Path.of("target/it-out/catalogue-metrics.txt"), metrics);
                    assertThat(metrics)
                            .as("Flink's own restart count: input never restarts the job")
                            .containsPattern(
                                    "(?m)^flink_jobmanager_job_numRestarts\\{.*\\} 0\\.0$");
                    assertThat(metrics)
                            .contains("hotpate_rejectedPerSecond")
                            .contains("hotpate_distributionsPerSecond")
                            .contains("hotpate_epsilonSpent")
                            .contains("hotpate_openSteps")
                            .contains("hotpate_sequencesInFlight");
                    run.finish();
                    assertThat(run.records()).as("every sequence, once").hasSize(4);
                    HotPateJobITCase.assertConsistent(run, cfg);
                    // The oversized record: dead-lettered with a bounded prefix of its bytes.
                    assertThat(run.rejected())
                            .filteredOn(r -> r.detail() != null && r.detail().contains("truncated"))
                            .singleElement()
                            .satisfies(
                                    r ->
                                            assertThat(r.value().length)
                                                    .isEqualTo(Rejected.MAX_VALUE_BYTES));
                    // Another run's record is not this run's bad input: ignored, not dead-lettered.
                    assertThat(run.rejected()).noneMatch(r -> "some-other-run".equals(r.runId()));
                } finally {
                    worker.close();
                }
            }
        }
    }

    private static void injectWhileRunning(JobConfig cfg, String bootstrap, String runId)
            throws Exception {
        String dist = cfg.kafka().topics().name(Topic.DISTRIBUTIONS);
        String steps = cfg.kafka().topics().name(Topic.STEPS);
        // 1. bytes that are not Avro
        send(bootstrap, dist, "not avro".getBytes(StandardCharsets.UTF_8));
        send(bootstrap, steps, "{\"not\": \"avro\"}".getBytes(StandardCharsets.UTF_8));
        // 2. an unknown schema fingerprint (a valid body behind another writer's fingerprint):
        //    UNKNOWN_SCHEMA
        byte[] forged = AvroWire.encode(sparse(runId, 0, 18, new int[] {101}, new double[] {1}));
        for (int i = 2; i < 10; i++) {
            forged[i] = 0x42;
        }
        send(bootstrap, dist, forged);
        // 3-5. NaN, negative, mass > 1
        send(bootstrap, dist, AvroWire.encode(sparse(runId, 0, 18, new int[] {101}, nan())));
        send(bootstrap, dist, AvroWire.encode(sparse(runId, 0, 18, new int[] {101}, neg())));
        send(
                bootstrap,
                dist,
                AvroWire.encode(sparse(runId, 0, 18, new int[] {101, 102}, new double[] {.8, .7})));
        // 6. a duplicate vote: teacher 19 answers step (0, 0, 0) twice
        byte[] once = AvroWire.encode(sparse(runId, 0, 19, new int[] {101}, new double[] {1}));
        send(bootstrap, dist, once);
        send(bootstrap, dist, once);
        // 7. a teacher id out of range
        send(bootstrap, dist, AvroWire.encode(sparse(runId, 0, 999, new int[] {101}, one())));
        // 8. an unknown sequence of this run, and a record of another run (ignored by design)
        send(
                bootstrap,
                dist,
                AvroWire.encode(Distribution.sparse(runId, 777, 0, 0, 18, new int[] {101}, one())));
        send(
                bootstrap,
                dist,
                AvroWire.encode(
                        Distribution.sparse(
                                "some-other-run", 0, 0, 0, 18, new int[] {101}, one())));
        // 9. a vocabulary size that differs from the step's: a token only a larger vocabulary has,
        //    and a forged step with another vocabulary size
        send(bootstrap, dist, AvroWire.encode(sparse(runId, 2, 18, new int[] {5000}, one())));
        send(
                bootstrap,
                steps,
                AvroWire.encode(
                        new GenerationStep(
                                runId,
                                cfg.ensemble().id(),
                                0,
                                0,
                                9,
                                new int[0],
                                12345L,
                                1,
                                2000,
                                System.currentTimeMillis(),
                                System.currentTimeMillis() + 4000)));
        // 10. a record over 1 MB
        byte[] big = new byte[1_500_000];
        new Random(7).nextBytes(big);
        send(bootstrap, dist, big);
    }

    private static Distribution sparse(
            String runId, long sequence, long teacher, int[] tokens, double[] probs) {
        return Distribution.sparse(runId, sequence, 0, 0, teacher, tokens, probs);
    }

    private static double[] one() {
        return new double[] {1.0};
    }

    private static double[] nan() {
        return new double[] {Double.NaN};
    }

    private static double[] neg() {
        return new double[] {-0.5};
    }

    private static boolean closedStepAnswerRejected(RunSession r) {
        return r.rejected().stream()
                .anyMatch(
                        x ->
                                x.teacherId() == 18
                                        && (x.reason().equals(Rejected.LATE_VOTE)
                                                || x.reason().equals(Rejected.UNKNOWN_STEP))
                                        && x.detail() != null
                                        && x.detail().contains("/1/0/0"));
    }

    private static Map<String, Long> reasons(RunSession r) {
        return r.rejected().stream()
                .collect(Collectors.groupingBy(Rejected::reason, Collectors.counting()));
    }

    private static long countOf(RunSession r, String reason) {
        return reasons(r).getOrDefault(reason, 0L);
    }

    private static void send(String bootstrap, String topic, byte[] value) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "4194304");
        try (KafkaProducer<byte[], byte[]> prod =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            prod.send(new ProducerRecord<>(topic, null, value)).get();
        }
    }

    private static String scrape(int port) throws Exception {
        HttpResponse<String> r =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }
}
