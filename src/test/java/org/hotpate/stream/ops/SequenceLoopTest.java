package org.hotpate.stream.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.hotpate.stream.Fixtures.RUN;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.hotpate.core.generation.FailPolicy;
import org.hotpate.core.generation.FinishReason;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.Outcome;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.protocol.PublicModel;
import org.hotpate.protocol.RunShape;
import org.hotpate.protocol.SequenceId;
import org.hotpate.protocol.SequenceProgress;
import org.hotpate.teachers.SimulatedTeachers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SequenceLoopTest {
    private static final long RETENTION = 5000;
    private static final long WATCHDOG = 3000;
    private static final StepFactory STEPS =
            new StepFactory(
                    new RunShape(
                            RUN,
                            "ens",
                            42,
                            1050,
                            1000,
                            1000,
                            1000,
                            1000,
                            org.hotpate.protocol.EarlyStop.NONE),
                    SequencePrompts.NONE);
    private boolean finishTimes = true;
    private KeyedTwoInputStreamOperatorTestHarness<
                    String, StepResult, GenerationStep, GenerationStep>
            h;

    private void open(
            FailPolicy policy, int maxSteps, int stopToken, int sequences, int concurrency)
            throws Exception {
        open(policy, maxSteps, stopToken, sequences, concurrency, 5);
    }

    private void open(
            FailPolicy policy,
            int maxSteps,
            int stopToken,
            int sequences,
            int concurrency,
            int maxReissues)
            throws Exception {
        if (h != null) {
            h.close();
        }
        PublicModel ens = () -> SimulatedTeachers.planetZ(1, 20, 10).publicModel();
        h =
                ProcessFunctionTestHarnesses.forKeyedCoProcessFunction(
                        new SequenceLoop(
                                new SequenceLoop.Settings(
                                        STEPS,
                                        new SequenceProgress.Policy(
                                                policy,
                                                2,
                                                maxSteps,
                                                maxReissues,
                                                concurrency,
                                                sequences),
                                        RETENTION,
                                        WATCHDOG,
                                        SequenceText.NUMBERS,
                                        stopToken,
                                        ens,
                                        finishTimes)),
                        (StepResult r) -> SequenceId.keyOf(r.runId(), r.sequenceId()),
                        (GenerationStep g) -> SequenceId.keyOf(g.runId(), g.sequenceId()),
                        Types.STRING);
        h.setProcessingTime(0);
    }

    @AfterEach
    void close() throws Exception {
        h.close();
    }

    private static StepResult result(long seq, int step, int attempt, Outcome o, int token) {
        return new StepResult(RUN, seq, step, attempt, o, token, "m", "{}", 0.1, Double.NaN, 3);
    }

    private java.util.List<SyntheticRecord> records() {
        return h.getSideOutput(Tags.RECORDS) == null
                ? java.util.List.of()
                : h.getSideOutput(Tags.RECORDS).stream().map(StreamRecord::getValue).toList();
    }

    @Test
    void shouldAppendTokensAndIssueTheNextStepWithThePrefix() throws Exception {
        open(FailPolicy.RESAMPLE, 3, -1, 1, 1);
        h.processElement1(result(0, 0, 0, Outcome.TOKEN, 101), 0);
        h.processElement1(result(0, 1, 0, Outcome.TOKEN, 102), 0);
        assertThat(h.extractOutputValues()).extracting(GenerationStep::step).containsExactly(1, 2);
        assertThat(h.extractOutputValues().get(1).prefix()).containsExactly(101, 102);
        h.processElement1(result(0, 2, 0, Outcome.TOKEN, 103), 0);
        assertThat(records())
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.tokens()).containsExactly(101, 102, 103);
                            assertThat(r.text()).isEqualTo("101 102 103");
                            assertThat(r.finishReason()).isEqualTo(FinishReason.MAX_STEPS);
                        });
        assertThat(h.extractOutputValues()).hasSize(2); // no successor: only one sequence
    }

    @Test
    void recordsRunsPublishNoFinishTimes() throws Exception {
        // Simulated teachers: the wall-clock finish time; records runs (teachers built from the
        // private records, whose build and answer times set the timing): 0, "not given".
        long before = System.currentTimeMillis();
        open(FailPolicy.RESAMPLE, 1, -1, 1, 1);
        h.processElement1(result(0, 0, 0, Outcome.TOKEN, 101), 0);
        assertThat(records())
                .singleElement()
                .satisfies(r -> assertThat(r.finishedAtMs()).isGreaterThanOrEqualTo(before));
        finishTimes = false;
        open(FailPolicy.RESAMPLE, 1, -1, 1, 1);
        h.processElement1(result(0, 0, 0, Outcome.TOKEN, 101), 0);
        assertThat(records()).singleElement().satisfies(r -> assertThat(r.finishedAtMs()).isZero());
    }

    @Test
    void shouldResampleWithANewSeedThenStop() throws Exception {
        open(FailPolicy.RESAMPLE, 5, -1, 1, 1);
        h.processElement1(result(0, 0, 0, Outcome.FAIL, -1), 0);
        GenerationStep retry = h.extractOutputValues().get(0);
        assertThat(retry.step()).isZero();
        assertThat(retry.attempt()).isEqualTo(1);
        assertThat(retry.publicSeed())
                .isNotEqualTo(STEPS.step(0, 0, 0, new int[0], 0).publicSeed());
        h.processElement1(result(0, 0, 1, Outcome.FAIL, -1), 0); // max-attempts = 2
        assertThat(records())
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.finishReason()).isEqualTo(FinishReason.FAIL_STOP);
                            assertThat(r.fails()).isEqualTo(2);
                        });
    }

    @Test
    void shouldFallBackToThePublicModel() throws Exception {
        open(FailPolicy.FALLBACK, 1, -1, 1, 1);
        h.processElement1(result(0, 0, 0, Outcome.FAIL, -1), 0);
        assertThat(records())
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.tokens()).hasSize(1);
                            assertThat(r.tokens()[0]).isBetween(0, 1049);
                            assertThat(r.fallbacks()).isEqualTo(1);
                        });
    }

    @Test
    void shouldStopOnFailWhenToldTo() throws Exception {
        open(FailPolicy.STOP, 5, -1, 1, 1);
        h.processElement1(result(0, 0, 0, Outcome.FAIL, -1), 0);
        assertThat(records())
                .extracting(SyntheticRecord::finishReason)
                .containsExactly(FinishReason.FAIL_STOP);
        assertThat(h.extractOutputValues()).isEmpty();
    }

    @Test
    void shouldStopAtTheStopTokenAndStartTheSuccessor() throws Exception {
        open(FailPolicy.RESAMPLE, 5, 1049, 4, 2);
        h.processElement1(result(1, 0, 0, Outcome.TOKEN, 1049), 0);
        assertThat(records())
                .extracting(SyntheticRecord::finishReason)
                .containsExactly(FinishReason.STOP_TOKEN);
        assertThat(h.extractOutputValues())
                .singleElement()
                .satisfies(
                        s -> {
                            assertThat(s.sequenceId()).isEqualTo(3);
                            assertThat(s.step()).isZero();
                        });
    }

    @Test
    void shouldIgnoreDuplicateResultsAndClearStateLater() throws Exception {
        open(FailPolicy.RESAMPLE, 2, -1, 1, 1);
        h.processElement1(result(0, 0, 0, Outcome.TOKEN, 101), 0);
        h.processElement1(result(0, 0, 0, Outcome.TOKEN, 101), 0);
        assertThat(h.extractOutputValues()).hasSize(1);
        h.processElement1(result(0, 1, 0, Outcome.TOKEN, 102), 0);
        h.processElement1(result(0, 1, 0, Outcome.TOKEN, 102), 0);
        assertThat(records()).hasSize(1);
        assertThat(h.numKeyedStateEntries()).isEqualTo(1);
        h.setProcessingTime(RETENTION);
        assertThat(h.numKeyedStateEntries()).isZero();
    }

    /**
     * A sequence whose step the budget refused starts no successor; the successors that therefore
     * never start each end here in one empty NOT_STARTED record (DESIGN.md invariant 11). Fails on
     * the code before issue 25: no record for sequence 2, so the run's records did not add up to
     * the sequences requested.
     */
    @Test
    void shouldEndTheSequenceWithoutSuccessorWhenTheBudgetIsExhausted() throws Exception {
        open(FailPolicy.RESAMPLE, 5, -1, 4, 2);
        h.processElement1(result(0, 0, 0, Outcome.TOKEN, 101), 0);
        h.processElement1(result(0, 1, 0, Outcome.BUDGET_EXHAUSTED, -1), 0);
        assertThat(records())
                .extracting(SyntheticRecord::sequenceId, SyntheticRecord::finishReason)
                .containsExactly(
                        tuple(0L, FinishReason.BUDGET_EXHAUSTED),
                        tuple(2L, FinishReason.NOT_STARTED));
        assertThat(records().get(0).tokens()).containsExactly(101);
        SyntheticRecord notStarted = records().get(1);
        assertThat(notStarted.runId()).isEqualTo(RUN);
        assertThat(notStarted.tokens()).isEmpty();
        assertThat(notStarted.text()).isEmpty();
        assertThat(notStarted.steps()).isZero();
        assertThat(notStarted.fails()).isZero();
        assertThat(notStarted.fallbacks()).isZero();
        assertThat(h.extractOutputValues()).hasSize(1); // only step 1 of sequence 0; no sequence 2
    }

    /** The whole chain behind a refused sequence ends as NOT_STARTED, each sequence once. */
    @Test
    void aRefusedSequenceEndsItsWholeChainAsNotStarted() throws Exception {
        open(FailPolicy.RESAMPLE, 5, -1, 8, 3);
        h.processElement1(result(1, 0, 0, Outcome.BUDGET_EXHAUSTED, -1), 0);
        h.processElement1(result(1, 0, 0, Outcome.BUDGET_EXHAUSTED, -1), 1); // a duplicate
        assertThat(records())
                .extracting(SyntheticRecord::sequenceId, SyntheticRecord::finishReason)
                .containsExactly(
                        tuple(1L, FinishReason.BUDGET_EXHAUSTED),
                        tuple(4L, FinishReason.NOT_STARTED),
                        tuple(7L, FinishReason.NOT_STARTED));
        assertThat(h.extractOutputValues()).isEmpty();
    }

    /**
     * The watchdog re-issues a step that got no result (abandoned below the quorum, or lost) as the
     * next attempt — a new public seed — and a late result of the superseded attempt is ignored.
     * Fails on the code before the watchdog: nothing was ever re-issued and the sequence stalled.
     */
    @Test
    void theWatchdogReissuesAPositionThatGotNoResult() throws Exception {
        open(FailPolicy.RESAMPLE, 3, -1, 1, 1);
        h.processElement1(result(0, 0, 0, Outcome.TOKEN, 101), 0); // issues (1, 0), watched
        h.setProcessingTime(WATCHDOG - 1);
        assertThat(h.extractOutputValues()).hasSize(1);
        h.setProcessingTime(WATCHDOG);
        assertThat(h.extractOutputValues())
                .extracting(GenerationStep::step, GenerationStep::attempt)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1, 0),
                        org.assertj.core.groups.Tuple.tuple(1, 1));
        GenerationStep reissued = h.extractOutputValues().get(1);
        assertThat(reissued.publicSeed()).isEqualTo(STEPS.shape().seed(0, 1, 1));
        assertThat(reissued.prefix()).containsExactly(101);
        h.processElement1(result(0, 1, 0, Outcome.TOKEN, 555), WATCHDOG + 1); // stale: ignored
        assertThat(h.extractOutputValues()).hasSize(2);
        h.processElement1(result(0, 1, 1, Outcome.TOKEN, 102), WATCHDOG + 2);
        assertThat(h.extractOutputValues())
                .last()
                .satisfies(
                        s -> {
                            assertThat(s.step()).isEqualTo(2);
                            assertThat(s.prefix()).containsExactly(101, 102);
                        });
    }

    @Test
    void theFirstStepOfASequenceIsWatchedFromTheStepsTopic() throws Exception {
        open(FailPolicy.RESAMPLE, 3, -1, 1, 1);
        h.processElement2(STEPS.step(0, 0, 0, new int[0], 0), 0); // issued by the start source
        h.setProcessingTime(WATCHDOG);
        assertThat(h.extractOutputValues())
                .extracting(GenerationStep::step, GenerationStep::attempt)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0, 1));
        // An old first step seen again after the sequence's state is gone does not restart it.
        open(FailPolicy.RESAMPLE, 3, -1, 1, 1);
        h.setProcessingTime(RETENTION + 10);
        h.processElement2(STEPS.step(0, 0, 0, new int[0], 0), RETENTION + 10);
        h.setProcessingTime(RETENTION + 10 + WATCHDOG);
        assertThat(h.extractOutputValues()).isEmpty();
    }

    @Test
    void afterMaxReissuesWithoutAnyResultTheSequenceFinishesAsNoQuorum() throws Exception {
        open(FailPolicy.RESAMPLE, 3, -1, 4, 2, 2);
        h.processElement2(STEPS.step(0, 0, 0, new int[0], 0), 0);
        h.setProcessingTime(WATCHDOG); // attempt 1
        h.setProcessingTime(2 * WATCHDOG); // attempt 2
        assertThat(records()).isEmpty();
        h.setProcessingTime(3 * WATCHDOG); // two re-issues without a result: give up
        assertThat(records())
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.finishReason()).isEqualTo(FinishReason.NO_QUORUM);
                            assertThat(r.tokens()).isEmpty();
                        });
        assertThat(h.extractOutputValues())
                .extracting(
                        GenerationStep::sequenceId, GenerationStep::step, GenerationStep::attempt)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0L, 0, 1),
                        org.assertj.core.groups.Tuple.tuple(0L, 0, 2),
                        org.assertj.core.groups.Tuple.tuple(2L, 0, 0)); // the successor starts
        h.setProcessingTime(3 * WATCHDOG + RETENTION);
        assertThat(h.numKeyedStateEntries()).isZero();
    }

    @Test
    void reissuesDoNotCountAsFailedAttempts_andAResultResetsTheCount() throws Exception {
        open(FailPolicy.RESAMPLE, 3, -1, 1, 1, 1); // max-attempts 2, one re-issue
        h.processElement2(STEPS.step(0, 0, 0, new int[0], 0), 0);
        h.setProcessingTime(WATCHDOG); // re-issue: attempt 1
        h.processElement1(result(0, 0, 1, Outcome.FAIL, -1), WATCHDOG); // first ⊥ here
        assertThat(h.extractOutputValues())
                .extracting(GenerationStep::attempt)
                .containsExactly(1, 2); // resampled, not FAIL_STOP
        h.setProcessingTime(2 * WATCHDOG); // the result reset the count: one more re-issue
        assertThat(h.extractOutputValues())
                .extracting(GenerationStep::attempt)
                .containsExactly(1, 2, 3);
        assertThat(records()).isEmpty();
    }
}
