package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;

/**
 * {@code mechanism: {name: auto}}: chooses the aggregation mechanism and every one of its
 * parameters from <b>public inputs only</b> — the ensemble size n, the vocabulary size |V|, the
 * ensemble kind, the budget (ε, δ) and the planned work (sequences × max-steps) — so the choice
 * itself reveals nothing about the private data and the run's guarantee is the budget's, whatever
 * is chosen (docs/privacy-efficiency.md, "auto").
 *
 * <p><b>What it picks.</b> {@link CheckedGnmaxMechanism} (Confident-GNMax whose answer must clear a
 * noisy check of its own count; its guarantee is the mechanism's) with its parameters tied to one
 * threshold T:
 *
 * <ul>
 *   <li>σ1 = T / {@value #THRESHOLD_SPREAD} — the threshold test is cheap (⊥ costs α/(2σ1²), a
 *       sixth of an answer), so resampling a position whose first draw found no consensus is
 *       affordable;
 *   <li>σ2 = T / {@value #ARGMAX_SPREAD} — GNMax is the dearest step (α/σ2²); over an LLM-sized
 *       vocabulary its noise alone would often hand the answer to a token nobody voted for, which
 *       the check rejects, so σ2 can be this large;
 *   <li>σ3 = T / {@value #CHECK_SPREAD} and check threshold T — a token nobody voted for passes the
 *       check with probability Pr[N_ℤ(0, σ3²) ≥ T] ≈ 3·10⁻⁵;
 *   <li>T: the smallest threshold (least noise) whose worst-case release fits the planned steps in
 *       the budget, at the run filter's own planning ({@link EnsembleBudgetFilter.Config#plan}) — a
 *       function of the budget and the number of releases only, not of n; never above {@link
 *       #maxThreshold}: {@value #SQRT_N_FACTOR}·√n for heterogeneous ensembles (at most ¼ n), ½ n
 *       for homogeneous ones. Above the cap the budget ends the run instead.
 * </ul>
 *
 * <p><b>What it optimises.</b> The least noise that pays for the planned work. An answered release
 * costs α(σ1⁻²/2 + σ2⁻² + σ3⁻²/2) = α·28.5/T², so the releases a budget affords grow as T², and a
 * threshold fixed in teachers (not a share) lets the share T/n a token needs fall as n grows. When
 * the planned work does not fit under the cap, the run is budget-ended either way: the cap decides
 * how a larger n is spent. At a fixed share (the first form: ¼ n) all of it went to more steps
 * (affordable releases ∝ n²) with only the most common tokens passing; at T ∝ √n it is split: the
 * affordable releases grow as n and the share falls as 1/√n. The factor is where the varied text
 * was measured: the demo's plan, 230 of 2,296 (4.8√n), and a hand-set T = 570 over 11,757 users
 * (5.3√n; docs/privacy-efficiency.md §4). |V| is an input for validation; with the check in place
 * the plan does not depend on it.
 *
 * <p>The measured levers behind these choices (Confident-GNMax alone, a stability release,
 * individual charging, the teachers' public backoff) are in docs/privacy-efficiency.md.
 */
public final class AutoPlanner {
    public static final String NAME = MechanismRegistry.AUTO;

    /** T / σ1. */
    public static final double THRESHOLD_SPREAD = 3.0;

    /** T / σ2. */
    public static final double ARGMAX_SPREAD = 4.0;

    /** T / σ3 (the check threshold is T). */
    public static final double CHECK_SPREAD = 4.0;

    /** Expected steps per released token assumed by the plan (a ⊥ is resampled). */
    public static final double STEPS_PER_TOKEN = 2.0;

    private AutoPlanner() {}

    /**
     * The public inputs of a plan.
     *
     * @param teachers n, the public ensemble size
     * @param vocabularySize |V|
     * @param heterogeneous one user per teacher (records runs) rather than a random partition
     * @param budget the run's (ε, δ)
     * @param plannedPositions sequences × max-steps: the most tokens the run can ask for
     */
    public record Inputs(
            int teachers,
            int vocabularySize,
            boolean heterogeneous,
            PrivacyBudget budget,
            long plannedPositions) {
        public Inputs {
            checkPositive("teachers", teachers);
            checkPositive("vocabularySize", vocabularySize);
            checkNotNull("budget", budget); // finite by construction
            checkArgument(
                    plannedPositions >= 1,
                    "planned positions must be >= 1; got " + plannedPositions);
        }
    }

    /**
     * A plan: the mechanism's name and parameters (exactly as a job spec would give them), the
     * threshold as a share of n, how many worst-case releases the budget admits, the steps the plan
     * wanted, and whether the budget (rather than the planned work) set the threshold.
     */
    public record Plan(
            String mechanism,
            Map<String, Double> params,
            double thresholdShare,
            long affordableReleases,
            long plannedSteps,
            boolean budgetLimited) {
        public Plan {
            // insertion order kept: `privacy plan` and operator.json print the params in it
            params = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(params));
        }

