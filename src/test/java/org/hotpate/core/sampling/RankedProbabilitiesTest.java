package org.hotpate.core.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hotpate.core.vote.VoteHistogram.ABSTAIN;

import java.util.SplittableRandom;
import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.junit.jupiter.api.Test;

/**
 * The ranked form votes exactly as the coordinated sampler votes on its source: same token, same
 * abstentions, same tie rule — whatever the shape of the distribution and of the step's table.
 */
class RankedProbabilitiesTest {
    private static final Sampler COORD = Samplers.coordinated();

    /** A heavy-tailed sparse distribution over {@code size} distinct ids in [lo, lo + span). */
    private static SparseProbabilities heavyTailed(
            SplittableRandom rnd, int size, int lo, int span, double mass) {
        int[] tokens = rnd.ints(lo, lo + span).distinct().limit(size).toArray();
        double[] w = new double[size];
        double sum = 0;
        for (int i = 0; i < size; i++) {
            w[i] = Math.exp(2.0 * gaussian(rnd)); // lognormal weights, like Planet-Z's
            sum += w[i];
        }
        for (int i = 0; i < size; i++) {
            w[i] = mass * w[i] / sum;
        }
        return new SparseProbabilities(tokens, w);
    }

    private static double gaussian(SplittableRandom rnd) {
        double u = 1 - rnd.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd.nextDouble());
    }

    private static void assertSameVotes(SparseProbabilities p, StepRandomness r, int keys) {
        RankedProbabilities ranked = RankedProbabilities.of(p);
        assertThat(ranked.size()).isEqualTo(p.size());
        for (int k = 0; k < keys; k++) {
            long key = SeedDerivation.teacherKey(k);
            assertThat(ranked.coordinatedVote(r, key))
                    .as("key %d, step %d", k, r.stepSeed())
                    .isEqualTo(COORD.vote(p, r, key));
        }
    }

    @Test
    void coordinatedVote_equalsTheSamplersVote_onHeavyTailedDistributionsInsideTheTable() {
        SplittableRandom rnd = new SplittableRandom(7);
        int abstentions = 0;
        for (int d = 0; d < 60; d++) {
            double mass = d % 3 == 0 ? 0.9 : 1.0; // some abstain through the residual
            SparseProbabilities p = heavyTailed(rnd, 50 + rnd.nextInt(900), 1_000, 2_000, mass);
            RankedProbabilities ranked = RankedProbabilities.of(p);
            for (long step = 0; step < 40; step++) {
                StepRandomness r = StepRandomness.forStep(step * 7919 + d, 4_096);
                long key = SeedDerivation.teacherKey(d);
                int vote = ranked.coordinatedVote(r, key);
                assertThat(vote).isEqualTo(COORD.vote(p, r, key));
                abstentions += vote == ABSTAIN ? 1 : 0;
            }
        }
        // 20 distributions abstain w.p. 0.1 per step: 800 draws, so ~80 (P[< 40] < 1e-6).
        assertThat(abstentions).isBetween(40, 140);
    }

    @Test
    void coordinatedVote_equalsTheSamplersVote_whenTheIdsLeaveTheTable() {
        SplittableRandom rnd = new SplittableRandom(11);
        for (int d = 0; d < 20; d++) {
            // ids 50..549 against a table of 100 tokens: no bound, every entry read
            SparseProbabilities p = heavyTailed(rnd, 200, 50, 500, 1.0);
            for (long step = 0; step < 10; step++) {
                assertSameVotes(p, StepRandomness.forStep(step, 100), 5);
            }
        }
    }

    @Test
    void ties_goToTheSmallestId_asInTheSampler() {
        double[] u = new double[64];
        java.util.Arrays.fill(u, 1.0); // every token has the same u: equal p means equal score
        StepRandomness r = StepRandomness.fromExponentials(3, u);
        SparseProbabilities p =
                new SparseProbabilities(
                        new int[] {40, 7, 33, 12, 5}, new double[] {0.25, 0.25, 0.1, 0.25, 0.15});
        assertThat(RankedProbabilities.of(p).coordinatedVote(r, 1)).isEqualTo(7);
        assertSameVotes(p, r, 20);
    }

    @Test
    void zeros_andTheEmptyDistribution_voteAsInTheSampler() {
        StepRandomness r = StepRandomness.forStep(5, 1_000);
        assertSameVotes(
                new SparseProbabilities(new int[] {3, 4, 5}, new double[] {0, 0.5, 0}), r, 50);
        assertSameVotes(new SparseProbabilities(new int[] {3, 4}, new double[] {0, 0}), r, 5);
        SparseProbabilities empty = new SparseProbabilities(new int[0], new double[0]);
        assertThat(RankedProbabilities.of(empty).coordinatedVote(r, 9)).isEqualTo(ABSTAIN);
        assertSameVotes(empty, r, 5);
    }

    @Test
    void maxInvExp1_boundsEveryTokenInTheRange_andIsExactOnWholeBlocks() {
        StepRandomness r = StepRandomness.forStep(99, 1_000);
        SplittableRandom rnd = new SplittableRandom(3);
        for (int trial = 0; trial < 500; trial++) {
            int from = rnd.nextInt(1_000);
            int to = from + rnd.nextInt(1_000 - from);
            double bound = r.maxInvExp1(from, to);
            double blocksMax = 0; // the maximum over the 64-token blocks that meet the range
            for (int t = from & ~63; t <= Math.min(999, to | 63); t++) {
                blocksMax = Math.max(blocksMax, r.invExp1(t));
                if (t >= from && t <= to) {
                    assertThat(r.invExp1(t)).isLessThanOrEqualTo(bound);
                }
            }
            assertThat(bound).isEqualTo(blocksMax);
        }
        double max = 0;
        for (int t = 64; t < 192; t++) {
            max = Math.max(max, r.invExp1(t));
        }
        assertThat(r.maxInvExp1(64, 191)).isEqualTo(max);
        assertThat(r.maxInvExp1(900, 1_000)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(r.maxInvExp1(-1, 5)).isEqualTo(Double.POSITIVE_INFINITY);
    }
}
