package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.core.generation.FinishReason;
import org.hotpate.io.AvroWire;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.Outcome;
import org.hotpate.model.Rejected;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.model.Vote;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobOptions;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;
import org.hotpate.stream.driver.RunSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole job on a MiniCluster (parallelism 2, RocksDB, checkpoints every 500 ms) against a real
 * in-JVM KRaft broker shared by the class, with the built-in Planet-Z teacher worker. Outputs are
 * read as a read_committed consumer, like any downstream user.
 */
class HotPateJobITCase {
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    /** A small run; topics are per test so the runs cannot see each other's records. */
    static JobConfig config(String name, String extra) {
        return config(name, extra, kafka.bootstrapServers());
    }

    static JobConfig config(String name, String extra, String bootstrap) {
        return JobSpec.parse(
                """
                name: %s
                ensemble: {teachers: 20, source: planet-z, k: 3, seed: 5, top-k: 32}
                sampler: {type: coordinated, seed: 11}
                mechanism: {name: confident-gnmax, params: {sigma1: 1.5, threshold: 6, sigma2: 1.5}}
                budget: {epsilon: 50.0, delta: 1.0e-6}
                generation: {sequences: 4, concurrency: 4, max-steps: 3, max-attempts: 3, step-deadline-ms: 4000}
                kafka:
                  mode: external
                  bootstrap: %s
                  topics: {steps: %s.steps, distributions: %s.distributions, results: %s.results,
                           records: %s.records, ledger: %s.ledger, rejected: %s.rejected}
                flink: {parallelism: 2, checkpoint-interval-ms: 500}
                output: {dir: target/it-out}
                %s
                """
                        .formatted(name, bootstrap, name, name, name, name, name, name, extra),
                name);
    }

    /** The invariants every completed run must show to a read_committed consumer. */
    static void assertConsistent(RunSession run, JobConfig cfg) {
        List<StepResult> results = run.results();
        assertThat(run.duplicateResults()).as("no result visible twice").isEmpty();
        List<LedgerEntry> charges =
                run.ledger().stream().filter(e -> e.kind() == LedgerKind.CHARGE).toList();
        long released =
                results.stream().filter(r -> r.outcome() != Outcome.BUDGET_EXHAUSTED).count();
        assertThat(charges).as("released = charged, exactly once").hasSize((int) released);
        assertThat(
                        charges.stream()
                                .map(e -> e.sequenceId() + "/" + e.step() + "/" + e.attempt())
                                .distinct()
                                .count())
                .isEqualTo(released);
        assertThat(charges).allMatch(e -> e.epsilonAfter() <= cfg.budget().epsilon() + 1e-9);
        // Each record's tokens are exactly its sequence's TOKEN results, in order.
        for (SyntheticRecord rec : run.records()) {
            int[] expected =
                    results.stream()
                            .filter(
                                    r ->
                                            r.sequenceId() == rec.sequenceId()
                                                    && r.outcome() == Outcome.TOKEN)
                            .sorted((a, b) -> Integer.compare(a.step(), b.step()))
                            .mapToInt(StepResult::token)
                            .toArray();
            assertThat(rec.tokens()).as("record " + rec.sequenceId()).containsExactly(expected);
        }
        assertEverySequenceAccountedFor(run, cfg);
    }

    /**
     * DESIGN.md invariant 11 on a completed run: every requested sequence has exactly one record; a
     * NOT_STARTED record is empty, nothing of its sequence was issued, released or charged, and the
     * sequence it would have followed finished on the budget (or did not start either).
     */
    static void assertEverySequenceAccountedFor(RunSession run, JobConfig cfg) {
        int n = cfg.generation().sequences();
        int c = cfg.generation().concurrency();
        assertThat(run.records())
                .extracting(SyntheticRecord::sequenceId)
                .as("one record per requested sequence")
                .containsExactlyInAnyOrderElementsOf(LongStream.range(0, n).boxed().toList());
        assertThat(run.unaccounted()).isEmpty();
        Map<Long, FinishReason> reasons = new HashMap<>();
        run.records().forEach(r -> reasons.put(r.sequenceId(), r.finishReason()));
        for (SyntheticRecord rec : run.records()) {
            if (rec.finishReason() != FinishReason.NOT_STARTED) {
                continue;
            }
            long id = rec.sequenceId();
            assertThat(rec.tokens()).as("NOT_STARTED %s is empty", id).isEmpty();
            assertThat(rec.steps()).isZero();
            assertThat(id).as("a first-wave sequence always starts").isGreaterThanOrEqualTo(c);
            assertThat(reasons.get(id - c))
                    .as("predecessor of NOT_STARTED %s", id)
                    .isIn(FinishReason.BUDGET_EXHAUSTED, FinishReason.NOT_STARTED);
            assertThat(run.results()).noneMatch(r -> r.sequenceId() == id);
            assertThat(run.ledger()).noneMatch(e -> e.sequenceId() == id);
        }
    }

