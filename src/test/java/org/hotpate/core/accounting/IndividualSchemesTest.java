package org.hotpate.core.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.privacy.PrivacyEvent;
import org.junit.jupiter.api.Test;

/** Scheme A/B streaming forms: parameters, plans, per-teacher state, decisions, a property. */
class IndividualSchemesTest {
    private static final Map<String, Double> B =
            Map.of("sigma", Math.sqrt(2) / 0.01, "threshold", 30.0, "sample-rate", 0.5);
    private static final Map<String, Double> A =
            Map.of("epsilon", 0.01, "lower", 100.0, "upper", 300.0, "sample-rate", 0.5);

    @Test
    void plans_reproduceTheAppendixATables() {
        IndividualPlan b = MechanismRegistry.perTeacher("scheme-b").plan(B, 1, 1e-6);
        assertThat(b).isInstanceOf(SchemeBStep.Plan.class);
        // PRIVACY.md §A.6.2, σ = √2/0.01, (1, 1e-6): K = 698 under add/remove, half under
        // replace-one (the pair holds the user's and its replacement's charges)
        assertThat(b.limit()).isEqualTo(349);
        assertThat(b.relation()).isEqualTo(NeighbourRelation.REPLACE_ONE);
        assertThat(b.epsilon(b.limit(), 1e-6)).isLessThanOrEqualTo(1).isGreaterThan(0.99);
        assertThat(b.epsilonAddRemove(0, 1e-6)).isZero();
        assertThat(b.epsilon(0, 1e-6)).as("the replacement's share").isPositive();
        assertThat(
                        SchemeBStep.Plan.forTarget(
                                        SchemeBStep.Params.fromSpec(B),
                                        1,
                                        1e-6,
                                        NeighbourRelation.ADD_REMOVE)
                                .limit())
                .isEqualTo(698);
        IndividualPlan a = MechanismRegistry.perTeacher("scheme-a").plan(A, 1, 1e-6);
        assertThat(a.limit()).isEqualTo(50); // §A.6.1, ε = 0.01, εW = 2, (1, 1e-6): τ 100 / 2
        assertThat(a.epsilon(50, 1e-6)).isLessThanOrEqualTo(1);
        assertThat(a.epsilon(51, 1e-6)).isGreaterThan(1);
        assertThat(a.epsilonAddRemove(100, 1e-6)).isLessThanOrEqualTo(1);
        assertThat(a.scheme()).isEqualTo("scheme-a");
    }

    @Test
    void params_validation_oneBadValueEach() {
        assertThatThrownBy(() -> new SchemeBStep.Params(Double.NaN, 30, 0.5))
                .hasMessage("sigma must be > 0 and finite; got NaN");
        assertThatThrownBy(() -> new SchemeBStep.Params(8, Double.POSITIVE_INFINITY, 0.5))
                .hasMessageContaining("threshold must be finite");
        assertThatThrownBy(() -> new SchemeBStep.Params(8, 30, 0))
                .hasMessage("sample-rate must be in (0, 1]; got 0.0");
        assertThatThrownBy(() -> new SchemeBStep.Params(8, 30, 1.5))
                .hasMessage("sample-rate must be in (0, 1]; got 1.5");
        assertThatThrownBy(() -> new SchemeAStep.Params(0.1234567, 1, 5, 0.5))
                .hasMessageContaining("decimals");
        assertThatThrownBy(() -> new SchemeAStep.Params(0.1, 5, 5, 0.5))
                .hasMessage("lower must be < upper; got 5 >= 5");
        assertThatThrownBy(() -> new SchemeAStep.Params(0.1, 1, 5, -1))
                .hasMessageContaining("sample-rate");
    }

    @Test
    void schemeA_noiseScaleIsNeverBelowOneOverTheChargedEpsilon() throws Exception {
        // 0.3, 0.7 and 1e-6 print as decimals above their doubles: 1/decimal would be a hair less
        // noise than the PureDp(ε) charged for the double.
        for (double eps : new double[] {0.3, 0.7, 1e-6, 0.1, 0.01, 2}) {
            SchemeAStep step =
                    new SchemeAStep(
                            new SchemeAStep.Plan(
                                    new SchemeAStep.Params(eps, 1, 5, 0.5),
                                    1,
                                    NeighbourRelation.REPLACE_ONE));
            java.lang.reflect.Field f = SchemeAStep.class.getDeclaredField("noise");
            f.setAccessible(true);
            org.hotpate.core.noise.Rational scale =
                    ((org.hotpate.core.noise.DiscreteLaplace) f.get(step)).scale();
            // scale·ε ≥ 1 exactly, with ε the double's binary value
            java.math.BigDecimal product =
                    new java.math.BigDecimal(scale.numerator())
                            .multiply(new java.math.BigDecimal(eps));
            assertThat(product.compareTo(new java.math.BigDecimal(scale.denominator())))
                    .as("scale for epsilon %s", eps)
                    .isNotNegative();
        }
    }

