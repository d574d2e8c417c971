package org.hotpate.core.accounting;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkOpenUnit;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.util.List;
import java.util.Map;
import org.hotpate.core.noise.DiscreteLaplace;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.Rational;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.util.ParameterTable;

/**
 * Scheme A in streaming form ({@code mechanism.name: scheme-a}; PRIVACY.md §A.6.1) — an explicit
 * option whose guarantee <b>rests on a DERIVED proof</b> (docs/proofs/scheme-a.md: Lemma 1 and
 * Theorem 2, checked numerically, not peer-reviewed). The step's aggregation given the number of
 * involved teachers, for a job that keeps each teacher's {@link TeacherCharges} in keyed state.
 *
 * <p><b>Step.</b> Involvement as in Scheme B ({@link IndividualSchemes#involved}: not retired,
 * public coin 1, own vote = the tested token v). With c the involved count and Z discrete Laplace,
 * P(Z = k) ∝ e^{−ε|k|}, z = c + Z: z &lt; lower → ⊥ (BELOW, nobody charged); lower ≤ z ≤ upper → v
 * (BETWEEN, the target: every involved teacher is charged one unit); z &gt; upper → v (ABOVE,
 * nobody charged). A teacher retires at τ charges.
 *
 * <p><b>Guarantee [DERIVED].</b> Neighbouring relation replace one teacher's data (n public). Each
 * step is ε-DP (count sensitivity 1) with {BETWEEN} a q-target, q = (1 − e^{−εW})/(1 + e^ε), W =
 * upper − lower (Lemma 1); with τ from {@link ChargePlanning#schemeATau(double, double, double,
 * double, NeighbourRelation)} under replace-one (m for 2τ hits: the real user's and its
 * replacement's, docs/proofs/replace-one.md §3), every teacher gets (ε', δ)-DP for any number of
 * steps (Theorem 2). The ensemble-level event of a step is {@code PureDp(ε)}.
 */
