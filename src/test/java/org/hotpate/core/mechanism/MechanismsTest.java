package org.hotpate.core.mechanism;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The factory: names, parameter lists, and one bad value per test. */
class MechanismsTest {
    private static final int V = 1000;
    private static final int N = 100;

    private static AggregationMechanism create(String name, Map<String, Double> p) {
        return Mechanisms.create(name, p, V, N);
    }

    @Test
    void create_knowsAllNames() {
        assertThat(Mechanisms.names())
                .containsExactly(
                        "targmax",
                        "tws",
                        "lnmax",
                        "gnmax",
                        "confident-gnmax",
                        "checked-gnmax",
                        "hot-pate",
                        "hot-pate-heterogeneous");
        assertThat(create("targmax", Map.of("threshold", 5.0))).isInstanceOf(ThresholdArgmax.class);
        assertThat(create("tws", Map.of("threshold", 5.0, "seed", 3.0)))
                .isInstanceOf(ThresholdWeightedSampling.class);
        assertThat(create("lnmax", Map.of("scale", 10.0))).isInstanceOf(LnmaxMechanism.class);
        assertThat(create("gnmax", Map.of("sigma", 40.0))).isInstanceOf(GnmaxMechanism.class);
        assertThat(
                        create(
                                "confident-gnmax",
                                Map.of("sigma1", 20.0, "sigma2", 40.0, "threshold", 60.0)))
                .isInstanceOf(ConfidentGnmaxMechanism.class);
        assertThat(create("hot-pate", Map.of("sigma", 4.0)))
                .isInstanceOf(HotPateHomogeneousMechanism.class);
        assertThat(create("hot-pate-heterogeneous", Map.of("epsilon", 1.0, "delta", 1e-6)))
                .isInstanceOf(HotPateHeterogeneousMechanism.class);
        for (String name : Mechanisms.names()) {
            assertThat(Mechanisms.parameters(name)).isNotEmpty();
        }
    }

    @Test
    void isDifferentiallyPrivate_isFalseOnlyForTheThresholdReferences() {
        assertThat(Mechanisms.names().stream().filter(n -> !Mechanisms.isDifferentiallyPrivate(n)))
                .containsExactly("targmax", "tws");
    }

    /**
     * Item 5: every mechanism names its data-independent worst case, and no release of it costs
     * more at any order (checked over many releases on histograms near each threshold).
     */
    @Test
    void worstCaseEvent_boundsEveryRelease() {
        Map<String, Map<String, Double>> params =
                Map.of(
                        "lnmax", Map.of("scale", 2.0),
                        "gnmax", Map.of("sigma", 2.0),
                        "confident-gnmax", Map.of("sigma1", 2.0, "sigma2", 2.0, "threshold", 50.0),
                        "hot-pate", Map.of("sigma", 2.0),
                        "hot-pate-heterogeneous", Map.of("epsilon", 1.0, "delta", 1e-3));
        org.hotpate.core.privacy.OrderGrid g = org.hotpate.core.privacy.OrderGrid.pateVectors();
        org.hotpate.core.vote.VoteHistogram h =
                org.hotpate.core.vote.VoteHistogram.ofCounts(N, Map.of(3, 50, 4, 20));
        for (Map.Entry<String, Map<String, Double>> e : params.entrySet()) {
            AggregationMechanism m =
                    Mechanisms.create(
                            e.getKey(),
                            e.getValue(),
                            V,
                            N,
                            org.hotpate.core.noise.NoiseSources.seededInsecureForTestsOnly(5));
            double[] worst = org.hotpate.core.privacy.RdpAccountant.rdpOf(m.worstCaseEvent(), g);
            for (int i = 0; i < 200; i++) {
                double[] real =
                        org.hotpate.core.privacy.RdpAccountant.rdpOf(m.release(h).event(), g);
                for (int k = 0; k < real.length; k++) {
                    assertThat(real[k]).as(e.getKey()).isLessThanOrEqualTo(worst[k]);
                }
            }
        }
        assertThat(
                        create(
                                        "confident-gnmax",
                                        Map.of("sigma1", 20.0, "sigma2", 40.0, "threshold", 6.0))
                                .worstCaseEvent())
                .isEqualTo(
                        new org.hotpate.core.privacy.PrivacyEvent.ConfidentGnmax(20, 6, 40, true));
    }

