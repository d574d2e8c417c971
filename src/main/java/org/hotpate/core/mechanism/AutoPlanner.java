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
 * <p><b>What it picks.</b> Confident-GNMax (Papernot et al. 2018, Alg. 1; its guarantee is the
 * mechanism's, see {@link ConfidentGnmaxMechanism}) with its three parameters tied to one threshold
 * T:
 *
 * <ul>
 *   <li>σ2 = T / (√(2 ln |V|) + {@value #ARGMAX_MARGIN}) — the largest of |V| zero-count noisy
 *       counts is about σ2·√(2 ln |V|), so a token at the threshold still beats every token nobody
 *       voted for: the noisy argmax does not release noise tokens;
 *   <li>σ1 = T / {@value #THRESHOLD_SPREAD} — the threshold test is cheap (⊥ costs α/(2σ1²), a
 *       tenth of an answer), so resampling a position whose first draw found no consensus is
 *       affordable;
 *   <li>T: the smallest threshold (least noise, most answers per step) whose worst-case release
 *       fits the planned steps in the budget, at the run filter's own planning ({@link
 *       EnsembleBudgetFilter.Config#plan}); never above a share of n ({@link #maxThresholdShare}),
 *       above which steps whose top token has less support than that share cannot answer — the
 *       budget then ends the run instead.
 * </ul>
 *
 * <p>Every answered release costs α(σ1⁻²/2 + σ2⁻²) = α·(T⁻²)·(s²/2 + (√(2 ln|V|) + m)²): the cost
 * falls with T², so when the budget is the limit the planner takes the largest useful T.
 *
 * <p>The measured levers behind these choices (stability release, sparse vector, subsampling,
 * individual charging) are in docs/privacy-efficiency.md; the planner offers only what paid.
 */
public final class AutoPlanner {
    public static final String NAME = "auto";

    /** Margin, in σ2, of a threshold-level count over the largest zero-count noise. */
    public static final double ARGMAX_MARGIN = 1.2;

    /** T / σ1. */
    public static final double THRESHOLD_SPREAD = 3.0;

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
            params = Map.copyOf(params);
        }

        /** One line for operators: what was chosen and why. */
        public String explanation() {
            return String.format(
                    Locale.ROOT,
                    "%s with sigma1 %.1f, threshold %.1f (%.1f%% of the teachers), sigma2 %.1f: %s"
                            + " (%d worst-case releases fit the budget; the plan needed %d)",
                    mechanism,
                    params.get("sigma1"),
                    params.get("threshold"),
                    100 * thresholdShare,
                    params.get("sigma2"),
                    budgetLimited
                            ? "the budget ends the run, so the threshold is the largest useful"
                            : "the smallest noise whose releases cover the planned work",
                    affordableReleases,
                    plannedSteps);
        }
    }

    /**
     * The largest threshold share the planner uses: ¼ of n for heterogeneous ensembles (one user
     * per teacher: agreement is spread — on the demo corpus the first token's top share is mostly
     * 0.05–0.15 and later positions' median 0.41), ½ for homogeneous ones (Algorithm 2's majority
     * regime, where most teachers hold the same knowledge).
     */
    public static double maxThresholdShare(boolean heterogeneous) {
        return heterogeneous ? 0.25 : 0.5;
    }

    /** The plan for these inputs (deterministic: a function of the public inputs only). */
    public static Plan plan(Inputs in) {
        checkNotNull("inputs", in);
        long steps = (long) Math.ceil(in.plannedPositions() * STEPS_PER_TOKEN);
        double perSigma2 = Math.sqrt(2 * Math.log(in.vocabularySize())) + ARGMAX_MARGIN;
        double hi = Math.max(perSigma2, maxThresholdShare(in.heterogeneous()) * in.teachers());
        double lo = perSigma2; // σ2 ≥ 1: below that the noise no longer hides a vote
        boolean budgetLimited = affordable(in, params(hi, perSigma2)) < steps;
        if (!budgetLimited) {
            for (int i = 0; i < 80 && hi - lo > 0.1; i++) {
                double mid = (lo + hi) / 2;
                if (affordable(in, params(mid, perSigma2)) >= steps) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
        }
        Map<String, Double> p = params(hi, perSigma2);
        return new Plan(
                ConfidentGnmaxMechanism.NAME,
                p,
                p.get("threshold") / in.teachers(),
                affordable(in, p),
                steps,
                budgetLimited);
    }

    /** σ1, T, σ2 for threshold {@code t}, rounded to 0.1 the safe way (T up, σs down). */
    private static Map<String, Double> params(double t, double perSigma2) {
        double threshold = Math.ceil(t * 10) / 10;
        Map<String, Double> p = new LinkedHashMap<>();
        p.put("sigma1", round1(threshold / THRESHOLD_SPREAD));
        p.put("threshold", threshold);
        p.put("sigma2", round1(threshold / perSigma2));
        return p;
    }

    /** How many worst-case (answered) releases with these parameters the budget admits. */
    private static long affordable(Inputs in, Map<String, Double> p) {
        PrivacyEvent worst =
                new PrivacyEvent.ConfidentGnmax(
                        p.get("sigma1"), p.get("threshold"), p.get("sigma2"), true);
        return EnsembleBudgetFilter.maxReleases(
                EnsembleBudgetFilter.Config.plan(in.budget(), worst), worst);
    }

    private static double round1(double x) {
        return Math.max(0.1, Math.floor(x * 10) / 10); // down: costs are computed on these values
    }
}
