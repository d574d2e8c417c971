package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.hotpate.core.generation.FinishReason;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobOptions;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.RunSession;
import org.hotpate.stream.driver.TeacherWorker;
import org.junit.jupiter.api.Test;

/**
 * A teacher-service outage must not burn ε (issue 10 item 12): the job runs with external teachers
 * (a {@link TeacherWorker} this test starts and stops), the worker is stopped for a while and
 * restarted. While it is down, steps close below the quorum and are abandoned — nothing is released
 * or charged — and the sequence watchdog re-issues them; once it is back, the run completes
 * normally. Real MiniCluster and in-JVM KRaft broker.
 *
 * <p>Fails on the code before the quorum and the watchdog: every step that closed during the outage
 * was aggregated with all teachers abstaining — a charged ⊥ — and sequences ran out of attempts
 * (FAIL_STOP) instead of waiting.
 */
class TeacherOutageITCase {
    private static final long DEADLINE = 1500;

    @Test
    void noReleaseWhileTeachersAreMissing_andTheRunCompletesAfterTheyReturn() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            JobConfig cfg =
                    JobSpec.parse(
                            """
                            name: outage
                            ensemble: {id: pz, teachers: 20, source: external, k: 3, seed: 5, top-k: 32}
                            sampler: {type: coordinated, seed: 11}
                            mechanism: {name: confident-gnmax, params: {sigma1: 1.5, threshold: 6, sigma2: 1.5}}
                            budget: {epsilon: 200.0, delta: 1.0e-6}
                            generation: {sequences: 4, concurrency: 4, max-steps: 6, max-attempts: 3,
                                         step-deadline-ms: %d, max-reissues: 20}
                            kafka:
                              mode: external
                              bootstrap: %s
                              topics: {steps: o.steps, distributions: o.distributions, results: o.results,
                                       records: o.records, ledger: o.ledger, rejected: o.rejected,
                                       budget-ledger: o.budget-ledger}
                            flink: {parallelism: 2, checkpoint-interval-ms: 300}
                            output: {dir: target/it-out}
                            """
                                    .formatted(DEADLINE, kafka.bootstrapServers()),
                            "outage");
            JobConfig.Ensemble simulated =
                    new JobConfig.Ensemble(
                            cfg.values()
                                    .with(JobOptions.ENSEMBLE_SOURCE, "planet-z")
                                    .with(JobOptions.ENSEMBLE_SAMPLES, 8));
            try (RunSession run = RunSession.start(cfg, null)) {
                TeacherWorker.Settings ws =
                        TeacherWorker.settings(cfg, kafka.bootstrapServers(), run.runId(), 0, 20);
                TeacherWorker worker = startWorker(ws, cfg, simulated);
                // Let the run release something, then take the teachers down.
                assertThat(run.awaitCondition(r -> charges(r) >= 3, Duration.ofSeconds(60)))
                        .isTrue();
                stop(worker);
                long stoppedAt = System.currentTimeMillis();
                // In-flight steps may still close with the votes already sent.
                run.awaitCondition(r -> false, Duration.ofMillis(DEADLINE + 2500));
                long quietFrom = System.currentTimeMillis();
                int chargesAtQuiet = charges(run);
                double epsAtQuiet = run.epsilon();
                run.awaitCondition(r -> false, Duration.ofSeconds(8)); // the outage
                long restartAt = System.currentTimeMillis();
                assertThat(charges(run))
                        .as("no release while teachers are missing")
                        .isEqualTo(chargesAtQuiet);
                assertThat(run.epsilon()).as("no ε spent during the outage").isEqualTo(epsAtQuiet);
                assertThat(
                                run.ledger().stream()
                                        .filter(e -> e.kind() == LedgerKind.ABANDONED)
                                        .filter(e -> e.atMs() >= stoppedAt)
                                        .count())
                        .as("steps were abandoned below the quorum")
                        .isPositive();
                assertThat(run.ledger())
                        .filteredOn(e -> e.kind() == LedgerKind.CHARGE)
                        .noneMatch(e -> e.atMs() > quietFrom && e.atMs() < restartAt);
                TeacherWorker again = startWorker(ws, cfg, simulated);
                try {
                    assertThat(run.await(Duration.ofSeconds(120), null))
                            .as("the run completes after the teachers return")
                            .isTrue();
                } finally {
                    stop(again);
                }
                run.finish();
                assertThat(run.records()).hasSize(4);
                assertThat(run.records())
                        .extracting(SyntheticRecord::finishReason)
                        .doesNotContain(FinishReason.NO_QUORUM);
                assertThat(charges(run)).isGreaterThan(chargesAtQuiet);
                HotPateJobITCase.assertConsistent(run, cfg);
            }
        }
    }

    private static int charges(RunSession r) {
        List<LedgerEntry> l = r.ledger();
        return (int) l.stream().filter(e -> e.kind() == LedgerKind.CHARGE).count();
    }

    private static TeacherWorker startWorker(
            TeacherWorker.Settings ws, JobConfig cfg, JobConfig.Ensemble simulated) {
        TeacherWorker w = new TeacherWorker(ws, TeacherWorker.answers(cfg, simulated));
        Thread t = new Thread(w, "outage-teachers");
        t.setDaemon(true);
        t.start();
        return w;
    }

    private static void stop(TeacherWorker w) throws InterruptedException {
        w.close();
        Thread.sleep(500); // the worker's poll loop notices the wakeup
    }
}
