package org.hotpate.core.mechanism;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.hotpate.core.accounting.IndividualPlan;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.privacy.PrivacyEvent;
import org.junit.jupiter.api.Test;

/** The one registry of mechanism names: lookups, refusals, and every entry built from its table. */
class MechanismRegistryTest {
    private static final int V = 1000;
    private static final int N = 100;

    /**
     * A valid parameter set per registered name (a new mechanism must add one here, which the
     * completeness assertion below demands).
     */
    private static final Map<String, Map<String, Double>> SAMPLES = new LinkedHashMap<>();

    static {
        SAMPLES.put("auto", Map.of());
        SAMPLES.put("targmax", Map.of("threshold", 5.0));
        SAMPLES.put("tws", Map.of("threshold", 5.0, "seed", 3.0));
        SAMPLES.put("lnmax", Map.of("scale", 10.0));
        SAMPLES.put("gnmax", Map.of("sigma", 40.0));
        SAMPLES.put("confident-gnmax", Map.of("sigma1", 20.0, "sigma2", 40.0, "threshold", 60.0));
        SAMPLES.put(
                "checked-gnmax",
                Map.of(
                        "sigma1", 20.0,
                        "sigma2", 15.0,
                        "threshold", 60.0,
                        "sigma3", 15.0,
                        "check-threshold", 60.0));
        SAMPLES.put("hot-pate", Map.of("sigma1", 20.0, "sigma2", 20.0));
        SAMPLES.put("hot-pate-heterogeneous", Map.of("epsilon", 1.0, "delta", 1e-6));
        SAMPLES.put("scheme-b", Map.of("sigma", 8.0, "threshold", 30.0, "sample-rate", 0.5));
        SAMPLES.put(
                "scheme-a",
                Map.of("epsilon", 0.5, "lower", 10.0, "upper", 20.0, "sample-rate", 1.0));
    }

    @Test
    void everyNameIsRegisteredOnceInOneOrder() {
        assertThat(MechanismRegistry.names())
                .containsExactly(
                        "auto",
                        "targmax",
                        "tws",
                        "lnmax",
                        "gnmax",
                        "confident-gnmax",
                        "checked-gnmax",
                        "hot-pate",
                        "hot-pate-heterogeneous",
                        "scheme-b",
                        "scheme-a");
        assertThat(MechanismRegistry.names()).containsExactlyElementsOf(SAMPLES.keySet());
        assertThat(MechanismRegistry.names(MechanismRegistry.Kind.AUTO)).containsExactly("auto");
        assertThat(MechanismRegistry.names(MechanismRegistry.Kind.PER_TEACHER))
                .containsExactly("scheme-b", "scheme-a");
        assertThat(MechanismRegistry.names(MechanismRegistry.Kind.ENSEMBLE))
                .containsExactlyElementsOf(Mechanisms.names());
    }

    @Test
    void lookupsGiveKindParametersAndPrivacy() {
        MechanismRegistry.Entry g = MechanismRegistry.get("confident-gnmax");
        assertThat(g.kind()).isEqualTo(MechanismRegistry.Kind.ENSEMBLE);
        assertThat(g.parameters()).containsExactly("sigma1", "sigma2", "threshold");
        assertThat(g.differentiallyPrivate()).isTrue();
        assertThat(MechanismRegistry.get("targmax").differentiallyPrivate()).isFalse();
        assertThat(MechanismRegistry.get("tws").differentiallyPrivate()).isFalse();
        assertThat(MechanismRegistry.get("hot-pate").required()).isEmpty();
        assertThat(MechanismRegistry.get("scheme-a").kind())
                .isEqualTo(MechanismRegistry.Kind.PER_TEACHER);
        assertThat(MechanismRegistry.is("scheme-b", MechanismRegistry.Kind.PER_TEACHER)).isTrue();
        assertThat(MechanismRegistry.is("gnmax", MechanismRegistry.Kind.PER_TEACHER)).isFalse();
        assertThat(MechanismRegistry.is("nope", MechanismRegistry.Kind.ENSEMBLE)).isFalse();
        assertThat(MechanismRegistry.find("nope")).isEmpty();
        assertThat(MechanismRegistry.find(null)).isEmpty();
        assertThat(MechanismRegistry.get("auto").kind()).isEqualTo(MechanismRegistry.Kind.AUTO);
        // the classes' names are the registry's
        assertThat(GnmaxMechanism.NAME).isEqualTo(MechanismRegistry.GNMAX);
        assertThat(AutoPlanner.NAME).isEqualTo(MechanismRegistry.AUTO);
        assertThat(org.hotpate.core.accounting.SchemeAStep.NAME)
                .isEqualTo(MechanismRegistry.SCHEME_A);
    }