    /** Item 1 (core part): the references are never private; the message names the spec key. */
    @Test
    void nonPrivateReferences_haveAnInfiniteWorstCase_andAreRefusedUnderAFiniteBudget() {
        for (String name : new String[] {"targmax", "tws"}) {
            assertThat(create(name, Map.of("threshold", 5.0)).worstCaseEvent())
                    .isEqualTo(new org.hotpate.core.privacy.PrivacyEvent.NotPrivate(name));
            assertThatThrownBy(() -> Mechanisms.checkRunnable(name, 2.0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(
                            "mechanism.name '"
                                    + name
                                    + "' is not differentially private; it runs only with"
                                    + " budget.epsilon: .inf");
            Mechanisms.checkRunnable(name, Double.POSITIVE_INFINITY); // no budget: allowed
        }
        Mechanisms.checkRunnable("gnmax", 2.0);
        assertThatThrownBy(() -> Mechanisms.checkRunnable("nope", 2.0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tws_sameSeed_sameReleases() {
        org.hotpate.core.vote.VoteHistogram h =
                org.hotpate.core.vote.VoteHistogram.ofCounts(N, Map.of(1, 30, 2, 30, 3, 30));
        AggregationMechanism a = create("tws", Map.of("threshold", 1.0, "seed", 7.0));
        AggregationMechanism b = create("tws", Map.of("threshold", 1.0, "seed", 7.0));
        StringBuilder sa = new StringBuilder();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 64; i++) {
            sa.append(a.release(h).token().getAsInt());
            sb.append(b.release(h).token().getAsInt());
        }
        assertThat(sa.toString()).isEqualTo(sb.toString());
        assertThat(sa.toString())
                .contains("1", "2", "3"); // missing one has probability < 3·(2/3)^64
    }

    @Test
    void create_namesMatchMechanismName() {
        assertThat(create("hot-pate", Map.of("sigma", 4.0)).name()).isEqualTo("hot-pate");
        assertThat(create("gnmax", Map.of("sigma", 4.0)).name()).isEqualTo("gnmax");
        assertThat(create("hot-pate-heterogeneous", Map.of("epsilon", 1.0, "delta", 1e-6)).name())
                .isEqualTo("hot-pate-heterogeneous");
    }

    @Test
    void hotPate_thresholdIsHalfNPlusL() {
        HotPateHomogeneousMechanism m =
                (HotPateHomogeneousMechanism) create("hot-pate", Map.of("sigma", 40.0));
        // PRIVACY.md §2.2: |V| = 1000, β_fail = 1e-3, σ = 40 → L ≈ 210.3.
        assertThat(m.errorBound()).isCloseTo(40 * Math.sqrt(2 * Math.log(1e6)), within(1e-9));
        assertThat(m.errorBound()).isCloseTo(210.3, within(0.05));
        assertThat(m.threshold()).isCloseTo(N / 2.0 + m.errorBound(), within(1e-9));
        assertThat(m.betaFail()).isEqualTo(1e-3);
    }

    @Test
    void hotPate_errorBoundMatchesLlamaVocabularyExample() {
        // PRIVACY.md §2.2: |V| = 128256, β_fail = 1e-3, σ = 40 → L ≈ 244.4.
        assertThat(HotPateHomogeneousMechanism.errorBound(40, 128256, 1e-3))
                .isCloseTo(244.4, within(0.05));
    }

    @Test
    void hotPate_separateSigmas_useTheLargerForL() {
        HotPateHomogeneousMechanism m =
                (HotPateHomogeneousMechanism)
                        create(
                                "hot-pate",
                                Map.of("sigma1", 10.0, "sigma2", 40.0, "beta_fail", 0.01));
        assertThat(m.errorBound())
                .isCloseTo(HotPateHomogeneousMechanism.errorBound(40, V, 0.01), within(1e-12));
        assertThat(m.sigma1()).isEqualTo(10.0);
        assertThat(m.sigma2()).isEqualTo(40.0);
    }

    @Test
    void heterogeneous_runsPerKeyRecursionAtHalfBudget() {
        HotPateHeterogeneousMechanism m =
                (HotPateHeterogeneousMechanism)
                        create("hot-pate-heterogeneous", Map.of("epsilon", 2.0, "delta", 2e-6));
        assertThat(m.perKey().epsilon()).isEqualTo(1.0);
        assertThat(m.perKey().delta()).isEqualTo(1e-6);
        assertThat(m.perKey().probability(1)).isCloseTo(1e-6, within(1e-18));
        assertThat(m.certainCount()).isEqualTo(28);
    }

    @Test
    void create_unknownName_throws() {
        assertThatThrownBy(() -> create("gnmaxx", Map.of("sigma", 1.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown mechanism 'gnmaxx'")
                .hasMessageContaining("gnmax");
    }

    @Test
    void create_nullName_throws() {
        assertThatThrownBy(() -> create(null, Map.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void create_unknownParameter_throws() {
        assertThatThrownBy(() -> create("gnmax", Map.of("sigma", 1.0, "sigmaa", 2.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown parameter 'sigmaa'")
                .hasMessageContaining("accepted: sigma");
    }

    @Test
    void create_seedForDpMechanism_throws() {
        assertThatThrownBy(() -> create("gnmax", Map.of("sigma", 1.0, "seed", 2.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("seed");
    }

    @Test
    void create_missingParameter_throws() {
        assertThatThrownBy(() -> create("confident-gnmax", Map.of("sigma1", 1.0, "sigma2", 2.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs parameter 'threshold'");
    }

    @Test
    void create_nullValue_throws() {
        Map<String, Double> p = new HashMap<>();
        p.put("sigma", null);
        assertThatThrownBy(() -> create("gnmax", p))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sigma must not be null");
    }

    @Test
    void create_sigmaNaN_throws() {
        assertThatThrownBy(() -> create("gnmax", Map.of("sigma", Double.NaN)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sigma must be > 0 and finite; got NaN");
    }

    @Test
    void create_sigmaNegative_throws() {
        assertThatThrownBy(() -> create("gnmax", Map.of("sigma", -1.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sigma must be > 0");
    }

    @Test
    void create_sigmaInfinite_throws() {
        assertThatThrownBy(() -> create("gnmax", Map.of("sigma", Double.POSITIVE_INFINITY)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void create_scaleZero_throws() {
        assertThatThrownBy(() -> create("lnmax", Map.of("scale", 0.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("scale must be > 0");
    }

    @Test
    void create_sigma1Zero_throws() {
        assertThatThrownBy(
                        () ->
                                create(
                                        "confident-gnmax",
                                        Map.of("sigma1", 0.0, "sigma2", 1.0, "threshold", 3.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sigma1");
    }

    @Test
    void create_thresholdNaN_throws() {
        assertThatThrownBy(
                        () ->
                                create(
                                        "confident-gnmax",
                                        Map.of(
                                                "sigma1",
                                                1.0,
                                                "sigma2",
                                                1.0,
                                                "threshold",
                                                Double.NaN)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("threshold must be finite");
    }

    @Test
    void create_targmaxThresholdInfinite_throws() {
        assertThatThrownBy(() -> create("targmax", Map.of("threshold", Double.NEGATIVE_INFINITY)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("threshold");
    }

    @Test
    void create_twsSeedNotInteger_throws() {
        assertThatThrownBy(() -> create("tws", Map.of("threshold", 1.0, "seed", 1.5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("seed must be an integer");
    }

    @Test
    void create_hotPateBothSigmaForms_throws() {
        assertThatThrownBy(
                        () ->
                                create(
                                        "hot-pate",
                                        Map.of("sigma", 1.0, "sigma1", 1.0, "sigma2", 1.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("either sigma, or both sigma1 and sigma2");
    }

    @Test
    void create_hotPateOnlySigma1_throws() {
        assertThatThrownBy(() -> create("hot-pate", Map.of("sigma1", 1.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("either sigma, or both sigma1 and sigma2");
    }

    @Test
    void create_hotPateNoSigma_throws() {
        assertThatThrownBy(() -> create("hot-pate", Map.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void create_betaFailOne_throws() {
        assertThatThrownBy(() -> create("hot-pate", Map.of("sigma", 1.0, "beta_fail", 1.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("beta_fail must be in (0, 1); got 1.0");
    }

    @Test
    void create_epsilonNaN_throws() {
        assertThatThrownBy(
                        () ->
                                create(
                                        "hot-pate-heterogeneous",
                                        Map.of("epsilon", Double.NaN, "delta", 1e-6)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("epsilon must be > 0 and finite; got NaN");
    }

    @Test
    void create_deltaOne_throws() {
        assertThatThrownBy(
                        () ->
                                create(
                                        "hot-pate-heterogeneous",
                                        Map.of("epsilon", 1.0, "delta", 1.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delta must be in (0, 1)");
    }

    @Test
    void create_deltaZero_throws() {
        assertThatThrownBy(
                        () ->
                                create(
                                        "hot-pate-heterogeneous",
                                        Map.of("epsilon", 1.0, "delta", 0.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delta");
    }

    @Test
    void create_sampleSizeZero_throws() {
        assertThatThrownBy(
                        () ->
                                create(
                                        "hot-pate-heterogeneous",
                                        Map.of("epsilon", 1.0, "delta", 1e-6, "sample_size", 0.0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sample_size");
    }

    @Test
    void create_vocabularyZero_throws() {
        assertThatThrownBy(() -> Mechanisms.create("gnmax", Map.of("sigma", 1.0), 0, N))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("vocabularySize");
    }

    @Test
    void create_teachersZero_throws() {
        assertThatThrownBy(() -> Mechanisms.create("gnmax", Map.of("sigma", 1.0), V, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("teachers");
    }

    @Test
    void create_nullParams_throws() {
        assertThatThrownBy(() -> Mechanisms.create("gnmax", null, V, N))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