    @Test
    void generatesRecordsEndToEndFromSimulatedTeachers() throws Exception {
        JobConfig cfg = config("e2e", "");
        try (RunSession run = RunSession.start(cfg, null)) {
            assertThat(run.await(Duration.ofSeconds(90), null)).as("run completes").isTrue();
            run.finish();
            assertThat(run.records()).hasSize(4);
            assertThat(run.records()).allMatch(r -> r.tokens().length <= 3);
            assertThat(run.tokens()).isPositive();
            assertThat(run.rejected()).isEmpty();
            assertConsistent(run, cfg);
            assertThat(run.outputDir().resolve("summary.json")).exists();
            DatasetBudgetITCase.assertPublicSummaryNamesNoOperatorData(
                    new com.fasterxml.jackson.databind.ObjectMapper()
                            .readTree(run.outputDir().resolve("summary.json").toFile()));
            assertThat(run.outputDir().resolve("records.jsonl")).exists();
            assertThat(run.outputDir().resolve("ledger.jsonl")).exists();
        }
    }

    @Test
    void badRecordsLandInRejectedWhileGenerationContinues() throws Exception {
        JobConfig cfg = config("bad", "");
        Properties p = new Properties();
        try (RunSession run = RunSession.start(cfg, null)) {
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            try (KafkaProducer<byte[], byte[]> prod =
                    new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                String topic = cfg.kafka().topics().name(Topic.DISTRIBUTIONS);
                prod.send(
                        new ProducerRecord<>(
                                topic,
                                "x".getBytes(StandardCharsets.UTF_8),
                                "not avro".getBytes(StandardCharsets.UTF_8)));
                prod.send(
                        new ProducerRecord<>(
                                topic,
                                null,
                                AvroWire.encode(
                                        Distribution.sparse(
                                                run.runId(),
                                                0,
                                                0,
                                                0,
                                                999,
                                                new int[] {101},
                                                new double[] {1.0}))));
                prod.send(
                        new ProducerRecord<>(
                                topic,
                                null,
                                AvroWire.encode(
                                        Distribution.sparse(
                                                run.runId(),
                                                0,
                                                0,
                                                0,
                                                3,
                                                new int[] {101, 102},
                                                new double[] {0.8, 0.7}))));
                prod.send(
                        new ProducerRecord<>(
                                topic,
                                null,
                                AvroWire.encode(
                                        Distribution.sparse(
                                                run.runId(),
                                                0,
                                                0,
                                                0,
                                                4,
                                                new int[] {-5},
                                                new double[] {0.5}))));
            }
            // A forged step (another vocabulary size, not the run's public seed) and an answer to
            // it with a token only that vocabulary has. Before steps were validated the answer
            // passed the vote operator, the reducer's mechanism threw on the token, and the job
            // restart-looped.
            try (KafkaProducer<byte[], byte[]> prod =
                    new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                prod.send(
                        new ProducerRecord<>(
                                cfg.kafka().topics().name(Topic.STEPS),
                                null,
                                AvroWire.encode(
                                        new GenerationStep(
                                                run.runId(),
                                                cfg.ensemble().id(),
                                                0,
                                                0,
                                                9,
                                                new int[0],
                                                12345L,
                                                1,
                                                2000,
                                                System.currentTimeMillis(),
                                                System.currentTimeMillis() + 4000))));
                prod.send(
                        new ProducerRecord<>(
                                cfg.kafka().topics().name(Topic.DISTRIBUTIONS),
                                null,
                                AvroWire.encode(
                                        Distribution.sparse(
                                                run.runId(),
                                                0,
                                                0,
                                                9,
                                                5,
                                                new int[] {1500},
                                                new double[] {1.0}))));
            }
            assertThat(run.await(Duration.ofSeconds(90), null))
                    .as("run completes despite bad input")
                    .isTrue();
            // A malicious (or redelivered) second answer of teacher 0 to a step it answered:
            // dropped.
            int resultsBefore = run.results().size();
            try (KafkaProducer<byte[], byte[]> prod =
                    new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                prod.send(
                                new ProducerRecord<>(
                                        cfg.kafka().topics().name(Topic.DISTRIBUTIONS),
                                        null,
                                        AvroWire.encode(
                                                Distribution.sparse(
                                                        run.runId(),
                                                        0,
                                                        0,
                                                        0,
                                                        0,
                                                        new int[] {101},
                                                        new double[] {1.0}))))
                        .get();
            }
            assertThat(
                            run.awaitCondition(
                                    r ->
                                            r.rejected().stream()
                                                    .anyMatch(
                                                            x ->
                                                                    x.reason()
                                                                                    .equals(
                                                                                            Rejected
                                                                                                    .DUPLICATE_VOTE)
                                                                            || x.reason()
                                                                                    .equals(
                                                                                            Rejected
                                                                                                    .LATE_VOTE)),
                                    Duration.ofSeconds(20)))
                    // The re-sent answer's step may already be closed: without per-teacher rules
                    // the reducer sees it, and calls it LATE_VOTE then (DUPLICATE_VOTE if open).
                    .as("duplicate dead-lettered")
                    .isTrue();
            assertThat(run.results()).hasSize(resultsBefore);
            run.finish();
            assertThat(run.records()).hasSize(4);
            assertConsistent(run, cfg);
            Map<String, Long> reasons =
                    run.rejected().stream()
                            .collect(
                                    Collectors.groupingBy(Rejected::reason, Collectors.counting()));
            assertThat(reasons)
                    .containsEntry(Rejected.UNDECODABLE, 1L)
                    .containsEntry(Rejected.UNKNOWN_TEACHER, 1L)
                    // 2 bad payloads, and the answer to the forged step: token 1500 is past the
                    // run's vocabulary, rejected where it is decoded (its step never opens)
                    .containsEntry(Rejected.INVALID_DISTRIBUTION, 3L)
                    .containsEntry(Rejected.INVALID_STEP, 1L)
                    // the worker's answers to the forged step, which the run never issued
                    .containsKey(Rejected.UNKNOWN_STEP);
            assertThat(run.rejected())
                    .filteredOn(r -> r.reason().equals(Rejected.UNDECODABLE))
                    .singleElement()
                    .satisfies(
                            r ->
                                    assertThat(new String(r.value(), StandardCharsets.UTF_8))
                                            .isEqualTo("not avro"));
        }
    }

