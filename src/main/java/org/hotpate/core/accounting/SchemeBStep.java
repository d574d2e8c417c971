package org.hotpate.core.accounting;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkFinite;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkOpenUnit;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.util.Map;
import org.hotpate.core.noise.DiscreteGaussian;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.util.ParameterTable;

/**
 * Scheme B in streaming form ({@code mechanism.name: scheme-b}; PRIVACY.md §A.6.2): the step's
 * aggregation given the number of involved teachers, for a job that keeps each teacher's {@link
 * TeacherCharges} in keyed state and counts involvements in its reducer.
 *
 * <p><b>Step.</b> Public per-step randomness ({@link PublicChargingRandomness#forStep}: inclusion
 * rate ν = {@code sample-rate}, tested token v). Teacher i is <em>involved</em> iff it {@link
 * TeacherCharges#admits admits} one more charge, its coin b_i = 1 and its own vote y_i = v ({@link
 * IndividualSchemes#involved}). With c the number of involved teachers, {@link #decide} releases v
 * iff c + N_ℤ(0, σ²) ≥ t, else ⊥; <b>every</b> involved teacher is charged one unit, whatever the
 * outcome ({@link Decision#chargeInvolved()} is always true).
 *
 * <p><b>Guarantee (verified statements: Feldman &amp; Zrnic 2021, Thm 3.1 and 4.5, individual Rényi
 * filter).</b> Neighbouring relation: replace one teacher's data (n public;
 * docs/proofs/replace-one.md §2). For a pair of worlds that differ in user x (present in one) and
 * its replacement x′ (present in the other), a step's RDP at the plan's order α is α/(2σ²) when
 * exactly one of them is involved and 0 otherwise (the counts are then equal), known before the
 * step from the two users' votes, charges and public randomness; each takes part only while its K =
 * ⌊2σ²B/(2α)⌋ involvements are not used up, so the pair's total stays ≤ 2K·α/(2σ²) ≤ B and the run
 * is (α, B)-RDP, hence (B + ln(1/δ)/(α − 1), δ)-DP, for every pair, for any number of steps. (Under
 * add/remove the same filter allows K = ⌊2σ²B/α⌋; {@link NeighbourRelation}.) The noise is the
 * discrete Gaussian (CKS 2020) from a secure source. The ensemble-level event of one step is a
 * sensitivity-1 count with that noise ({@link #event()}), for the run's budget filter.
 *
 * <p>Caller's duties: n, ν, v and the coins are public and data-independent; the involved set is
 * computed from each teacher's own vote and its charges only; charges use (own vote, coin, v) —
 * never the count or the noise; a retired teacher never votes again; one decision per step key.
 */
