package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.typeinfo.Types;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.TeacherSpend;
import org.hotpate.model.Vote;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.RunSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scheme A end to end (issue 11, {@code mechanism.name: scheme-a}): a small heterogeneous Planet-Z
 * run whose BETWEEN outcomes come back from the accountant through the job's own exactly-once
 * {@code teacher-feedback} topic to the teacher-keyed charges. Checks, as an operator would from
 * the run directory: the run completes; {@code teachers.jsonl} has one row per charged teacher,
 * none above {@code per-teacher-epsilon}, some retired at τ; the charges in it equal the (teacher,
 * BETWEEN-release) pairs the accountant's TEACHER_FEEDBACK entries owe in the operator-only ledger;
 * no teacher is charged twice for one step; the durable ledger holds the same charges. Then the
 * same with a failure injected after charges were committed (restore with pending involvements and
 * feedback read again). Real MiniCluster (parallelism 2, RocksDB) and in-JVM KRaft broker.
 *
 * <p>Fails on the code before the feedback: the spec was refused at load (exit 2); with the refusal
 * simply removed, no teacher was ever charged (teachers.jsonl empty, 0 ≠ the owed pairs).
 */
class SchemeAITCase {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double PER_TEACHER_EPS = 5.0;
    private static final AtomicBoolean FAIL_NOW = new AtomicBoolean();
    private static final AtomicInteger FAILURES = new AtomicInteger();
    private static EmbeddedKafka kafka;

    @TempDir static Path ledgerDir;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    /**
     * ε = 0.1 per step, band [5, 25] (W = 20), target (5, 1e-6) under replace-one: τ = 5 ({@code
     * ./hotpate privacy plan --scheme a --epsilon 5 --delta 1e-6 --step-epsilon 0.1 --band-width
     * 20}; 11 under add/remove).
     */
    static JobConfig spec(String name) {
        return JobSpec.parse(
                specText(
                        name,
                        kafka.bootstrapServers(),
                        "per-teacher-epsilon: "
                                + PER_TEACHER_EPS
                                + ", dataset: "
                                + name
                                + ", ledger: local, ledger-dir: '"
                                + ledgerDir
                                + "'",
                        "",
                        300),
                name);
    }

    /**
     * The spec text of the scheme-a ITs: the plan above on 60 Planet-Z teachers, topics named after
     * the run; {@code budget} (the budget keys after ε and δ), {@code topics} (more topic keys) and
     * the checkpoint interval vary.
     */
    static String specText(
            String name, String bootstrap, String budget, String topics, long checkpointMs) {
        return """
                name: %1$s
                ensemble: {id: pz-a, teachers: 60, kind: heterogeneous, source: planet-z, k: 3, seed: 5, top-k: 32}
                sampler: {type: coordinated, seed: 11}
                mechanism: {name: scheme-a, params: {epsilon: 0.1, lower: 5, upper: 25, sample-rate: 0.5}}
                budget: {epsilon: 20.0, delta: 1.0e-6, %2$s}
                generation: {sequences: 12, concurrency: 6, max-steps: 6, on-fail: resample, max-attempts: 2, step-deadline-ms: 3000}
                kafka:
                  mode: external
                  bootstrap: %3$s
                  topics: {steps: %1$s.steps, distributions: %1$s.distributions, results: %1$s.results,
                           records: %1$s.records, ledger: %1$s.ledger, rejected: %1$s.rejected,
                           teacher-feedback: %1$s.teacher-feedback%4$s}
                flink: {parallelism: 2, checkpoint-interval-ms: %5$d}
                output: {dir: target/it-out}
                """
                .formatted(name, budget, bootstrap, topics, checkpointMs);
    }

    @Test
    void chargesEveryBetweenReleaseToItsInvolvedTeachersExactlyOnce() throws Exception {
        JobConfig cfg = spec("scheme-a");
        assertThat(cfg.plan().perTeacherPlan().limit()).isEqualTo(5);
        try (RunSession run = RunSession.start(cfg, null)) {
            assertThat(run.await(Duration.ofSeconds(150), null)).as("run completes").isTrue();
            run.finish();
            assertChargedExactlyAsOwed(run, cfg);
        }
    }