public final class SchemeAStep implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    public static final String NAME = "scheme-a";

    /**
     * The spec parameters {@code epsilon} (≤ 6 decimals; the noise scale is 1/ε for ε taken never
     * above the double charged, {@link Rational#atMost} — exact when the decimal is), integer
     * {@code lower} &lt; {@code upper} (the band) and {@code sample-rate}, validated.
     */
    public record Params(double epsilon, long lower, long upper, double sampleRate)
            implements java.io.Serializable {
        /** The keys of {@code mechanism.params}, all required. */
        public static final ParameterTable TABLE =
                new ParameterTable(
                        NAME,
                        List.of("epsilon", "lower", "upper", "sample-rate"),
                        List.of(),
                        Map.of("threshold", "takes its band as lower and upper, not threshold"));

        public Params {
            checkPositive("epsilon", epsilon);
            checkArgument(
                    java.math.BigDecimal.valueOf(epsilon).stripTrailingZeros().scale()
                            <= Rational.MAX_DECIMALS,
                    "epsilon must have at most "
                            + Rational.MAX_DECIMALS
                            + " decimals; got "
                            + epsilon);
            checkArgument(lower < upper, "lower must be < upper; got " + lower + " >= " + upper);
            checkArgument(
                    sampleRate > 0 && sampleRate <= 1,
                    "sample-rate must be in (0, 1]; got " + sampleRate);
        }

        /** W = upper − lower. */
        public long bandWidth() {
            return upper - lower;
        }

        /** From {@code mechanism.params}; {@code lower}/{@code upper} must be integers. */
        public static Params fromSpec(Map<String, Double> params) {
            TABLE.check(params);
            return new Params(
                    params.get("epsilon"),
                    integer("lower", params.get("lower")),
                    integer("upper", params.get("upper")),
                    params.get("sample-rate"));
        }

        private static long integer(String key, double v) {
            checkArgument(
                    v == Math.rint(v) && Math.abs(v) < 1e15, key + " must be an integer; got " + v);
            return (long) v;
        }
    }

    /**
     * The per-teacher plan: τ from the per-teacher target under the plan's neighbouring relation (δ
     * split in halves, Theorem 2; under replace-one with the target hits of the real user and of
     * its replacement counted, so m is taken for 2τ hits — docs/proofs/replace-one.md §3).
     */
    public record Plan(Params params, int tau, NeighbourRelation relation)
            implements IndividualPlan {
        public Plan {
            checkNotNull("params", params);
            checkNotNull("relation", relation);
            checkArgument(tau >= 0, "tau must be >= 0; got " + tau);
        }

        /** A plan under replace-one, the system's relation. */
        public Plan(Params params, int tau) {
            this(params, tau, NeighbourRelation.REPLACE_ONE);
        }

        /**
         * τ for {@code budget.per-teacher-epsilon} / {@code per-teacher-delta} under replace-one.
         */
        public static Plan forTarget(
                Params params, double perTeacherEpsilon, double perTeacherDelta) {
            return forTarget(
                    params, perTeacherEpsilon, perTeacherDelta, NeighbourRelation.REPLACE_ONE);
        }

        /** As {@link #forTarget(Params, double, double)} under {@code relation}. */
        public static Plan forTarget(
                Params params,
                double perTeacherEpsilon,
                double perTeacherDelta,
                NeighbourRelation relation) {
            checkNotNull("params", params);
            checkPositive("per-teacher-epsilon", perTeacherEpsilon);
            checkOpenUnit("per-teacher-delta", perTeacherDelta);
            return new Plan(
                    params,
                    ChargePlanning.schemeATau(
                            perTeacherEpsilon,
                            perTeacherDelta,
                            params.epsilon(),
                            params.bandWidth(),
                            relation),
                    relation);
        }

        @Override
        public String id(double targetDelta) {
            return "scheme-a/epsilon="
                    + params.epsilon()
                    + "/width="
                    + params.bandWidth()
                    + "/tau="
                    + tau
                    + "/delta="
                    + targetDelta
                    + "/relation="
                    + relation.label();
        }

        @Override
        public double sampleRate() {
            return params.sampleRate();
        }

        @Override
        public boolean chargesAtVote() {
            return false;
        }

        @Override
        public SchemeBStep.Decision decide(long involvedCount, UniformSource noise) {
            return new SchemeAStep(this, noise).decide(involvedCount);
        }

        @Override
        public String scheme() {
            return NAME;
        }

        @Override
        public long limit() {
            return tau;
        }

        /**
         * Under the plan's relation: replace-one — Theorem 2's ε' for the pair (this user, any
         * replacement) with c + τ target hits (the replacement retired at τ); add/remove — {@link
         * #epsilonAddRemove}. δ split in halves; ≤ the target ε at c ≤ τ and the target δ.
         */
        @Override
        public double epsilon(long charges, double delta) {
            checkArgument(charges >= 0 && charges <= Integer.MAX_VALUE, "charges out of range");
            if (relation == NeighbourRelation.ADD_REMOVE) {
                return epsilonAddRemove(charges, delta);
            }
            checkOpenUnit("delta", delta);
            long hits = charges + tau;
            return hits == 0
                    ? 0
                    : ChargePlanning.schemeAEpsilon(
                            Math.toIntExact(hits),
                            params.epsilon(),
                            params.bandWidth(),
                            delta / 2,
                            delta / 2);
        }

        /** Theorem 2's ε' with τ = charges (add/remove), δ split in halves; 0 for no charge. */
        @Override
        public double epsilonAddRemove(long charges, double delta) {
            checkArgument(charges >= 0 && charges <= Integer.MAX_VALUE, "charges out of range");
            checkOpenUnit("delta", delta);
            if (charges == 0) {
                return 0;
            }
            return ChargePlanning.schemeAEpsilon(
                    (int) charges, params.epsilon(), params.bandWidth(), delta / 2, delta / 2);
        }
    }

    private final Plan plan;
    private final DiscreteLaplace noise;
    private final UniformSource random;

    /** With DP noise from {@link NoiseSources#secure()}. */
    public SchemeAStep(Plan plan) {
        this(plan, NoiseSources.secure());
    }

    /** Test seam: pass {@link NoiseSources#seededInsecureForTestsOnly} only in tests. */
    public SchemeAStep(Plan plan, UniformSource random) {
        this.plan = checkNotNull("plan", plan);
        this.random = checkNotNull("random", random);
        // Never above the double charged as PureDp(ε), so the scale 1/ε is never below its inverse.
        Rational eps = Rational.atMost(plan.params().epsilon());
        this.noise = DiscreteLaplace.withScale(Rational.of(eps.denominator(), eps.numerator()));
    }

    /** BetweenThresholds on {@code involvedCount}; only BETWEEN charges the involved teachers. */
    public SchemeBStep.Decision decide(long involvedCount) {
        checkArgument(involvedCount >= 0, "involvedCount must be >= 0; got " + involvedCount);
        long z = involvedCount + noise.sample(random.forCurrentThread());
        StepOutcome o =
                z < plan.params().lower()
                        ? StepOutcome.BELOW
                        : z <= plan.params().upper() ? StepOutcome.BETWEEN : StepOutcome.ABOVE;
        return new SchemeBStep.Decision(o, o == StepOutcome.BETWEEN, event());
    }

    /** The step for the run's ensemble filter: ε-DP (also the worst case). */
    public PrivacyEvent event() {
        return new PrivacyEvent.PureDp(plan.params().epsilon());
    }

    public Plan plan() {
        return plan;
    }
}
