package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.hotpate.io.AvroWire;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.TeacherFeedback;
import org.hotpate.model.TeacherSpend;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;
import org.hotpate.stream.driver.RunSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scheme A at a non-clean end (issue 23 item 1): a run is cancelled right after BETWEEN releases
 * were committed, before their charges came back through the feedback loop, and a second run starts
 * on the same dataset. Checks: after the first run, every teacher's durable entry (charges +
 * pending, what the next run starts from) is at least the number of committed BETWEEN outcomes that
 * charge it (the committed charged records of the teacher-feedback topic — exactly what the
 * releases owe); over both runs no teacher takes more than τ charges.
 *
 * <p>Fails on the code before the write-ahead of pending involvements: the durable entry only grew
 * when a charge came back and was flushed at the next checkpoint, so a cancel within a checkpoint
 * interval of the commit left committed BETWEEN outcomes out of the ledger (a second run could then
 * charge the teacher past τ). Real MiniCluster (parallelism 2, RocksDB), in-JVM KRaft broker, local
 * ledger.
 */
class SchemeANonCleanEndITCase {
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
     * As {@link SchemeAITCase#spec} (τ = 5), one dataset for both runs, own topics per run, and
     * checkpoints 2.5 s apart: a charge coming back is flushed to the local ledger only at the
     * checkpoint after it was read, so cancelling as soon as a committed BETWEEN release shows no
     * applied charge yet leaves its charges in flight (on the code before the write-ahead, the
     * durable entries then miss them).
     */
    static JobConfig spec(String name, String ledger) {
        return spec(name, ledger, 2500);
    }

    /**
     * As {@link #spec(String, String)} with its own checkpoint interval: the second run of each
     * test (which only has to complete) takes 500 ms, so that its steps' feedback is not held back
     * by the first run's slow checkpoints.
     */
    static JobConfig spec(String name, String ledger, long checkpointMs) {
        return JobSpec.parse(
                SchemeAITCase.specText(
                        name,
                        kafka.bootstrapServers(),
                        "per-teacher-epsilon: 5.0, dataset: scheme-a-crash-"
                                + ledger
                                + ", ledger: "
                                + ledger
                                + ", ledger-dir: '"
                                + ledgerDir
                                + "'",
                        ", budget-ledger: crash.budget-ledger",
                        checkpointMs),
                name);
    }

    @Test
    void aCancelledRunLeavesEveryCommittedBetweenOutcomeInTheLocalLedger() throws Exception {
        cancelThenRunAgain("local");
    }

    /** The same through the Kafka ledger (the vote operator's TEACHER_LEDGER side output). */
    @Test
    void aCancelledRunLeavesEveryCommittedBetweenOutcomeInTheKafkaLedger() throws Exception {
        cancelThenRunAgain("kafka");
    }

    private static List<TeacherSpend> durable(JobConfig cfg) throws Exception {
        if (cfg.ledgerMode() == JobConfig.LedgerMode.LOCAL) {
            return BudgetLedgerIo.readTeachersLocal(ledgerDir, cfg.datasetId());
        }
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        return BudgetLedgerIo.readTeachersTopic(
                        p, cfg.kafka().topics().name(Topic.BUDGET_LEDGER), Duration.ofSeconds(60))
                .stream()
                .filter(t -> t.dataset().equals(cfg.datasetId()))
                .toList();
    }

    private static void cancelThenRunAgain(String ledger) throws Exception {
        JobConfig first = spec("scheme-a-crash-" + ledger + "-1", ledger);
        long tau = first.plan().perTeacherPlan().limit();
        assertThat(tau).isEqualTo(5);
        String runId;
        try (RunSession run = RunSession.start(first, null)) {
            runId = run.runId();
            boolean between =
                    run.awaitCondition(
                            SchemeANonCleanEndITCase::aCommittedChargeIsInFlight,
                            Duration.ofSeconds(150));
            assertThat(between)
                    .as("a BETWEEN release was committed, its charges not yet applied")
                    .isTrue();
            // The non-clean end: no waiting for teacherFeedbackApplied, no finish().
            run.job().cancel().get();
        }

        // What the committed releases owe: the charged outcomes on the teacher-feedback topic.
        Map<Long, Long> owed = new HashMap<>();
        for (TeacherFeedback f :
                committedFeedback(first.kafka().topics().name(Topic.TEACHER_FEEDBACK))) {
            if (f.runId().equals(runId) && f.charged()) {
                owed.merge(f.teacherId(), 1L, Long::sum);
            }
        }
        assertThat(owed).as("committed BETWEEN outcomes").isNotEmpty();
        Map<Long, Long> durable = new HashMap<>();
        for (TeacherSpend t : durable(first)) {
            durable.put(t.teacherId(), t.charges() + t.pending());
        }
        for (Map.Entry<Long, Long> o : owed.entrySet()) {
            assertThat(durable.getOrDefault(o.getKey(), 0L))
                    .as("durable charges + pending of teacher " + o.getKey())
                    .isGreaterThanOrEqualTo(o.getValue());
        }

        // A second run on the dataset starts every teacher from charges + pending.
        JobConfig second = spec("scheme-a-crash-" + ledger + "-2", ledger, 500);
        try (RunSession run = RunSession.start(second, null)) {
            assertThat(run.await(Duration.ofSeconds(150), null)).as("run 2 completes").isTrue();
            run.finish();
            assertThat(run.teacherFeedbackApplied()).isTrue();
            Map<Long, Long> chargedInRun2 = new HashMap<>();
            for (LedgerEntry e : run.ledger()) {
                if (e.kind() == LedgerKind.TEACHER_CHARGE) {
                    chargedInRun2.merge(e.teacherId(), 1L, Long::sum);
                    assertThat(e.releases()).as("charges on the dataset").isLessThanOrEqualTo(tau);
                }
            }
            for (Map.Entry<Long, Long> c : chargedInRun2.entrySet()) {
                assertThat(owed.getOrDefault(c.getKey(), 0L) + c.getValue())
                        .as("charges of teacher " + c.getKey() + " over both runs")
                        .isLessThanOrEqualTo(tau);
            }
        }
        for (TeacherSpend t : durable(first)) {
            assertThat(t.charges() + t.pending())
                    .as("durable entry of teacher " + t.teacherId())
                    .isLessThanOrEqualTo(tau)
                    .isGreaterThanOrEqualTo(owed.getOrDefault(t.teacherId(), 0L));
        }
    }

    /**
     * Whether a committed BETWEEN release (TEACHER_FEEDBACK charging someone) has no TEACHER_CHARGE
     * entry visible yet: its charges are still in the feedback loop.
     */
    private static boolean aCommittedChargeIsInFlight(RunSession r) {
        java.util.Set<String> applied = new java.util.HashSet<>();
        for (LedgerEntry e : r.ledger()) {
            if (e.kind() == LedgerKind.TEACHER_CHARGE) {
                applied.add(e.sequenceId() + "/" + e.step() + "/" + e.attempt());
            }
        }
        return r.ledger().stream()
                .anyMatch(
                        e ->
                                e.kind() == LedgerKind.TEACHER_FEEDBACK
                                        && e.releases() > 0
                                        && !applied.contains(
                                                e.sequenceId()
                                                        + "/"
                                                        + e.step()
                                                        + "/"
                                                        + e.attempt()));
    }

    /** Every committed record of {@code topic} (read_committed, to the last stable offset). */
    private static List<TeacherFeedback> committedFeedback(String topic) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<TeacherFeedback> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            c.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
            long deadline = System.currentTimeMillis() + 60_000;
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                assertThat(System.currentTimeMillis()).isLessThan(deadline);
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    out.add(AvroWire.decodeTeacherFeedback(r.value()));
                }
            }
        }
        return out;
    }
}