    @Test
    void aRestoreWithOutcomesInFlightChargesNoOneTwice() throws Exception {
        JobConfig cfg = spec("scheme-a-fail");
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
            // Fail once charges are committed: a checkpoint holding charges and pending
            // involvements has completed, and feedback already applied is read again.
            boolean done =
                    run.follow(
                            Duration.ofSeconds(180),
                            null,
                            r -> {
                                if (FAILURES.get() == 0
                                        && r.ledger().stream()
                                                .anyMatch(
                                                        e ->
                                                                e.kind()
                                                                        == LedgerKind
                                                                                .TEACHER_CHARGE)) {
                                    FAIL_NOW.set(true);
                                }
                            });
            assertThat(done).as("run completes after the restart").isTrue();
            run.finish();
            assertThat(FAILURES.get()).as("the failure was injected").isEqualTo(1);
            assertChargedExactlyAsOwed(run, cfg);
        }
    }

    private static void assertChargedExactlyAsOwed(RunSession run, JobConfig cfg) throws Exception {
        HotPateJobITCase.assertConsistent(run, cfg);
        assertThat(run.teacherFeedbackApplied()).isTrue();
        List<LedgerEntry> ledger = run.ledger();
        // What the accountant owes: per admitted release, the teachers its outcome charges.
        Map<String, Long> owed = new HashMap<>();
        for (LedgerEntry e : ledger) {
            if (e.kind() == LedgerKind.TEACHER_FEEDBACK) {
                assertThat(owed.put(key(e), e.releases()))
                        .as("one feedback entry per release")
                        .isNull();
                assertThat(e.releases()).isIn(0L, (long) e.votesCast()); // all or none
            }
        }
        long releases = ledger.stream().filter(e -> e.kind() == LedgerKind.CHARGE).count();
        assertThat(owed).as("every release fed back").hasSize((int) releases);
        long owedPairs = owed.values().stream().mapToLong(Long::longValue).sum();
        assertThat(owedPairs).as("some release was BETWEEN").isPositive();
        assertThat(owed.values()).as("some release was not BETWEEN").contains(0L);

        // What the vote operator charged: (teacher, step) pairs, none twice, all owed.
        Set<String> pairs = new HashSet<>();
        Map<String, Integer> chargedAt = new HashMap<>();
        for (LedgerEntry e : ledger) {
            if (e.kind() == LedgerKind.TEACHER_CHARGE) {
                assertThat(pairs.add(e.teacherId() + "@" + key(e)))
                        .as("teacher " + e.teacherId() + " charged twice at " + key(e))
                        .isTrue();
                chargedAt.merge(key(e), 1, Integer::sum);
                assertThat(e.epsilonAfter()).isLessThanOrEqualTo(PER_TEACHER_EPS);
            }
        }
        for (Map.Entry<String, Integer> c : chargedAt.entrySet()) {
            assertThat(owed.get(c.getKey()))
                    .as("charges at " + c.getKey())
                    .isEqualTo(c.getValue().longValue());
        }

        // teachers.jsonl: one row per charged teacher; its charges are exactly the owed pairs.
        Path file = run.outputDir().resolve("teachers.jsonl");
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            rows.add(JSON.readTree(line));
        }
        assertThat(rows).isNotEmpty();
        long tau = cfg.plan().perTeacherPlan().limit();
        long sumCharges = 0;
        int retired = 0;
        Set<Long> amounts = new HashSet<>();
        for (JsonNode r : rows) {
            assertThat(r.get("epsilon").asDouble())
                    .isPositive()
                    .isLessThanOrEqualTo(PER_TEACHER_EPS);
            assertThat(r.get("charges").asLong()).isBetween(1L, tau);
            assertThat(r.get("chargesThisRun").asLong()).isEqualTo(r.get("charges").asLong());
            assertThat(r.get("retired").asBoolean()).isEqualTo(r.get("charges").asLong() == tau);
            sumCharges += r.get("charges").asLong();
            amounts.add(r.get("charges").asLong());
            retired += r.get("retired").asBoolean() ? 1 : 0;
        }
        assertThat(sumCharges)
                .as("charges = (teacher, BETWEEN-release) pairs")
                .isEqualTo(owedPairs);
        assertThat(retired).as("some teachers retired at tau").isPositive();
        assertThat(amounts).as("teachers with different amounts").hasSizeGreaterThan(1);

        // The durable per-dataset ledger holds the same charges (next runs start from them).
        Map<Long, Long> durable = new HashMap<>();
        for (TeacherSpend t : BudgetLedgerIo.readTeachersLocal(ledgerDir, cfg.datasetId())) {
            durable.put(t.teacherId(), t.charges());
        }
        for (JsonNode r : rows) {
            assertThat(durable.get(r.get("teacher").asLong()))
                    .as("durable charges of teacher " + r.get("teacher"))
                    .isEqualTo(r.get("charges").asLong());
        }
        // Per-teacher spending is operator-only: never in the public summary.
        JsonNode summary = JSON.readTree(run.outputDir().resolve("summary.json").toFile());
        DatasetBudgetITCase.assertPublicSummaryNamesNoOperatorData(summary);
        assertThat(summary.toString()).doesNotContain("charges").doesNotContain("feedback");
    }

    private static String key(LedgerEntry e) {
        return e.sequenceId() + "/" + e.step() + "/" + e.attempt();
    }
}