    @Test
    void fromSpec_namesTheMechanismAndTheAcceptedKeys() {
        Map<String, Double> missing = new HashMap<>(B);
        missing.remove("sample-rate");
        assertThatThrownBy(() -> SchemeBStep.Params.fromSpec(missing))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "mechanism scheme-b needs parameter 'sample-rate'; accepted: sigma,"
                                + " threshold, sample-rate");
        Map<String, Double> extra = new HashMap<>(B);
        extra.put("sample_rate", 0.5);
        assertThatThrownBy(() -> SchemeBStep.Params.fromSpec(extra))
                .hasMessageContaining("unknown parameter 'sample_rate' for mechanism scheme-b");
        Map<String, Double> aWithThreshold = new HashMap<>(A);
        aWithThreshold.put("threshold", 3.0);
        assertThatThrownBy(() -> SchemeAStep.Params.fromSpec(aWithThreshold))
                .hasMessageContaining("lower and upper, not threshold");
        Map<String, Double> fractional = new HashMap<>(A);
        fractional.put("lower", 1.5);
        assertThatThrownBy(() -> SchemeAStep.Params.fromSpec(fractional))
                .hasMessage("lower must be an integer; got 1.5");
        assertThatThrownBy(() -> MechanismRegistry.perTeacher("gnmax").plan(B, 1, 1e-6))
                .hasMessageContaining("unknown per-teacher mechanism 'gnmax'");
        assertThat(MechanismRegistry.names(MechanismRegistry.Kind.PER_TEACHER))
                .containsExactlyInAnyOrder("scheme-a", "scheme-b");
        assertThat(MechanismRegistry.perTeacher("scheme-a").parameters())
                .containsExactly("epsilon", "lower", "upper", "sample-rate");
    }

    @Test
    void plan_neverAllowsMoreThanTheBudget() {
        SchemeBStep.Params p = new SchemeBStep.Params(2, 10, 1);
        // K = ⌊2·4·1/2⌋ = 4 under add/remove, 2 under replace-one
        assertThatThrownBy(() -> new SchemeBStep.Plan(p, 2, 1.0, 3))
                .hasMessageContaining("exceeds what the RDP budget allows under replace-one");
        assertThatThrownBy(() -> new SchemeBStep.Plan(p, 2, 1.0, 5, NeighbourRelation.ADD_REMOVE))
                .hasMessageContaining("exceeds what the RDP budget allows under add-remove");
        assertThat(new SchemeBStep.Plan(p, 2, 1.0, 2).chargePerInvolvement()).isEqualTo(0.25);
    }

    @Test
    void teacherCharges_admitChargeRetire() {
        SchemeBStep.Plan plan = new SchemeBStep.Plan(new SchemeBStep.Params(2, 10, 1), 2, 1.0, 2);
        TeacherCharges t = TeacherCharges.NONE;
        assertThat(t.admits(plan)).isTrue();
        t = t.charge(plan).charge(plan);
        assertThat(t).isEqualTo(TeacherCharges.of(2));
        assertThat(t.retired(plan)).isTrue();
        TeacherCharges retired = t;
        assertThatThrownBy(() -> retired.charge(plan))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("retired");
        assertThatThrownBy(() -> new TeacherCharges(-1))
                .isInstanceOf(IllegalArgumentException.class);
        // ε at K under replace-one: (2 + K)·0.25 + ln(1e6)/1; add/remove: 2·0.25 + ln(1e6)/1
        assertThat(t.epsilon(plan, 1e-6)).isEqualTo(1.0 + Math.log(1e6));
        assertThat(plan.epsilonAddRemove(2, 1e-6)).isEqualTo(0.5 + Math.log(1e6));
    }

    @Test
    void involved_needsOwnVoteForV_coinAndRoom() {
        SchemeBStep.Plan plan = new SchemeBStep.Plan(new SchemeBStep.Params(2, 10, 1), 2, 1.0, 1);
        PublicChargingRandomness all = PublicChargingRandomness.forStep(9, 1.0, 4);
        assertThat(IndividualSchemes.involved(4, 3, all, TeacherCharges.NONE, plan)).isTrue();
        assertThat(IndividualSchemes.involved(5, 3, all, TeacherCharges.NONE, plan)).isFalse();
        assertThat(IndividualSchemes.involved(4, 3, all, TeacherCharges.of(1), plan)).isFalse();
        PublicChargingRandomness half = PublicChargingRandomness.forStep(9, 0.5, 4);
        int in = 0;
        for (int t = 0; t < 1000; t++) {
            boolean inv = IndividualSchemes.involved(4, t, half, TeacherCharges.NONE, plan);
            assertThat(inv).isEqualTo(half.included(t));
            in += inv ? 1 : 0;
        }
        assertThat(in).isBetween(430, 570); // Binomial(1000, 0.5): 4.4 sd
    }

    /** Zero-noise logic: |N_ℤ(0, 4)| ≤ 12 and |Lap| ≤ 15 at ε = 1 except w.p. < 1e-6 per draw. */
    @Test
    void decisions_chargeAsEachSchemeSays() {
        SchemeBStep b =
                new SchemeBStep(
                        new SchemeBStep.Plan(new SchemeBStep.Params(2, 40, 1), 2, 1.0, 2),
                        NoiseSources.seededInsecureForTestsOnly(3));
        assertThat(b.decide(80))
                .isEqualTo(new SchemeBStep.Decision(StepOutcome.ABOVE, true, b.event()));
        assertThat(b.decide(5).outcome()).isEqualTo(StepOutcome.BELOW);
        assertThat(b.decide(5).chargeInvolved()).isTrue();
        assertThat(b.event()).isEqualTo(new PrivacyEvent.DiscreteGaussian(2, 1));
        SchemeAStep a =
                new SchemeAStep(
                        new SchemeAStep.Plan(new SchemeAStep.Params(1, 50, 100, 1), 3),
                        NoiseSources.seededInsecureForTestsOnly(4));
        assertThat(a.decide(10).outcome()).isEqualTo(StepOutcome.BELOW);
        assertThat(a.decide(10).chargeInvolved()).isFalse();
        assertThat(a.decide(75).outcome()).isEqualTo(StepOutcome.BETWEEN);
        assertThat(a.decide(75).chargeInvolved()).isTrue();
        assertThat(a.decide(300).outcome()).isEqualTo(StepOutcome.ABOVE);
        assertThat(a.decide(300).chargeInvolved()).isFalse();
        assertThat(a.event()).isEqualTo(new PrivacyEvent.PureDp(1));
    }

    /**
     * Issue 11's randomized test in core form: over many random runs (random votes, rates,
     * proposals, both schemes, random per-teacher targets) no teacher's ε at the target δ ever
     * passes its budget, no teacher passes its limit, and a retired teacher is never involved.
     */
    @Test
    void randomRuns_noTeacherEverPassesItsBudget() {
        Random r = new Random(42);
        for (int trial = 0; trial < 40; trial++) {
            double eps = 0.5 + 2 * r.nextDouble();
            double delta = Math.pow(10, -4 - r.nextInt(5));
            boolean schemeB = r.nextBoolean();
            double rate = 0.2 + 0.8 * r.nextDouble();
            IndividualPlan plan =
                    schemeB
                            ? SchemeBStep.Plan.forTarget(
                                    new SchemeBStep.Params(3 + 10 * r.nextDouble(), 8, rate),
                                    eps,
                                    delta)
                            : SchemeAStep.Plan.forTarget(
                                    new SchemeAStep.Params(0.1, 4, 12, rate), eps, delta);
            SchemeBStep b =
                    schemeB
                            ? new SchemeBStep(
                                    (SchemeBStep.Plan) plan,
                                    NoiseSources.seededInsecureForTestsOnly(trial))
                            : null;
            SchemeAStep a =
                    schemeB
                            ? null
                            : new SchemeAStep(
                                    (SchemeAStep.Plan) plan,
                                    NoiseSources.seededInsecureForTestsOnly(trial));
            int teachers = 30;
            TeacherCharges[] state = new TeacherCharges[teachers];
            Arrays.fill(state, TeacherCharges.NONE);
            for (int step = 0; step < 400; step++) {
                PublicChargingRandomness pr =
                        PublicChargingRandomness.forStep(trial * 1000L + step, rate, r.nextInt(3));
                boolean[] involved = new boolean[teachers];
                int count = 0;
                for (int t = 0; t < teachers; t++) {
                    int vote = r.nextInt(4); // tokens 0..3; the tested token is one of 0..2
                    involved[t] = IndividualSchemes.involved(vote, t, pr, state[t], plan);
                    if (state[t].retired(plan)) {
                        assertThat(involved[t]).isFalse();
                    }
                    count += involved[t] ? 1 : 0;
                }
                SchemeBStep.Decision d = schemeB ? b.decide(count) : a.decide(count);
                for (int t = 0; t < teachers; t++) {
                    if (involved[t] && d.chargeInvolved()) {
                        state[t] = state[t].charge(plan);
                    }
                    assertThat(state[t].charges()).isLessThanOrEqualTo(plan.limit());
                    assertThat(state[t].epsilon(plan, delta)).isLessThanOrEqualTo(eps);
                }
            }
        }
    }
}