    static final AtomicBoolean FAIL_NOW = new AtomicBoolean();
    static final AtomicInteger FAILURES = new AtomicInteger();

    @Test
    void failureAfterACheckpointDuplicatesNothingAndKeepsTeacherCharges() throws Exception {
        // Heterogeneous: each teacher may cast 2 token votes; then it retires (abstains) for good.
        JobConfig cfg = config("crash", "");
        cfg =
                JobConfig.of(
                        cfg.values()
                                .with(JobOptions.ENSEMBLE_ID, "ensemble-0")
                                .with(JobOptions.ENSEMBLE_TEACHERS, 20)
                                .with(JobOptions.ENSEMBLE_KIND, "heterogeneous")
                                .with(JobOptions.ENSEMBLE_SOURCE, "planet-z")
                                .with(JobOptions.ENSEMBLE_K, 3)
                                .with(JobOptions.ENSEMBLE_ALPHA, 0.5)
                                .with(JobOptions.ENSEMBLE_SEED, 5L)
                                .with(JobOptions.ENSEMBLE_PAYLOAD, "sparse")
                                .with(JobOptions.ENSEMBLE_TOP_K, 32)
                                .with(JobOptions.ENSEMBLE_SAMPLES, 8)
                                .with(JobOptions.ENSEMBLE_VOCABULARY, 1050)
                                .with(JobOptions.BUDGET_EPSILON, 50.0)
                                .with(JobOptions.BUDGET_DELTA, 1e-6)
                                .with(JobOptions.BUDGET_PER_TEACHER_VOTES, 2)
                                .with(JobOptions.GENERATION_SEQUENCES, 6)
                                .with(JobOptions.GENERATION_CONCURRENCY, 6)
                                .with(JobOptions.GENERATION_MAX_STEPS, 3)
                                .with(JobOptions.GENERATION_STOP_TOKEN, -1)
                                .with(JobOptions.GENERATION_ON_FAIL, "resample")
                                .with(JobOptions.GENERATION_MAX_ATTEMPTS, 2)
                                .with(JobOptions.GENERATION_STEP_DEADLINE_MS, 3000L));
        FAIL_NOW.set(false);
        FAILURES.set(0);
        try (RunSession run =
                RunSession.start(
                        cfg,
                        null,
                        votes ->
                                votes.map(
                                                v -> {
                                                    if (FAIL_NOW.compareAndSet(true, false)) {
                                                        FAILURES.incrementAndGet();
                                                        throw new IllegalStateException(
                                                                "injected failure");
                                                    }
                                                    return v;
                                                })
                                        .returns(Types.POJO(Vote.class))
                                        .name("fault-injector"))) {
            // Fail once retirements are committed (so a checkpoint holding charges has completed).
            boolean done =
                    run.follow(
                            Duration.ofSeconds(120),
                            null,
                            r -> {
                                if (FAILURES.get() == 0
                                        && r.ledger().stream()
                                                .anyMatch(
                                                        e ->
                                                                e.kind()
                                                                        == LedgerKind
                                                                                .TEACHER_RETIRED)) {
                                    FAIL_NOW.set(true);
                                }
                            });
            assertThat(done).as("run completes after the restart").isTrue();
            run.finish();
            assertThat(FAILURES.get()).as("the failure was injected").isEqualTo(1);
            assertConsistent(run, cfg);
            // No lost per-teacher charge: a restored teacher would retire (be announced) again.
            List<Long> retired =
                    run.ledger().stream()
                            .filter(e -> e.kind() == LedgerKind.TEACHER_RETIRED)
                            .map(LedgerEntry::teacherId)
                            .toList();
            assertThat(retired).isNotEmpty().doesNotHaveDuplicates();
            // Retirements are operator-only: in operator.json, never in the public summary.
            var json = new com.fasterxml.jackson.databind.ObjectMapper();
            DatasetBudgetITCase.assertPublicSummaryNamesNoOperatorData(
                    json.readTree(run.outputDir().resolve("summary.json").toFile()));
            assertThat(
                            json.readTree(run.outputDir().resolve("operator.json").toFile())
                                    .get("retiredTeachers")
                                    .asInt())
                    .isEqualTo(Set.copyOf(retired).size());
            assertThat(Set.copyOf(retired)).allMatch(t -> t >= 0 && t < 20);
            // At most n*K token votes exist, so at most that many over the threshold of 6 votes
            // each.
            assertThat(run.tokens()).isLessThanOrEqualTo(20 * 2 / 6);
        }
    }

