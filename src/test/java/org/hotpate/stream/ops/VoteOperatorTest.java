package org.hotpate.stream.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hotpate.stream.Fixtures.step;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.Rejected;
import org.hotpate.model.Vote;
import org.hotpate.protocol.AccountingMode;
import org.hotpate.protocol.StepId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class VoteOperatorTest {
    private KeyedBroadcastOperatorTestHarness<Long, VoteOperator.Input, GenerationStep, Vote> h;

    /** A vote operator with a cap of {@code voteCap} token votes per teacher (0: none). */
    private static VoteOperator operator(int voteCap) {
        return new VoteOperator(
                new VoteOperator.Settings(
                        "dist",
                        1000,
                        60_000,
                        voteCap > 0
                                ? new AccountingMode.VoteCap(voteCap)
                                : new AccountingMode.EnsembleOnly(),
                        "ds",
                        Map.of(),
                        LedgerSink.JOB_OUTPUT));
    }

    private void open(int voteCap) throws Exception {
        VoteOperator op = operator(voteCap);
        h =
                ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(
                        op, VoteOperator.Input::teacherId, Types.LONG, VoteOperator.OPEN_STEPS);
        h.setProcessingTime(0);
    }

    @AfterEach
    void close() throws Exception {
        h.close();
    }

    private List<String> reasons() {
        return h.getSideOutput(Tags.REJECTED) == null
                ? List.of()
                : h.getSideOutput(Tags.REJECTED).stream()
                        .map(r -> r.getValue().reason())
                        .collect(Collectors.toList());
    }

    @Test
    void shouldDropDuplicateVotesOfATeacherWithAnAccount() throws Exception {
        open(2);
        h.processBroadcastElement(step(0, 0, 0), 0);
        h.processElement(certain(1, 0, 0, 0, 3), 0);
        h.processElement(certain(1, 0, 0, 0, 4), 0); // a second answer, even a different one
        h.processElement(certain(2, 0, 0, 0, 4), 0);
        assertThat(h.extractOutputValues())
                .extracting(Vote::teacherId, Vote::token)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1L, 3),
                        org.assertj.core.groups.Tuple.tuple(2L, 4));
        assertThat(reasons()).containsExactly(Rejected.DUPLICATE_VOTE);
    }

    /**
     * Ensemble accounting keeps no teacher account, so the operator does not look votes up: a
     * duplicate goes on to the reducer, whose tally counts each teacher's first vote only ({@code
     * StepReducerTest}, {@code StepTallyTest}).
     */
    @Test
    void ensembleOnly_leavesDuplicatesToTheReducersTally() throws Exception {
        open(0);
        h.processBroadcastElement(step(0, 0, 0), 0);
        h.processElement(certain(1, 0, 0, 0, 3), 0);
        h.processElement(certain(1, 0, 0, 0, 4), 0);
        assertThat(h.extractOutputValues())
                .extracting(Vote::teacherId, Vote::token)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1L, 3),
                        org.assertj.core.groups.Tuple.tuple(1L, 4));
        assertThat(reasons()).isEmpty();
    }

    @Test
    void shouldAllowOneVotePerAttempt() throws Exception {
        open(0);
        h.processBroadcastElement(step(0, 0, 0), 0);
        h.processElement(certain(1, 0, 0, 0, 3), 0);
        h.processBroadcastElement(step(0, 0, 1), 0); // resample: a new attempt is a new question
        h.processElement(certain(1, 0, 0, 1, 3), 0);
        assertThat(h.extractOutputValues()).hasSize(2);
        assertThat(reasons()).isEmpty();
    }

    @Test
    void shouldSkipRetiredTeachersAndAnnounceRetirementOnce() throws Exception {
        open(2); // two token votes per teacher
        for (int s = 0; s < 4; s++) {
            h.processBroadcastElement(step(0, s, 0), 0);
            h.processElement(certain(1, 0, s, 0, 3), 0);
        }
        assertThat(h.extractOutputValues())
                .extracting(Vote::token)
                .containsExactly(3, 3, Vote.ABSTAIN, Vote.ABSTAIN);
        assertThat(h.getSideOutput(Tags.LEDGER))
                .extracting(StreamRecord::getValue)
                .extracting(LedgerEntry::kind, LedgerEntry::teacherId)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                org.hotpate.model.LedgerKind.TEACHER_RETIRED, 1L));
    }

    @Test
    void shouldKeepChargesAndRetirementAcrossARestore() throws Exception {
        open(2);
        h.processBroadcastElement(step(0, 0, 0), 0);
        h.processElement(certain(1, 0, 0, 0, 3), 0);
        h.processElement(certain(2, 0, 0, 0, 3), 0);
        h.processBroadcastElement(step(0, 1, 0), 0);
        h.processElement(certain(1, 0, 1, 0, 3), 0); // teacher 1 reaches its limit
        org.apache.flink.runtime.checkpoint.OperatorSubtaskState snap = h.snapshot(1L, 0L);
        h.close();
        h = VoteOperatorHarness.open(operator(2), snap);
        h.processElement(
                certain(1, 0, 1, 0, 3), 0); // replayed answer: still a duplicate after restore
        h.processBroadcastElement(step(0, 2, 0), 0);
        h.processElement(certain(1, 0, 2, 0, 3), 0); // retired: abstains
        h.processElement(certain(2, 0, 2, 0, 3), 0); // one vote left: votes (and retires)
        assertThat(h.extractOutputValues())
                .extracting(Vote::teacherId, Vote::token)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1L, Vote.ABSTAIN),
                        org.assertj.core.groups.Tuple.tuple(2L, 3));
        assertThat(reasons()).containsExactly(Rejected.DUPLICATE_VOTE);
    }

    @Test
    void shouldNotChargeAbstentions() throws Exception {
        open(1);
        h.processBroadcastElement(step(0, 0, 0), 0);
        h.processElement(certain(1, 0, 0, 0, Vote.ABSTAIN), 0); // all residual: abstains
        h.processBroadcastElement(step(0, 1, 0), 0);
        h.processElement(certain(1, 0, 1, 0, 3), 0);
        assertThat(h.extractOutputValues())
                .extracting(Vote::token)
                .containsExactly(Vote.ABSTAIN, 3);
    }

    @Test
    void shouldHoldAnAnswerUntilItsStepArrives() throws Exception {
        open(0);
        h.processElement(certain(1, 0, 0, 0, 3), 0);
        assertThat(h.extractOutputValues()).isEmpty();
        h.processBroadcastElement(step(0, 0, 0), 50);
        h.setProcessingTime(200);
        assertThat(h.extractOutputValues()).extracting(Vote::token).containsExactly(3);
        assertThat(h.numProcessingTimeTimers()).isZero(); // nothing pending any more
        h.processElement(certain(1, 0, 0, 0, 3), 300);
        assertThat(h.extractOutputValues()).hasSize(2); // ensemble-only: the reducer dedupes
    }

    @Test
    void shouldDeadLetterAnswersForStepsThatNeverOpen() throws Exception {
        open(0);
        h.processElement(certain(1, 5, 0, 0, 3), 0);
        h.setProcessingTime(600);
        assertThat(reasons()).isEmpty();
        h.setProcessingTime(1000);
        assertThat(reasons()).containsExactly(Rejected.UNKNOWN_STEP);
        assertThat(h.numProcessingTimeTimers()).isZero();
    }

    @Test
    void shouldForgetAStepOnceItsSequenceMovesOn() throws Exception {
        open(0);
        h.processBroadcastElement(step(0, 0, 0), 0);
        h.processBroadcastElement(step(0, 1, 0), 0);
        Map<String, GenerationStep> open = new java.util.HashMap<>();
        h.getBroadcastState(VoteOperator.OPEN_STEPS)
                .entries()
                .forEach(e -> open.put(e.getKey(), e.getValue()));
        assertThat(open).containsOnlyKeys(StepId.keyOf(step(0, 1, 0)));
        h.processElement(certain(1, 0, 0, 0, 3), 0); // late answer for the superseded step
        assertThat(reasons()).as("dead-lettered at once").containsExactly(Rejected.LATE_VOTE);
        assertThat(h.numProcessingTimeTimers()).as("never pends").isZero();
        h.setProcessingTime(1000);
        assertThat(reasons()).containsExactly(Rejected.LATE_VOTE);
        assertThat(h.extractOutputValues()).isEmpty();
    }

    @Test
    void shouldDeadLetterAnAnswerForAnEarlierAttemptAsLate_andKeepAnEarlyAnswerPending()
            throws Exception {
        open(0);
        h.processBroadcastElement(step(0, 2, 1), 0);
        h.processElement(certain(1, 0, 2, 0, 3), 0); // attempt 0 was replaced by attempt 1
        h.processElement(certain(2, 0, 3, 0, 3), 0); // the next position: not issued yet
        h.processElement(certain(0, 1, 0, 0, 3), 0); // another sequence: not issued yet
        assertThat(reasons()).containsExactly(Rejected.LATE_VOTE);
        h.processBroadcastElement(step(0, 3, 0), 50);
        h.processBroadcastElement(step(1, 0, 0), 50);
        h.setProcessingTime(200);
        assertThat(h.extractOutputValues()).hasSize(2);
        assertThat(reasons()).containsExactly(Rejected.LATE_VOTE);
    }

    /** Teacher {@code teacher}'s vote {@code token}, made at the source, as the input. */
    private static VoteOperator.Input certain(
            long teacher, long seq, int step, int attempt, int token) {
        return VoteOperator.Input.of(
                org.hotpate.stream.Fixtures.vote(teacher, seq, step, attempt, token));
    }
}
