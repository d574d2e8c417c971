package org.hotpate.core.mechanism;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.hotpate.core.noise.DiscreteGaussian;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.testing.DpTestSupport;
import org.hotpate.core.vote.VoteHistogram;
import org.junit.jupiter.api.Test;

/**
 * Checked GNMax on neighbouring histograms. The output — ⊥ at the threshold, ⊥ at the check, or a
 * token — is a post-processing of (max c + Z1, c + Z2, c_j + Z3): between D and D′ the max count
 * moves by 1, two counts by ±1 and the checked count by ≤ 1, so the tested δ(ε) is the exact one of
 * four discrete-Gaussian coordinates with those shifts (a valid upper bound for the adaptive
 * composition). The two kinds of ⊥ are distinct outcomes here (the event tells them apart in the
 * job). Each check's false-failure rate is ≤ 1e-6 (Clopper–Pearson, {@link DpTestSupport}); 200 000
 * runs per histogram.
 */
class CheckedGnmaxDpTest {
    private static final int RUNS = 200_000;
    private static final double ALPHA = 1e-6;
    private static final double EPS = 1;
    private static final double SIGMA = 2;
    private static final double T = 5;
    private static final double TC = 4;
    private static final double DELTA =
            DpTestSupport.discreteGaussianDelta(
                    EPS,
                    new double[] {SIGMA * SIGMA, SIGMA * SIGMA, SIGMA * SIGMA, SIGMA * SIGMA},
                    new int[] {1, 1, -1, 1});

    // The checked token's count differs: only the check can tell them apart when 0 wins.
    private static final VoteHistogram D = VoteHistogram.ofCounts(10, Map.of(0, 5, 1, 3));
    private static final VoteHistogram D_PRIME = VoteHistogram.ofCounts(10, Map.of(0, 4, 1, 4));

    /** ⊥ at the check is outcome −2, ⊥ at the threshold −1, a token its id. */
    private static Map<Integer, Long> outcomes(AggregationMechanism m, VoteHistogram h) {
        Map<Integer, Long> out = new HashMap<>();
        for (int i = 0; i < RUNS; i++) {
            var r = m.release(h);
            int o =
                    r.token().isPresent()
                            ? r.token().getAsInt()
                            : r.event() instanceof PrivacyEvent.Composed ? -2 : -1;
            out.merge(o, 1L, Long::sum);
        }
        return out;
    }

    private static List<DpTestSupport.Violation> run(
            AggregationMechanism a, AggregationMechanism b) {
        return DpTestSupport.violations(
                outcomes(a, D), outcomes(b, D_PRIME), RUNS, EPS, DELTA, ALPHA);
    }

    private static UniformSource seeded(long seed) {
        return NoiseSources.seededInsecureForTestsOnly(seed);
    }

    private static CheckedGnmaxMechanism checked(long seed) {
        return new CheckedGnmaxMechanism(SIGMA, T, SIGMA, SIGMA, TC, 3, 10, seeded(seed));
    }

    @Test
    void checkedGnmax_isDpOnNeighbouringHistograms() {
        assertThat(run(checked(1), checked(2))).isEmpty();
    }

    @Test
    void check_catchesACheckWithoutNoise() {
        assertThat(run(new NoiselessCheck(seeded(3)), new NoiselessCheck(seeded(4)))).isNotEmpty();
    }

    @Test
    void eventsNameTheStepThatEndedTheRelease_andTheWorstCaseCoversThem() {
        CheckedGnmaxMechanism m =
                new CheckedGnmaxMechanism(SIGMA, T, SIGMA, SIGMA, TC, 3, 10, seeded(5));
        var worst = (PrivacyEvent.Composed) m.worstCaseEvent();
        assertThat(worst.events())
                .containsExactly(
                        new PrivacyEvent.ConfidentGnmax(SIGMA, T, SIGMA, true),
                        new PrivacyEvent.DiscreteGaussian(SIGMA, 1));
        boolean sawThreshold = false;
        boolean sawComposed = false;
        for (int i = 0; i < 2000; i++) {
            var r = m.release(D);
            if (r.event() instanceof PrivacyEvent.ConfidentGnmax c) {
                assertThat(c.answered()).isFalse();
                assertThat(r.isFail()).isTrue();
                sawThreshold = true;
            } else {
                assertThat(r.event()).isEqualTo(worst);
                sawComposed = true;
            }
        }
        assertThat(sawThreshold).isTrue();
        assertThat(sawComposed).isTrue();
        assertThat(
                        Mechanisms.create(
                                        CheckedGnmaxMechanism.NAME,
                                        Map.of(
                                                "sigma1",
                                                3.0,
                                                "threshold",
                                                9.0,
                                                "sigma2",
                                                3.0,
                                                "sigma3",
                                                2.0,
                                                "check-threshold",
                                                6.0),
                                        3,
                                        10)
                                .name())
                .isEqualTo(CheckedGnmaxMechanism.NAME);
    }

    /** BROKEN on purpose: Confident-GNMax, then an exact check c_j ≥ T_c. */
    private record NoiselessCheck(UniformSource random) implements AggregationMechanism {
        @Override
        public String name() {
            return "broken-checked-gnmax";
        }

        @Override
        public PrivacyEvent worstCaseEvent() {
            return new PrivacyEvent.NoOp(); // a test double: broken on purpose, never accounted
        }

        @Override
        public org.hotpate.core.mechanism.Release release(VoteHistogram h) {
            var r = new ConfidentGnmaxMechanism(SIGMA, T, SIGMA, 3, 10, random).release(h);
            if (r.isFail()) {
                return r;
            }
            int j = r.token().getAsInt();
            PrivacyEvent e = new PrivacyEvent.Composed(List.of(r.event()));
            long noNoise = 0 * DiscreteGaussian.withSigma(SIGMA).sample(random);
            return h.count(j) + noNoise >= TC
                    ? org.hotpate.core.mechanism.Release.token(j, e)
                    : org.hotpate.core.mechanism.Release.fail(e);
        }
    }
}
