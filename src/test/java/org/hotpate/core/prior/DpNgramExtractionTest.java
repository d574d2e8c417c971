package org.hotpate.core.prior;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.hotpate.core.noise.DiscreteGaussian;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.prior.DpNgramExtraction.Gram;
import org.hotpate.core.privacy.OrderGrid;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;
import org.junit.jupiter.api.Test;

class DpNgramExtractionTest {
    private static final int EOT = 0;

    @Test
    void create_sigmaBelowTheMinimum_throws() {
        assertThatThrownBy(() -> new DpNgramExtraction(3, 8, 3.9, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prior sigma must be >= 4.0");
    }

    @Test
    void create_badLengthOrBound_throws() {
        assertThatThrownBy(() -> new DpNgramExtraction(0, 8, 10, 10))
                .hasMessageContaining("max length");
        assertThatThrownBy(() -> new DpNgramExtraction(3, 0, 10, 10))
                .hasMessageContaining("per-user");
        assertThatThrownBy(() -> new DpNgramExtraction(3, 8, 10, 0))
                .hasMessageContaining("threshold");
    }

    @Test
    void plan_spendsTheShareAtTheOrderAndKeepsTheDeltaTermInItsShare() {
        double order = 12;
        double share = 0.6;
        DpNgramExtraction x = DpNgramExtraction.plan(3, 16, order, share, 4.0, 5e-8);
        OrderGrid grid = OrderGrid.dpAccountingDefault();
        PrivacyEvent e = x.event(4.0);
        double[] rdp = RdpAccountant.rdpOf(e, grid);
        int i = indexOf(grid, order);
        // 3 levels of αΔ²/(2σ²) with Δ² = 2k
        assertThat(rdp[i]).isCloseTo(share, org.assertj.core.data.Offset.offset(1e-9));
        double delta = RdpAccountant.deltaOf(e);
        assertThat(delta).isLessThanOrEqualTo(5e-8).isGreaterThan(0);
        // ρ is the smallest threshold that does: one less would not
        DpNgramExtraction lower = new DpNgramExtraction(3, 16, x.sigma(), x.threshold() - 1);
        assertThat((1 + Math.exp(4.0)) * lower.thresholdSlack()).isGreaterThan(5e-8);
    }

    /**
     * The coupling step of the guarantee, checked by exact computation on the case it is tight for:
     * one key that only u has (count 1 in D′, absent in D). M(D) never releases it; M(D′) does with
     * p = Pr[1 + Z ≥ ρ]. The statement says p ≤ δ_G(ε) + (1 + e^ε)·Pr[Z ≥ ρ], δ_G the hockey-stick
     * divergence of N_ℤ(1, σ²) against N_ℤ(0, σ²) at ε — for every ε on a grid.
     */
    @Test
    void couplingBound_holdsExactlyForAKeyOnlyOneUserHas() {
        for (double sigma : new double[] {4, 6, 10, 25}) {
            for (long rho : new long[] {2, 5, 10, 20, 40}) {
                double s2 = sigma * sigma;
                double p = DpNgramExtraction.upperTail(sigma, rho - 1);
                double eta = DpNgramExtraction.upperTail(sigma, rho);
                for (double eps = 0; eps <= 6; eps += 0.25) {
                    double hockey = 0;
                    for (long z = -(long) (40 * sigma); z <= (long) (40 * sigma); z++) {
                        double a = DiscreteGaussian.pmf(s2, z - 1);
                        double b = DiscreteGaussian.pmf(s2, z);
                        hockey += Math.max(0, a - Math.exp(eps) * b);
                    }
                    assertThat(p)
                            .as("sigma %s rho %s eps %s", sigma, rho, eps)
                            .isLessThanOrEqualTo(hockey + (1 + Math.exp(eps)) * eta + 1e-15);
                }
            }
        }
    }

    @Test
    void extract_releasesWhatManyUsersShareAndNotWhatOneUserHas() {
        List<List<int[]>> users = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            users.add(List.of(new int[] {5, 6, 7}));
        }
        users.add(List.of(new int[] {5, 6, 99}));
        DpNgramExtraction x = new DpNgramExtraction(3, 16, 4, 30);
        var r = x.extract(users, EOT, NoiseSources.seededInsecureForTestsOnly(1));
        Map<Gram, Long> tri = r.levels().get(2);
        assertThat(tri).containsKey(new Gram(new int[] {5, 6, 7}));
        assertThat(tri).containsKey(new Gram(new int[] {-1, -1, 5}));
        assertThat(tri).doesNotContainKey(new Gram(new int[] {5, 6, 99}));
        assertThat(r.levels().get(0)).doesNotContainKey(new Gram(new int[] {99}));
        // counts are users (one each), noisy
        assertThat(tri.get(new Gram(new int[] {5, 6, 7}))).isBetween(260L, 340L);
    }

    @Test
    void extract_extendsOnlyReleasedPrefixes() {
        List<List<int[]>> users = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            // 8 is rare as a unigram ... but the bigram (8, 9) can only be kept if (8) was released
            users.add(List.of(new int[] {i < 5 ? 8 : 5, 9}));
        }
        DpNgramExtraction x = new DpNgramExtraction(2, 16, 4, 30);
        var r = x.extract(users, EOT, NoiseSources.seededInsecureForTestsOnly(2));
        assertThat(r.levels().get(0)).doesNotContainKey(new Gram(new int[] {8}));
        assertThat(r.levels().get(1)).doesNotContainKey(new Gram(new int[] {8, 9}));
        assertThat(r.levels().get(1)).containsKey(new Gram(new int[] {5, 9}));
    }

    @Test
    void extract_countsAUserOncePerNgramAndAtMostKPerLevel() {
        // 100 users, each repeating one record 20 times: 5 distinct unigrams (4 tokens and the
        // end), k = 2 kept per user -> the counts sum to 200 (plus noise), not 500 or 10,000
        List<List<int[]>> users = new ArrayList<>();
        for (int u = 0; u < 100; u++) {
            List<int[]> same = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                same.add(new int[] {40, 41, 42, 43});
            }
            users.add(same);
        }
        DpNgramExtraction x = new DpNgramExtraction(1, 2, 4, 1);
        var r = x.extract(users, EOT, NoiseSources.seededInsecureForTestsOnly(3));
        long sum = r.levels().get(0).values().stream().mapToLong(Long::longValue).sum();
        assertThat(r.levels().get(0)).hasSize(5);
        assertThat(sum).isBetween(200L - 5 * 20, 200L + 5 * 20); // 5 keys, |noise| < 5σ each
    }

    private static int indexOf(OrderGrid g, double order) {
        for (int i = 0; i < g.size(); i++) {
            if (g.order(i) == order) {
                return i;
            }
        }
        throw new AssertionError("order " + order + " not on the grid");
    }
}