public final class SchemeBStep implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    public static final String NAME = "scheme-b";

    /** The spec parameters {@code sigma}, {@code threshold}, {@code sample-rate}, validated. */
    public record Params(double sigma, double threshold, double sampleRate)
            implements java.io.Serializable {
        /** The keys of {@code mechanism.params}, all required. */
        public static final ParameterTable TABLE =
                ParameterTable.required(NAME, "sigma", "threshold", "sample-rate");

        public Params {
            checkPositive("sigma", sigma);
            checkFinite("threshold", threshold);
            checkArgument(
                    sampleRate > 0 && sampleRate <= 1,
                    "sample-rate must be in (0, 1]; got " + sampleRate);
        }

        /** From {@code mechanism.params} of a job spec (keys as in {@link #TABLE}). */
        public static Params fromSpec(Map<String, Double> params) {
            TABLE.check(params);
            return new Params(
                    params.get("sigma"), params.get("threshold"), params.get("sample-rate"));
        }
    }

    /**
     * The per-teacher plan: the filter's order α, RDP budget B and the per-user limit K under the
     * plan's neighbouring relation — K = ⌊2σ²B/(u·α)⌋ with u = 2 under replace-one (the system's
     * relation: the pair of worlds charges the real user and its replacement, each up to K) and u =
     * 1 under add/remove; validated (K never more than the budget allows under the relation).
     */
    public record Plan(
            Params params, double order, double rdpBudget, long k, NeighbourRelation relation)
            implements IndividualPlan {
        public Plan {
            checkNotNull("params", params);
            checkNotNull("relation", relation);
            checkArgument(
                    order > 1 && Double.isFinite(order),
                    "order must be > 1 and finite; got " + order);
            checkArgument(
                    rdpBudget >= 0 && Double.isFinite(rdpBudget),
                    "rdpBudget must be >= 0 and finite; got " + rdpBudget);
            checkArgument(k >= 0, "k must be >= 0; got " + k);
            checkArgument(
                    k <= ChargePlanning.schemeBK(params.sigma(), order, rdpBudget, relation),
                    "k = " + k + " exceeds what the RDP budget allows under " + relation.label());
        }

        /** A plan under replace-one, the system's relation. */
        public Plan(Params params, double order, double rdpBudget, long k) {
            this(params, order, rdpBudget, k, NeighbourRelation.REPLACE_ONE);
        }

        /**
         * K and α for a per-teacher target ({@code budget.per-teacher-epsilon}, {@code
         * per-teacher-delta}) under replace-one ({@link ChargePlanning#schemeB(double, double,
         * double, NeighbourRelation)}: α optimised, classic conversion, K for two users per pair).
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
            ChargePlanning.SchemeBPlan p =
                    ChargePlanning.schemeB(
                            perTeacherEpsilon, perTeacherDelta, params.sigma(), relation);
            double budget = Math.max(0, p.rdpBudget());
            return new Plan(params, p.order(), budget, Math.max(0, p.k()), relation);
        }

        /** A teacher's RDP charge per involvement at the plan's order: α/(2σ²). */
        public double chargePerInvolvement() {
            return order / (2 * params.sigma() * params.sigma());
        }

        @Override
        public String id(double targetDelta) {
            return "scheme-b/sigma="
                    + params.sigma()
                    + "/order="
                    + order
                    + "/budget="
                    + rdpBudget
                    + "/k="
                    + k
                    + "/relation="
                    + relation.label();
        }

        @Override
        public double sampleRate() {
            return params.sampleRate();
        }

        @Override
        public boolean chargesAtVote() {
            return true;
        }

        @Override
        public SchemeBStep.Decision decide(long involvedCount, UniformSource noise) {
            return new SchemeBStep(this, noise).decide(involvedCount);
        }

        @Override
        public String scheme() {
            return NAME;
        }

        @Override
        public long limit() {
            return k;
        }

        /**
         * Under the plan's relation: replace-one — the pair (this user, any replacement) with the
         * replacement charged up to K: (c + K)·α/(2σ²) + ln(1/δ)/(α − 1); add/remove — {@link
         * #epsilonAddRemove}. At c ≤ K and δ = the target δ it is ≤ the target ε.
         */
        @Override
        public double epsilon(long charges, double delta) {
            checkArgument(charges >= 0, "charges must be >= 0; got " + charges);
            if (relation == NeighbourRelation.ADD_REMOVE) {
                return epsilonAddRemove(charges, delta);
            }
            return pairEpsilon(charges + k, delta);
        }

        /** (α, c·α/(2σ²))-RDP converted classically: c·α/(2σ²) + ln(1/δ)/(α − 1); 0 for c = 0. */
        @Override
        public double epsilonAddRemove(long charges, double delta) {
            checkArgument(charges >= 0, "charges must be >= 0; got " + charges);
            checkOpenUnit("delta", delta);
            return charges == 0 ? 0 : pairEpsilon(charges, delta);
        }

        private double pairEpsilon(long pairCharges, double delta) {
            checkOpenUnit("delta", delta);
            return pairCharges * chargePerInvolvement() + Math.log(1 / delta) / (order - 1);
        }
    }

    /** The step's outcome, whether the involved teachers are charged, and its ensemble event. */
    public record Decision(StepOutcome outcome, boolean chargeInvolved, PrivacyEvent event) {
        public Decision {
            checkNotNull("outcome", outcome);
            checkNotNull("event", event);
        }

        /** Whether v is released (otherwise ⊥). */
        public boolean reported() {
            return outcome != StepOutcome.BELOW;
        }
    }

    private final Plan plan;
    private final DiscreteGaussian noise;
    private final UniformSource random;

    /** With DP noise from {@link NoiseSources#secure()}. */
    public SchemeBStep(Plan plan) {
        this(plan, NoiseSources.secure());
    }

    /** Test seam: pass {@link NoiseSources#seededInsecureForTestsOnly} only in tests. */
    public SchemeBStep(Plan plan, UniformSource random) {
        this.plan = checkNotNull("plan", plan);
        this.random = checkNotNull("random", random);
        this.noise = DiscreteGaussian.withSigma(plan.params().sigma());
    }

    /**
     * The step's aggregation for {@code involvedCount} involved teachers: ABOVE (report v) iff
     * count + N_ℤ(0, σ²) ≥ t, else BELOW (⊥); the involved teachers are charged either way.
     */
    public Decision decide(long involvedCount) {
        checkArgument(involvedCount >= 0, "involvedCount must be >= 0; got " + involvedCount);
        long z = involvedCount + noise.sample(random.forCurrentThread());
        boolean report = z >= plan.params().threshold();
        return new Decision(report ? StepOutcome.ABOVE : StepOutcome.BELOW, true, event());
    }

    /**
     * The step for the run's ensemble filter: a discrete Gaussian on a count of sensitivity 1 (one
     * teacher's involvement changes it by 1, under add/remove and under replace-one alike). Every
     * step costs the same, so it is also the worst case.
     */
    public PrivacyEvent event() {
        return new PrivacyEvent.DiscreteGaussian(plan.params().sigma(), 1);
    }

    public Plan plan() {
        return plan;
    }
}
