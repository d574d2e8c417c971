package org.hotpate.core.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** PRIVACY.md Appendix A §A.2.3 q values and the §A.6 τ / K tables. */
class ChargePlanningTest {

    @Test
    void qTarget_tableOfA23() {
        double[] ew = {Math.log(2), 1, 2, 3};
        double[] at001 = {0.249, 0.314, 0.430, 0.473};
        double[] at01 = {0.238, 0.300, 0.411, 0.451};
        for (int i = 0; i < ew.length; i++) {
            assertThat(ChargePlanning.qTarget(0.01, ew[i] / 0.01))
                    .isCloseTo(at001[i], within(5e-4));
            assertThat(ChargePlanning.qTarget(0.1, ew[i] / 0.1)).isCloseTo(at01[i], within(5e-4));
        }
        assertThat(ChargePlanning.qTarget(0.1, 1e9))
                .isCloseTo(1 / (1 + Math.exp(0.1)), within(1e-12));
    }

    @Test
    void schemeATau_tableOfA61() {
        double[] ew = {Math.log(2), 1, 2, 3};
        Object[][] rows = {
            {1.0, 1e-6, 0.005, new int[] {257, 339, 487, 542}},
            {1.0, 1e-6, 0.01, new int[] {46, 65, 100, 113}},
            {1.0, 1e-6, 0.02, new int[] {4, 7, 15, 18}},
            {1.0, 1e-8, 0.01, new int[] {27, 40, 65, 75}},
            {2.0, 1e-6, 0.01, new int[] {247, 326, 469, 522}},
            {2.0, 1e-6, 0.02, new int[] {44, 62, 95, 108}},
            {2.0, 1e-6, 0.05, new int[] {0, 2, 6, 7}}
        };
        for (Object[] r : rows) {
            double eT = (double) r[0];
            double dT = (double) r[1];
            double eps = (double) r[2];
            int[] expected = (int[]) r[3];
            for (int i = 0; i < ew.length; i++) {
                assertThat(ChargePlanning.schemeATau(eT, dT, eps, ew[i] / eps))
                        .as("eT=%s dT=%s eps=%s eW=%s", eT, dT, eps, ew[i])
                        .isEqualTo(expected[i]);
            }
        }
    }

    @Test
    void schemeBK_tableOfA62() {
        double[] eps = {0.01, 0.02, 0.05};
        long[] k1 = {698, 174, 27};
        long[] k2 = {2702, 675, 108};
        for (int i = 0; i < eps.length; i++) {
            double sigma = Math.sqrt(2) / eps[i];
            assertThat(ChargePlanning.schemeB(1, 1e-6, sigma).k()).isEqualTo(k1[i]);
            assertThat(ChargePlanning.schemeB(2, 1e-6, sigma).k()).isEqualTo(k2[i]);
        }
    }

    @Test
    void schemeB_optimalOrderBeatsNeighbours() {
        ChargePlanning.SchemeBPlan p = ChargePlanning.schemeB(1, 1e-6, 100);
        double l = Math.log(1e6);
        for (double a = 2; a < 200; a += 0.25) {
            double b = 1 - l / (a - 1);
            if (b > 0) {
                assertThat(ChargePlanning.schemeBK(100, a, b)).isLessThanOrEqualTo(p.k());
            }
        }
        assertThat(p.rdpBudget() + l / (p.order() - 1)).isCloseTo(1, within(1e-12));
    }

    @Test
    void minTrials_isTheSmallestM() {
        double q = 0.3;
        long m = ChargePlanning.minTrials(10, q, 1e-6);
        assertThat(ChargePlanning.binomialCdf(9, m, q)).isLessThanOrEqualTo(1e-6);
        assertThat(ChargePlanning.binomialCdf(9, m - 1, q)).isGreaterThan(1e-6);
    }

    @Test
    void hotPateSanity_tauOneHundred() {
        // §A.2.4: ε = 0.01, εW = 2, target (1, 1e-6) gives τ_max = 100.
        assertThat(ChargePlanning.schemeATau(1, 1e-6, 0.01, 200)).isEqualTo(100);
    }

    /**
     * Under replace-one the pair of worlds holds two users' charges: τ is the largest with m(2τ)
     * within the target (= ⌊τ_add/remove / 2⌋, since ε′(m(t)) grows in t) and K = ⌊K_add/remove /
     * 2⌋ at the same order.
     */
    @Test
    void replaceOne_halvesTheAddRemoveLimits() {
        double[] ew = {Math.log(2), 1, 2, 3};
        for (double eT : new double[] {1, 2, 4}) {
            for (double eps : new double[] {0.01, 0.02, 0.1}) {
                for (double e : ew) {
                    int ar = ChargePlanning.schemeATau(eT, 1e-6, eps, e / eps);
                    int r1 =
                            ChargePlanning.schemeATau(
                                    eT, 1e-6, eps, e / eps, NeighbourRelation.REPLACE_ONE);
                    assertThat(r1).as("eT=%s eps=%s eW=%s", eT, eps, e).isEqualTo(ar / 2);
                    if (r1 > 0) {
                        assertThat(ChargePlanning.schemeAEpsilon(2 * r1, eps, e / eps, 5e-7, 5e-7))
                                .isLessThanOrEqualTo(eT);
                    }
                }
            }
        }
        for (double sigma : new double[] {8, 16, 141.42}) {
            ChargePlanning.SchemeBPlan ar = ChargePlanning.schemeB(1, 1e-6, sigma);
            ChargePlanning.SchemeBPlan r1 =
                    ChargePlanning.schemeB(1, 1e-6, sigma, NeighbourRelation.REPLACE_ONE);
            assertThat(r1.order()).isEqualTo(ar.order());
            assertThat(r1.k()).isEqualTo(ar.k() / 2);
            assertThat(2 * r1.k() * r1.order() / (2 * sigma * sigma))
                    .isLessThanOrEqualTo(r1.rdpBudget());
        }
        assertThat(ChargePlanning.schemeB(1, 1e-6, 141.42, NeighbourRelation.REPLACE_ONE).k())
                .isEqualTo(349);
        assertThat(NeighbourRelation.of("replace-one")).isEqualTo(NeighbourRelation.REPLACE_ONE);
    }
}
