package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.hotpate.model.Distribution;
import org.hotpate.model.PayloadKind;
import org.hotpate.model.Rejected;
import org.hotpate.model.Vote;
import org.junit.jupiter.api.Test;

/** The answer rule, verdict by verdict (validated and voted once, at the source). */
class AnswerRuleTest {
    private static final RunShape SHAPE =
            new RunShape("r", "ens", 42, 10, 1000, 4, 8, 2, EarlyStop.NONE);
    private final Voter voter = new Voter("coordinated");

    private AnswerRule.Verdict judge(Distribution d) {
        return AnswerRule.judge(d, 5, SHAPE, voter);
    }

    private static Distribution sparse(long teacher, long seq, int[] tokens, double[] probs) {
        return new Distribution(
                "r",
                seq,
                0,
                0,
                teacher,
                PayloadKind.SPARSE,
                tokens,
                probs,
                1.0,
                Double.NaN,
                -1,
                0,
                0);
    }

    private static Distribution modelVote(int token, int version) {
        return Distribution.modelVote("r", 0, 0, 0, 1, token, version, 0);
    }

    @Test
    void aCertainTeacherVotesItsToken_andAnEmptyAnswerAbstains() {
        assertThat(judge(sparse(1, 0, new int[] {7}, new double[] {1.0})).vote()).isEqualTo(7);
        AnswerRule.Verdict empty = judge(sparse(1, 0, new int[0], new double[0]));
        assertThat(empty.rejected()).isFalse();
        assertThat(empty.vote()).isEqualTo(Vote.ABSTAIN);
    }

    @Test
    void theVoteIsTheSamplersUnderTheDerivedSeed() {
        double[] p = {0.3, 0.3, 0.3};
        int[] t = {1, 2, 3};
        for (long teacher = 0; teacher < 5; teacher++) {
            Distribution d =
                    new Distribution(
                            "r",
                            2,
                            5,
                            1,
                            teacher,
                            PayloadKind.SPARSE,
                            t,
                            p,
                            1.0,
                            Double.NaN,
                            -1,
                            0,
                            0);
            assertThat(judge(d).vote())
                    .isEqualTo(
                            new Voter("coordinated")
                                    .vote(d.toCore(), SHAPE.seed(2, 5, 1), 10, teacher));
        }
    }

    @Test
    void badAnswersAreRejectedWithTheirReasons() {
        assertThat(judge(sparse(5, 0, new int[] {1}, new double[] {1.0})).reason())
                .isEqualTo(Rejected.UNKNOWN_TEACHER);
        assertThat(judge(sparse(1, 0, new int[] {1}, new double[] {Double.NaN})).reason())
                .isEqualTo(Rejected.INVALID_DISTRIBUTION);
        assertThat(judge(sparse(1, 0, new int[] {1, 2}, new double[] {0.7, 0.6})).reason())
                .isEqualTo(Rejected.INVALID_DISTRIBUTION);
        assertThat(judge(sparse(1, 0, new int[] {10}, new double[] {1.0})).detail())
                .contains("vocabulary size 10");
        assertThat(judge(modelVote(3, RunShape.RANDOMNESS_VERSION + 1)).reason())
                .isEqualTo(Rejected.RANDOMNESS_VERSION);
        assertThat(judge(modelVote(10, RunShape.RANDOMNESS_VERSION)).reason())
                .isEqualTo(Rejected.INVALID_DISTRIBUTION);
        assertThat(judge(modelVote(-1, RunShape.RANDOMNESS_VERSION)).vote())
                .isEqualTo(Vote.ABSTAIN);
        assertThat(judge(modelVote(9, RunShape.RANDOMNESS_VERSION)).vote()).isEqualTo(9);
    }

    /**
     * An answer to a step outside the run is checked for its teacher and payload, never voted: its
     * step cannot open, and voting it would build a step table per forged step.
     */
    @Test
    void anAnswerOutsideTheRunCarriesNoVote() {
        AnswerRule.Verdict outside = judge(sparse(1, 4, new int[] {1}, new double[] {1.0}));
        assertThat(outside.outsideRun()).isTrue();
        assertThat(outside.rejected()).isFalse();
        assertThat(outside.asVote(sparse(1, 4, new int[] {1}, new double[] {1.0})).token())
                .isEqualTo(Vote.ABSTAIN);
        assertThat(judge(sparse(1, 4, new int[] {1}, new double[] {Double.NaN})).reason())
                .isEqualTo(Rejected.INVALID_DISTRIBUTION);
        assertThat(judge(sparse(9, 4, new int[] {1}, new double[] {1.0})).reason())
                .isEqualTo(Rejected.UNKNOWN_TEACHER);
    }
}