    @Test
    void anUnknownNameIsRefusedListingEveryName() {
        assertThatThrownBy(() -> MechanismRegistry.get("gnmaxx"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "unknown mechanism 'gnmaxx'; known: auto, targmax, tws, lnmax, gnmax,"
                                + " confident-gnmax, checked-gnmax, hot-pate,"
                                + " hot-pate-heterogeneous, scheme-b, scheme-a");
        assertThatThrownBy(() -> MechanismRegistry.validate("scheme-c", Map.of()))
                .hasMessageContaining("auto")
                .hasMessageContaining("scheme-a")
                .hasMessageContaining("scheme-b");
    }

    @Test
    void anUnknownOrMissingParameterIsRefusedListingTheMechanismsParameters() {
        assertThatThrownBy(() -> MechanismRegistry.validate("gnmax", Map.of("sigmaa", 3.0)))
                .hasMessage("unknown parameter 'sigmaa' for mechanism gnmax; accepted: sigma");
        assertThatThrownBy(
                        () -> MechanismRegistry.validate("confident-gnmax", Map.of("sigma1", 3.0)))
                .hasMessageContaining("needs parameter 'sigma2'")
                .hasMessageContaining("accepted: sigma1, sigma2, threshold");
        assertThatThrownBy(
                        () ->
                                MechanismRegistry.validate(
                                        "scheme-a",
                                        Map.of(
                                                "epsilon",
                                                1.0,
                                                "threshold",
                                                3.0,
                                                "lower",
                                                1.0,
                                                "upper",
                                                2.0,
                                                "sample-rate",
                                                1.0)))
                .hasMessageContaining("lower and upper, not threshold");
        assertThatThrownBy(() -> MechanismRegistry.validate("auto", Map.of("sigma", 1.0)))
                .hasMessageContaining("leave mechanism.params out");
        assertThatThrownBy(
                        () ->
                                MechanismRegistry.get("scheme-b")
                                        .create(
                                                SAMPLES.get("scheme-b"),
                                                V,
                                                N,
                                                NoiseSources.secure()))
                .hasMessageContaining("not an ensemble mechanism");
        assertThatThrownBy(() -> MechanismRegistry.get("gnmax").plan(Map.of("sigma", 1.0), 1, 1e-6))
                .hasMessageContaining("not a per-teacher scheme");
    }

    @Test
    void everyRegisteredMechanismIsConstructibleFromItsTable() {
        for (MechanismRegistry.Entry e : MechanismRegistry.entries()) {
            Map<String, Double> p = SAMPLES.get(e.name());
            assertThat(p).as(e.name() + " has a sample").isNotNull();
            assertThat(e.parameters()).as(e.name()).containsAll(p.keySet());
            assertThat(e.parameters()).as(e.name()).containsAll(e.required());
            MechanismRegistry.validate(e.name(), p);
            switch (e.kind()) {
                case ENSEMBLE -> {
                    AggregationMechanism m = e.create(p, V, N, NoiseSources.secure());
                    assertThat(m.name()).isEqualTo(e.name());
                    assertThat(m.worstCaseEvent()).isNotNull();
                    // read from the parameters alone, with a source that refuses every draw
                    assertThat(e.worstCase(p, V, N)).isEqualTo(m.worstCaseEvent());
                }
                case PER_TEACHER -> {
                    IndividualPlan plan = e.plan(p, 2.0, 1e-6);
                    assertThat(plan.scheme()).isEqualTo(e.name());
                    assertThat(plan.limit()).isNotNegative();
                    assertThat(e.stepEvent(p)).isNotNull();
                    assertThat(e.worstCase(p, V, N)).isEqualTo(e.stepEvent(p));
                }
                case AUTO -> assertThat(e.parameters()).isEmpty();
            }
        }
    }

    /**
     * What the privacy planner and the tuner ask of each name (issue 40: no caller switches on a
     * name, so an entry that lost its hook would silently drop out of {@code ./hotpate privacy} and
     * the evaluation): exactly these names carry each hook, and each hook computes its mechanism's
     * own events.
     */
    @Test
    void theAnalysisHooksAreCarriedByExactlyTheirMechanisms() {
        assertThat(MechanismRegistry.stepRdpNames()).containsExactly("lnmax", "gnmax", "threshold");
        assertThat(MechanismRegistry.answeredStepNames())
                .containsExactly("lnmax", "gnmax", "confident-gnmax", "hot-pate", "gaussian");
        assertThat(MechanismRegistry.tunedNames())
                .containsExactly("lnmax", "gnmax", "confident-gnmax", "hot-pate");
        assertThat(MechanismRegistry.perTeacherLetters()).containsExactly("a", "b");
        assertThat(MechanismRegistry.perTeacherByLetter("B").orElseThrow().name())
                .isEqualTo("scheme-b");
        assertThat(MechanismRegistry.perTeacherByLetter("a").orElseThrow().name())
                .isEqualTo("scheme-a");
        assertThat(MechanismRegistry.perTeacherByLetter("c")).isEmpty();
        // the blocks are priced, never spec names
        assertThat(MechanismRegistry.find("gaussian")).isEmpty();
        assertThat(MechanismRegistry.find("threshold")).isEmpty();
        assertThat(MechanismRegistry.analysis("bogus")).isEqualTo(PrivacyAnalysis.NONE);
    }

    @Test
    void eachAnsweredStepCostsItsMechanismsOwnEvents() {
        Map<String, Double> values =
                Map.of(
                        "sigma", 40.0,
                        "scale", 12.0,
                        "sigma1", 20.0,
                        "sigma2", 30.0,
                        "answered-fraction", 0.25,
                        "sensitivity", 2.0);
        PrivacyAnalysis.Inputs in = inputs(values);
        assertThat(cost("gnmax", in).shares())
                .containsExactly(new PrivacyAnalysis.Share(new PrivacyEvent.Gnmax(40), 1));
        assertThat(cost("lnmax", in).shares())
                .containsExactly(new PrivacyAnalysis.Share(new PrivacyEvent.Lnmax(12), 1));
        assertThat(cost("gaussian", in).shares())
                .containsExactly(new PrivacyAnalysis.Share(new PrivacyEvent.Gaussian(40, 2), 1));
        for (String thresholded : new String[] {"confident-gnmax", "hot-pate"}) {
            PrivacyAnalysis.Cost c = cost(thresholded, in);
            assertThat(c.shares())
                    .containsExactly(
                            new PrivacyAnalysis.Share(
                                    new PrivacyEvent.ConfidentGnmax(20, 0, 30, false), 0.25),
                            new PrivacyAnalysis.Share(new PrivacyEvent.Gnmax(30), 1));
            assertThat(c.assumptions()).containsEntry("answered_fraction", 0.25);
        }
        // the tuner's parameters are the factory's: each tuned setting builds the mechanism
        for (String name : MechanismRegistry.tunedNames()) {
            PrivacyAnalysis.Tuning t = MechanismRegistry.analysis(name).tuning();
            Map<String, Double> p =
                    t instanceof PrivacyAnalysis.NoisyArgmax n
                            ? Map.of(n.parameter(), 30.0)
                            : ((PrivacyAnalysis.ThresholdedArgmax) t).params().of(20, 60, 30);
            AggregationMechanism m =
                    MechanismRegistry.get(name).create(p, V, N, NoiseSources.noDraws());
            assertThat(m).as(name).isNotNull();
            if (t instanceof PrivacyAnalysis.NoisyArgmax n) {
                assertThat(m.worstCaseEvent()).as(name).isEqualTo(n.event().apply(30));
            }
        }
    }

    private static PrivacyAnalysis.Cost cost(String name, PrivacyAnalysis.Inputs in) {
        return MechanismRegistry.answeredStep(name).orElseThrow().costOf(in);
    }

    private static PrivacyAnalysis.Inputs inputs(Map<String, Double> values) {
        return new PrivacyAnalysis.Inputs() {
            @Override
            public boolean has(String key) {
                return values.containsKey(key);
            }

            @Override
            public double value(String key) {
                return values.get(key);
            }

            @Override
            public double value(String key, double dflt) {
                return values.getOrDefault(key, dflt);
            }

            @Override
            public double positive(String key) {
                return values.get(key);
            }

            @Override
            public double unitFraction(String key, double dflt) {
                return values.getOrDefault(key, dflt);
            }

            @Override
            public RuntimeException invalid(String message) {
                return new IllegalArgumentException(message);
            }
        };
    }
}