    @Test
    void theRunStopsAtItsBudgetAndNoReleaseExceedsIt() throws Exception {
        JobConfig cfg = config("budget", "");
        cfg =
                JobConfig.of(
                        cfg.values()
                                .with(JobOptions.BUDGET_EPSILON, 8.0)
                                .with(JobOptions.GENERATION_SEQUENCES, 12)
                                .with(JobOptions.GENERATION_CONCURRENCY, 3)
                                .with(JobOptions.GENERATION_MAX_STEPS, 3)
                                .with(JobOptions.GENERATION_MAX_ATTEMPTS, 3)
                                .with(JobOptions.GENERATION_STEP_DEADLINE_MS, 4000L));
        try (RunSession run = RunSession.start(cfg, null)) {
            assertThat(run.await(Duration.ofSeconds(90), null))
                    .as("run ends at its budget")
                    .isTrue();
            run.finish();
            assertConsistent(run, cfg);
            List<LedgerEntry> refused =
                    run.ledger().stream().filter(e -> e.kind() == LedgerKind.REFUSED).toList();
            assertThat(refused).as("the budget stopped the run").isNotEmpty();
            assertThat(run.records())
                    .anyMatch(r -> r.finishReason() == FinishReason.BUDGET_EXHAUSTED);
            // Every requested sequence ends in one record: those the budget never let start are
            // there too, empty, as NOT_STARTED (assertConsistent checks them one by one).
            assertThat(run.records()).hasSize(12);
            assertThat(run.records()).anyMatch(r -> r.finishReason() == FinishReason.NOT_STARTED);
            double eps =
                    run.ledger().stream()
                            .filter(e -> e.kind() == LedgerKind.CHARGE)
                            .mapToDouble(LedgerEntry::epsilonAfter)
                            .max()
                            .orElseThrow();
            assertThat(eps).isLessThanOrEqualTo(8.0);
            Map<String, Outcome> byStep = new HashMap<>();
            run.results()
                    .forEach(
                            r ->
                                    byStep.put(
                                            r.sequenceId() + "/" + r.step() + "/" + r.attempt(),
                                            r.outcome()));
            assertThat(run.results())
                    .filteredOn(r -> r.outcome() == Outcome.BUDGET_EXHAUSTED)
                    .allMatch(r -> r.token() == -1);
        }
    }
}
