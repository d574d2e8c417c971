package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.hotpate.model.Rejected;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.junit.jupiter.api.Test;

class RunFollowerTest {
    @Test
    void progressLinePrintsTheBudgetRoundedUp() {
        // The budget is the guarantee: printed with fewer digits it must not read smaller.
        JobConfig cfg = JobSpec.parse("budget: {epsilon: 0.12341}", "x");
        RunFollower f =
                new RunFollower(
                        cfg,
                        "r",
                        System.currentTimeMillis(),
                        new Properties(),
                        new RunOutcome(
                                cfg.generation().sequences(),
                                cfg.generation().concurrency(),
                                false));
        assertThat(f.progressLine()).contains("ε 0.000/0.124 ");
    }

    /**
     * Issue 39 item 4: a records run's timing is private (summary.json drops it), so its live line
     * prints no tokens/s and no ETA; a synthetic run's still does.
     */
    @Test
    void aRecordsRunsProgressLinePrintsNoRateAndNoEta() {
        JobConfig records = JobSpec.parse("ensemble: {source: records}\nteacher: {order: 4}", "x");
        JobConfig synthetic = JobSpec.parse("budget: {epsilon: 1.0}", "x");
        assertThat(line(records)).doesNotContain("tok/s").doesNotContain("ETA");
        JobConfig llm =
                JobSpec.parse(
                        "ensemble: {source: external, kind: heterogeneous, teachers: 4}\n"
                                + "records: {file: private.jsonl}",
                        "x");
        assertThat(line(llm)).doesNotContain("tok/s").doesNotContain("ETA");
        assertThat(line(synthetic)).contains("tok/s").contains("ETA");
    }

    private static String line(JobConfig cfg) {
        return new RunFollower(
                        cfg,
                        "r",
                        System.currentTimeMillis(),
                        new Properties(),
                        new RunOutcome(
                                cfg.generation().sequences(),
                                cfg.generation().concurrency(),
                                false))
                .progressLine();
    }

    /**
     * Late votes show while the run goes, once there are any. Fails when the line never shows them
     * or counts every rejection (a bad record is not a late vote).
     */
    @Test
    void progressLineShowsLateVotesOnlyOnceThereAreAny() {
        JobConfig cfg = JobSpec.parse("name: x", "x");
        RunOutcome outcome =
                new RunOutcome(cfg.generation().sequences(), cfg.generation().concurrency(), false);
        RunFollower f =
                new RunFollower(cfg, "r", System.currentTimeMillis(), new Properties(), outcome);
        outcome.add(Rejected.of("d", Rejected.DUPLICATE_VOTE, "x", "r", 1));
        assertThat(f.progressLine()).doesNotContain("late");
        outcome.add(Rejected.of("d", Rejected.LATE_VOTE, "x", "r", 1));
        outcome.add(Rejected.of("d", Rejected.LATE_VOTE, "x", "r", 2));
        assertThat(f.progressLine())
                .contains(
                        "| 2 late votes (generation.step-deadline-ms "
                                + cfg.generation().stepDeadlineMs()
                                + ")");
        // a records run's lateness follows its private records: operator.json only
        JobConfig records = JobSpec.parse("ensemble: {source: records}\nteacher: {order: 4}", "x");
        RunOutcome late =
                new RunOutcome(
                        records.generation().sequences(),
                        records.generation().concurrency(),
                        false);
        late.add(Rejected.of("d", Rejected.LATE_VOTE, "x", "r", 1));
        assertThat(
                        new RunFollower(
                                        records,
                                        "r",
                                        System.currentTimeMillis(),
                                        new Properties(),
                                        late)
                                .progressLine())
                .doesNotContain("late");
    }

    @Test
    void progressIsLinesUnlessAsked_orOnAConsole() {
        String old = System.getProperty("hotpate.progress");
        try {
            System.setProperty("hotpate.progress", "lines");
            assertThat(RunFollower.lineProgress()).isTrue();
            System.setProperty("hotpate.progress", "frames");
            assertThat(RunFollower.lineProgress()).isFalse();
            System.clearProperty("hotpate.progress");
            assertThat(RunFollower.lineProgress()).isEqualTo(System.console() == null);
        } finally {
            if (old == null) {
                System.clearProperty("hotpate.progress");
            } else {
                System.setProperty("hotpate.progress", old);
            }
        }
    }

    @Test
    void stallRule_countsFromTheLastProgressAndWaitsTenTimesAsLongForTheFirstResult() {
        long w = 120_000; // 240 checkpoints of 500 ms
        // no result yet: teachers may still be building
        assertThat(RunFollower.stalled(0, 0, 0, 10 * w, w, 10 * w)).isFalse();
        assertThat(RunFollower.stalled(0, 0, 0, 10 * w + 1, w, 10 * w)).isTrue();
        // after the first result: from the last new output
        assertThat(RunFollower.stalled(0, 1_000, 50_000, 50_000 + w, w, 10 * w)).isFalse();
        assertThat(RunFollower.stalled(0, 1_000, 50_000, 50_001 + w, w, 10 * w)).isTrue();
        assertThat(RunFollower.stalled(0, 60_000, 0, 60_001 + w, w, 10 * w)).isTrue();
    }

    @Test
    void eta_isTheSoonerOfTheSequencesAndTheBudget() {
        // 100 of 1000 sequences in 100 s: 900 s left by the sequences
        assertThat(RunFollower.format(RunFollower.eta(100, 1000, 100, 0, 0.1, 4.0)))
                .isEqualTo("15m00s");
        // the budget: 1.0 spent since ε was 2.0 (its first value), 1.0 left: 100 s
        assertThat(RunFollower.format(RunFollower.eta(100, 1000, 100, 2.0, 3.0, 4.0)))
                .isEqualTo("1m40s");
        assertThat(RunFollower.format(RunFollower.eta(0, 1000, 100, 0, 0, 4.0))).isEqualTo("-");
        assertThat(RunFollower.format(RunFollower.eta(10, 1000, 2, 0, 0.1, 4.0))).isEqualTo("-");
        assertThat(RunFollower.format(RunFollower.eta(1, 101, 100, 0, 0, Double.NaN)))
                .isEqualTo("2h46m");
    }
}