        /** One line for operators: what was chosen and why. */
        public String explanation() {
            return String.format(
                    Locale.ROOT,
                    "%s with sigma1 %.1f, threshold %.1f (%.1f%% of the teachers), sigma2 %.1f,"
                            + " sigma3 %.1f, check-threshold %.1f: %s (%d worst-case releases fit"
                            + " the budget; the plan needed %d)",
                    mechanism,
                    params.get("sigma1"),
                    params.get("threshold"),
                    100 * thresholdShare,
                    params.get("sigma2"),
                    params.get("sigma3"),
                    params.get("check-threshold"),
                    budgetLimited
                            ? "the budget ends the run, so the threshold is the planner's cap"
                            : "the smallest noise whose releases cover the planned work",
                    affordableReleases,
                    plannedSteps);
        }
    }

    /** The heterogeneous cap's factor: T ≤ ⌈SQRT_N_FACTOR · √n⌉ (and ≤ ¼ n). */
    public static final double SQRT_N_FACTOR = 5.0;

    /**
     * The largest threshold share the planner uses: ¼ of n for heterogeneous ensembles (one user
     * per teacher: agreement is spread — on the demo corpus the first token's top share is mostly
     * 0.05–0.15 and later positions' median 0.41), ½ for homogeneous ones (Algorithm 2's majority
     * regime, where most teachers hold the same knowledge). Heterogeneous plans are further capped
     * by {@link #maxThreshold}.
     */
    public static double maxThresholdShare(boolean heterogeneous) {
        return heterogeneous ? 0.25 : 0.5;
    }

    /**
     * The largest threshold the planner uses for n teachers: heterogeneous {@code min(¼ n, ⌈5·√n ·
     * 10⌉/10)} — a share that falls as 1/√n, so a larger ensemble buys text that needs less
     * agreement as well as more releases; homogeneous ½ n.
     */
    public static double maxThreshold(int teachers, boolean heterogeneous) {
        double share = maxThresholdShare(heterogeneous) * teachers;
        return heterogeneous
                ? Math.min(share, Math.ceil(SQRT_N_FACTOR * Math.sqrt(teachers) * 10) / 10)
                : share;
    }

    /** The plan for these inputs (deterministic: a function of the public inputs only). */
    public static Plan plan(Inputs in) {
        checkNotNull("inputs", in);
        long steps = (long) Math.ceil(in.plannedPositions() * STEPS_PER_TOKEN);
        double lo = ARGMAX_SPREAD; // σ ≥ 1: below that the noise no longer hides a vote
        double hi = Math.max(lo, maxThreshold(in.teachers(), in.heterogeneous()));
        boolean budgetLimited = affordable(in, params(hi)) < steps;
        if (!budgetLimited) {
            for (int i = 0; i < 80 && hi - lo > 0.1; i++) {
                double mid = (lo + hi) / 2;
                if (affordable(in, params(mid)) >= steps) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
        }
        Map<String, Double> p = params(hi);
        return new Plan(
                CheckedGnmaxMechanism.NAME,
                p,
                p.get("threshold") / in.teachers(),
                affordable(in, p),
                steps,
                budgetLimited);
    }

    /** The parameters for threshold {@code t}, rounded to 0.1 the safe way (T up, σs down). */
    private static Map<String, Double> params(double t) {
        double threshold = Math.ceil(t * 10) / 10;
        Map<String, Double> p = new LinkedHashMap<>();
        p.put("sigma1", round1(threshold / THRESHOLD_SPREAD));
        p.put("threshold", threshold);
        p.put("sigma2", round1(threshold / ARGMAX_SPREAD));
        p.put("sigma3", round1(threshold / CHECK_SPREAD));
        p.put("check-threshold", threshold);
        return p;
    }

    /** How many worst-case (answered and checked) releases the budget admits. */
    private static long affordable(Inputs in, Map<String, Double> p) {
        PrivacyEvent worst =
                new PrivacyEvent.Composed(
                        java.util.List.of(
                                new PrivacyEvent.ConfidentGnmax(
                                        p.get("sigma1"), p.get("threshold"), p.get("sigma2"), true),
                                new PrivacyEvent.DiscreteGaussian(p.get("sigma3"), 1)));
        return EnsembleBudgetFilter.maxReleases(
                EnsembleBudgetFilter.Config.plan(in.budget(), worst), worst);
    }

    private static double round1(double x) {
        return Math.max(0.1, Math.floor(x * 10) / 10); // down: costs are computed on these values
    }
}
