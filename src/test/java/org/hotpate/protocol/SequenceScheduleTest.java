package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.hotpate.core.generation.FailPolicy;
import org.hotpate.core.generation.FinishReason;
import org.junit.jupiter.api.Test;

/** Which sequences start when, which never start, and which have no record yet (issue 25). */
class SequenceScheduleTest {
    @Test
    void successorsFollowTheConcurrencyAndStopAtTheLastSequence() {
        SequenceSchedule s = new SequenceSchedule(7, 3);
        assertThat(s.firstWave()).isEqualTo(3);
        assertThat(s.successor(0, FinishReason.MAX_STEPS)).isEqualTo(3);
        assertThat(s.successor(3, FinishReason.MAX_STEPS)).isEqualTo(6);
        assertThat(s.successor(4, FinishReason.MAX_STEPS)).isEqualTo(-1);
        assertThat(new SequenceSchedule(2, 5).firstWave()).isEqualTo(2);
    }

    @Test
    void onlyAFinishOnTheBudgetLeavesSuccessorsUnstarted() {
        SequenceSchedule s = new SequenceSchedule(8, 3);
        for (FinishReason reason :
                List.of(
                        FinishReason.MAX_STEPS,
                        FinishReason.STOP_TOKEN,
                        FinishReason.FAIL_STOP,
                        FinishReason.NO_QUORUM)) {
            assertThat(SequenceSchedule.startsSuccessor(reason)).as("%s", reason).isTrue();
            assertThat(s.successor(1, reason)).as("%s", reason).isEqualTo(4);
            assertThat(s.neverStarted(1, reason)).as("%s", reason).isEmpty();
        }
        assertThat(s.successor(1, FinishReason.BUDGET_EXHAUSTED)).isEqualTo(-1);
        assertThat(s.neverStarted(1, FinishReason.BUDGET_EXHAUSTED)).containsExactly(4L, 7L);
        assertThat(s.neverStarted(6, FinishReason.BUDGET_EXHAUSTED)).isEmpty();
        assertThat(SequenceSchedule.startsSuccessor(FinishReason.NOT_STARTED)).isFalse();
    }

    /**
     * Whatever sequences finish on the budget, every requested sequence ends in exactly one record:
     * every pattern of refusals on a small schedule, simulated as the sequence loop runs it.
     */
    @Test
    void everyRequestedSequenceIsAccountedForExactlyOnce() {
        SequenceSchedule s = new SequenceSchedule(7, 3);
        for (int refusedMask = 0; refusedMask < (1 << 7); refusedMask++) {
            List<Long> recorded = new ArrayList<>();
            List<Long> started = new ArrayList<>();
            for (long j = 0; j < s.firstWave(); j++) {
                started.add(j);
            }
            for (int i = 0; i < started.size(); i++) {
                long j = started.get(i);
                FinishReason reason =
                        (refusedMask >> j & 1) == 1
                                ? FinishReason.BUDGET_EXHAUSTED
                                : FinishReason.MAX_STEPS;
                recorded.add(j);
                long next = s.successor(j, reason);
                if (next >= 0) {
                    started.add(next);
                }
                recorded.addAll(s.neverStarted(j, reason));
            }
            Set<Long> distinct = new HashSet<>(recorded);
            assertThat(recorded).as("mask %s", refusedMask).hasSize(distinct.size());
            assertThat(s.unaccounted(recorded)).as("mask %s", refusedMask).isEmpty();
        }
    }

    @Test
    void unaccountedListsTheSequencesWithoutARecord() {
        SequenceSchedule s = new SequenceSchedule(5, 2);
        assertThat(s.unaccounted(List.of(0L, 2L, 3L))).containsExactly(1L, 4L);
        assertThat(s.unaccounted(List.of(0L, 1L, 2L, 3L, 4L))).isEmpty();
        assertThat(s.unaccounted(List.of())).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThatThrownBy(() -> new SequenceSchedule(0, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SequenceSchedule(1, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSequencePolicyUsesTheSchedule() {
        SequenceProgress.Policy p =
                new SequenceProgress.Policy(FailPolicy.RESAMPLE, 2, 3, 2, 4, 10);
        assertThat(p.schedule()).isEqualTo(new SequenceSchedule(10, 4));
        assertThat(p.successor(5, FinishReason.MAX_STEPS)).isEqualTo(9);
        assertThat(p.successor(5, FinishReason.BUDGET_EXHAUSTED)).isEqualTo(-1);
    }
}
