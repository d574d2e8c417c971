package org.hotpate.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.hotpate.core.mechanism.Mechanisms;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.privacy.Conversion;
import org.hotpate.core.privacy.OrderGrid;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;
import org.hotpate.teachers.PlanetZEnsemble;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PrivacyEfficiencyTest {
    static DrawSet hot;
    static DrawSet cold;
    static final PrivacyBudget BUDGET = new PrivacyBudget(1.0, 1e-6);
    // Seeded DP noise through the mechanisms' test seam: deterministic test, never production.
    static final PrivacyEfficiency.MechanismProvider SEEDED =
            (name, params, v, n) ->
                    Mechanisms.create(
                            name, params, v, n, NoiseSources.seededInsecureForTestsOnly(17));

    @BeforeAll
    static void draw() throws Exception {
        PlanetZEnsemble pz = PlanetZEnsemble.create(1, 20, 1000);
        EvalEnsemble e =
                EvalEnsemble.indexed("planet-z", Map.of(), pz.teachers(), pz.vocabularySize());
        VoteSimulator sim = new VoteSimulator(e);
        hot = sim.draw("coordinated", 1, 60, 2, Progress.NONE);
        cold = sim.draw("independent", 1, 60, 2, Progress.NONE);
    }

    @Test
    void affordableSteps_isTheLargestCountThatFitsTheBudget() {
        PrivacyEfficiency pe = new PrivacyEfficiency(BUDGET, 1_000_000, 1050, SEEDED, 1, 2000, 0.9);
        OrderGrid grid = OrderGrid.dpAccountingDefault();
        PrivacyEvent e = new PrivacyEvent.Gnmax(100);
        double[] curve = RdpAccountant.rdpOf(e, grid);
        long k = pe.affordableSteps(new double[][] {curve}, new double[] {1});
        assertThat(k).isPositive();
        assertThat(epsilonAfter(e, (int) k)).isLessThanOrEqualTo(1.0);
        assertThat(epsilonAfter(e, (int) k + 1)).isGreaterThan(1.0);
    }

    private static double epsilonAfter(PrivacyEvent e, int k) {
        RdpAccountant a = new RdpAccountant(OrderGrid.dpAccountingDefault());
        a.compose(e, k);
        return a.epsilon(1e-6, Conversion.IMPROVED).epsilon();
    }

    /**
     * GNMax is charged data-independently and stays within ε. Hot PATE must yield far more useful
     * tokens than cold PATE at the 90% precision floor: at n = 1000 the coordinated plurality is
     * typically hundreds of votes ahead, while the independent plurality leads by ~10–20 votes, so
     * cold PATE needs σ of a few votes and cannot afford even one step at ε = 1 (measured: 20 vs
     * 0). We require hot ≥ 5·max(1, cold) (seeded noise and tuning: deterministic).
     */
    @Test
    void gnmax_staysWithinBudget_andHotYieldsManyMoreTokens() {
        PrivacyEfficiency pe = new PrivacyEfficiency(BUDGET, 1_000_000, 1050, SEEDED, 1, 2000, 0.9);
        PrivacyEfficiency.Result r = pe.evaluate("gnmax", hot, cold, Progress.NONE);
        for (PrivacyEfficiency.Run run :
                new PrivacyEfficiency.Run[] {r.coordinated(), r.independent()}) {
            assertThat(run.spentEpsilon()).isLessThanOrEqualTo(1.0);
            assertThat(run.answered()).isEqualTo(run.steps()); // GNMax never returns FAIL
            assertThat(run.tokens()).isLessThanOrEqualTo(run.answered());
            assertThat(run.capped()).isFalse();
            assertThat(run.precision()).isBetween(0.0, 1.0);
        }
        assertThat(r.coordinated().tokens())
                .isGreaterThanOrEqualTo(5 * Math.max(1, r.independent().tokens()));
        assertThat(r.coordinated().distinctTokens())
                .isGreaterThan(r.independent().distinctTokens());
    }

    @Test
    void confidentGnmax_chargesRealizedOutcomes_withinBudget() {
        PrivacyEfficiency pe = new PrivacyEfficiency(BUDGET, 1_000_000, 1050, SEEDED, 1, 2000, 0.9);
        PrivacyEfficiency.Result r = pe.evaluate("confident-gnmax", hot, cold, Progress.NONE);
        assertThat(r.coordinated().spentEpsilon()).isLessThanOrEqualTo(1.0);
        assertThat(r.coordinated().answered()).isLessThanOrEqualTo(r.coordinated().steps());
        assertThat(r.coordinated().threshold()).isNotNull();
        assertThat(r.coordinated().tokens()).isGreaterThan(r.independent().tokens());
    }

    @Test
    void maxSteps_capsTheRun() {
        PrivacyEfficiency pe = new PrivacyEfficiency(BUDGET, 10, 1050, SEEDED, 1, 2000, 0.0);
        PrivacyEfficiency.Result r = pe.evaluate("gnmax", hot, cold, Progress.NONE);
        assertThat(r.coordinated().steps()).isEqualTo(10);
        assertThat(r.coordinated().capped()).isTrue();
    }

    /**
     * The tuning shortcut (one inverse-CDF draw for the largest noise of each group of equal
     * counts) must estimate the same probability as noising every token: counts (5, 3, 3, 0, 0, 0)
     * with σ = 2, 20000 trials each; the two estimates differ by less than 4·√(2p(1−p)/20000)
     * (false failure ≈ 6e-5).
     */
    @Test
    void groupedNoisyArgmax_matchesBruteForce() {
        DrawSet d =
                new DrawSet(
                        "coordinated",
                        11,
                        java.util.List.of(new int[] {0, 1, 2}),
                        java.util.List.of(new int[] {5, 3, 3}));
        HistogramPool pool = new HistogramPool(d, 6, 20_000);
        double grouped = pool.pluralityProbability(2.0, false, new java.util.SplittableRandom(1));
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(2);
        int[] counts = {5, 3, 3, 0, 0, 0};
        int hits = 0;
        for (int t = 0; t < 20_000; t++) {
            int best = -1;
            double bestV = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < counts.length; j++) {
                double u1 = 1.0 - rnd.nextDouble();
                double v =
                        counts[j]
                                + 2.0
                                        * Math.sqrt(-2 * Math.log(u1))
                                        * Math.cos(2 * Math.PI * rnd.nextDouble());
                if (v > bestV) {
                    bestV = v;
                    best = j;
                }
            }
            hits += best == 0 ? 1 : 0;
        }
        double brute = hits / 20_000.0;
        assertThat(grouped)
                .isCloseTo(
                        brute,
                        org.assertj.core.api.Assertions.within(
                                4 * Math.sqrt(2 * brute * (1 - brute) / 20_000)));
    }

    @Test
    void unknownMechanism_throws() {
        PrivacyEfficiency pe = new PrivacyEfficiency(BUDGET, 10, 1050, SEEDED, 1, 2000, 0.0);
        assertThatThrownBy(() -> pe.evaluate("exponential", hot, cold, Progress.NONE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mechanism must be one of");
    }

    @Test
    void everyMechanismItEvaluatesHasItsRegistryTuning() {
        assertThat(org.hotpate.core.mechanism.MechanismRegistry.tunedNames())
                .containsExactlyInAnyOrderElementsOf(PrivacyEfficiency.MECHANISMS);
    }
}
