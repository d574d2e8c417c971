package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.hotpate.core.generation.FailPolicy;
import org.hotpate.core.generation.FinishReason;
import org.hotpate.core.vote.VoteHistogram;
import org.hotpate.model.Distribution;
import org.hotpate.model.Outcome;
import org.hotpate.model.StepResult;
import org.junit.jupiter.api.Test;

/** generation.min-tokens: votes for a stop token abstain before it; a released stop is a ⊥. */
class EarlyStopTest {
    private static final EarlyStop MIN_2 = new EarlyStop(2, new int[] {9, 3});

    @Test
    void aStopVoteAbstainsOnlyBeforeMinTokens() {
        assertThat(MIN_2.mask(0, 9)).isEqualTo(VoteHistogram.ABSTAIN);
        assertThat(MIN_2.mask(1, 3)).isEqualTo(VoteHistogram.ABSTAIN);
        assertThat(MIN_2.mask(2, 9)).as("from min-tokens on it counts").isEqualTo(9);
        assertThat(MIN_2.mask(0, 4)).as("other tokens always count").isEqualTo(4);
        assertThat(MIN_2.mask(0, VoteHistogram.ABSTAIN)).isEqualTo(VoteHistogram.ABSTAIN);
        assertThat(EarlyStop.NONE.mask(0, 9)).isEqualTo(9);
        assertThat(MIN_2.stopTokens()).containsExactly(3, 9);
        assertThatThrownBy(() -> new EarlyStop(-1, new int[0]))
                .hasMessageContaining("generation.min-tokens");
    }

    @Test
    void theAnswerRuleMasksStopVotesBeforeMinTokens_forDistributionsAndModelVotes() {
        RunShape shape = new RunShape("r", "ens", 42, 10, 1000, 4, 8, 2, MIN_2);
        Voter voter = new Voter("coordinated");
        Distribution certainStop =
                new Distribution(
                        "r",
                        0,
                        0,
                        0,
                        1,
                        org.hotpate.model.PayloadKind.SPARSE,
                        new int[] {9},
                        new double[] {1.0},
                        1.0,
                        Double.NaN,
                        -1,
                        0,
                        0);
        assertThat(AnswerRule.judge(certainStop, 5, shape, voter).vote())
                .isEqualTo(VoteHistogram.ABSTAIN);
        assertThat(
                        AnswerRule.judge(
                                        Distribution.modelVote(
                                                "r", 0, 0, 0, 1, 9, RunShape.RANDOMNESS_VERSION, 0),
                                        5,
                                        shape,
                                        voter)
                                .vote())
                .isEqualTo(VoteHistogram.ABSTAIN);
        Distribution later =
                Distribution.modelVote("r", 0, 2, 0, 1, 9, RunShape.RANDOMNESS_VERSION, 0);
        assertThat(AnswerRule.judge(later, 5, shape, voter).vote()).isEqualTo(9);
    }

    private static StepResult token(int step, int attempt, int token) {
        return new StepResult("r", 0, step, attempt, Outcome.TOKEN, token, "m", "", 0.1, 0, 3);
    }

    @Test
    void aReleasedStopBeforeMinTokensIsAFail_thenTheSequenceGoesOn() {
        SequenceProgress.StopRule stopAt9 = t -> t[t.length - 1] == 9;
        SequenceProgress.Policy min1 =
                new SequenceProgress.Policy(FailPolicy.RESAMPLE, 3, 5, 2, 4, 10, 1, 3);
        SequenceProgress.Next n =
                SequenceProgress.start().onResult(token(0, 0, 9), min1, 0, stopAt9, f -> 7);
        assertThat(n.action()).isEqualTo(SequenceProgress.Action.ISSUE);
        assertThat(n.progress().tokens()).isEmpty();
        assertThat(n.progress().attempt()).as("the position is resampled").isEqualTo(1);
        assertThat(n.progress().fails()).isEqualTo(1);
        n = n.progress().onResult(token(0, 1, 4), min1, 0, stopAt9, f -> 7);
        assertThat(n.progress().tokens()).containsExactly(4);
        n = n.progress().onResult(token(1, 0, 9), min1, 0, stopAt9, f -> 7);
        assertThat(n.reason())
                .as("after min-tokens a stop ends it")
                .isEqualTo(FinishReason.STOP_TOKEN);
        SequenceProgress.Policy off =
                new SequenceProgress.Policy(FailPolicy.RESAMPLE, 3, 5, 2, 4, 10, 0, 3);
        assertThat(
                        SequenceProgress.start()
                                .onResult(token(0, 0, 9), off, 0, stopAt9, f -> 7)
                                .reason())
                .isEqualTo(FinishReason.STOP_TOKEN);
    }
}
