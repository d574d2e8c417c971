package org.hotpate.eval;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.hotpate.core.mechanism.PrivacyAnalysis;
import org.hotpate.core.mechanism.Release;
import org.hotpate.core.privacy.Conversion;
import org.hotpate.core.privacy.OrderGrid;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;

/**
 * Privacy efficiency: how many useful tokens hot (coordinated) and cold (independent) PATE yield
 * under one DP mechanism before a fixed (ε, δ) budget runs out.
 *
 * <p>Protocol (docs/evaluation.md):
 *
 * <ol>
 *   <li><b>Tuning</b> (per mechanism and sampler, so cold PATE gets its best shot too): over a grid
 *       of noise parameters, predict tokens = K × Pr[useful token], where K is the number of steps
 *       the data-independent RDP budget affords (expected per-step curve for Confident-GNMax) and
 *       Pr[useful token] is estimated on the r recorded histograms with simulated noise (seeded;
 *       used only to choose parameters, never released).
 *   <li><b>Run</b> with the chosen parameters: steps cycle through the r histograms (the workload
 *       is one prompt, so the draws are i.i.d. steps); each step asks the {@link
 *       EnsembleBudgetFilter} whether the worst-case event still fits, releases through the real
 *       mechanism (secure noise), charges the realized event, and stops at the first step that
 *       would not fit (or at {@code maxSteps}).
 * </ol>
 *
 * A token is <b>useful</b> when it is the noise-free plurality of its histogram (the classic PATE
 * "agreement with the ensemble"); ⊥ and noise-driven tokens are not counted. Accounting is
 * data-independent throughout (safe to publish and to stop on).
 */
public final class PrivacyEfficiency {

    /** Builds a mechanism by name (the production provider wraps {@code Mechanisms.create}). */
    @FunctionalInterface
    public interface MechanismProvider {
        AggregationMechanism create(
                String mechanism, Map<String, Double> params, int vocabularySize, int teachers);
    }

    /** One run of one sampler under one mechanism. */
    public record Run(
            String sampler,
            Map<String, Double> params,
            Double threshold,
            double predictedTokens,
            long steps,
            long answered,
            long tokens,
            double precision,
            int distinctTokens,
            double spentEpsilon,
            boolean capped) {}

    /**
     * Hot vs cold under one mechanism: {@code ratio} = realized tokens(hot)/tokens(cold) and {@code
     * expectedRatio} = predicted tokens(hot)/predicted tokens(cold) (less noisy when cold yields a
     * handful); {@code distinctRatio} = distinct useful tokens hot/cold (diversity: cold PATE tends
     * to repeat the mode); each null when its denominator is 0.
     */
    public record Result(
            String mechanism,
            Run coordinated,
            Run independent,
            Double ratio,
            Double expectedRatio,
            Double distinctRatio) {}

    /** The mechanisms this evaluation knows how to tune. */
    public static final List<String> MECHANISMS =
            List.of(
                    MechanismRegistry.GNMAX,
                    MechanismRegistry.CONFIDENT_GNMAX,
                    MechanismRegistry.HOT_PATE,
                    MechanismRegistry.LNMAX);

    /**
     * Default number of simulated noise trials behind each tuning estimate: a useful-token
     * probability p is estimated with standard error √(p/20000), e.g. ±0.0003 at p = 0.002.
     */
    public static final int DEFAULT_TUNING_TRIALS = 20_000;

    /**
     * A setting predicted to yield fewer useful tokens than this over the whole budget yields none.
     */
    static final double MIN_PREDICTED_TOKENS = 0.05;

    /** Default precision floor: at least 90% of the released tokens must be useful. */
    public static final double DEFAULT_MIN_PRECISION = 0.9;

    private static final double[] THRESHOLD_FRACTIONS = {
        0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6
    };

    private final PrivacyBudget budget;
    private final long maxSteps;
    private final int vocabularySize;
    private final MechanismProvider provider;
    private final long tuningSeed;
    private final int tuningTrials;
    private final double minPrecision;
    private final OrderGrid grid = OrderGrid.dpAccountingDefault();

    public PrivacyEfficiency(
            PrivacyBudget budget,
            long maxSteps,
            int vocabularySize,
            MechanismProvider provider,
            long tuningSeed) {
        this(
                budget,
                maxSteps,
                vocabularySize,
                provider,
                tuningSeed,
                DEFAULT_TUNING_TRIALS,
                DEFAULT_MIN_PRECISION);
    }

    /**
     * @param minPrecision the floor on Pr[useful | token released] a setting must reach (predicted
     *     in tuning) to be chosen: without it, noise far above every count releases near-uniform
     *     tokens, cheaply, and "hits" the plurality by chance (≈ 1/|V| per step)
     */
    public PrivacyEfficiency(
            PrivacyBudget budget,
            long maxSteps,
            int vocabularySize,
            MechanismProvider provider,
            long tuningSeed,
            int tuningTrials,
            double minPrecision) {
        this.tuningTrials = checkPositive("tuningTrials", tuningTrials);
        this.minPrecision =
                org.hotpate.core.util.Preconditions.checkProbability("minPrecision", minPrecision);
        this.budget = checkNotNull("budget", budget);
        this.maxSteps = checkPositive("maxSteps", maxSteps);
        this.vocabularySize = checkPositive("vocabularySize", vocabularySize);
        this.provider = checkNotNull("provider", provider);
        this.tuningSeed = tuningSeed;
    }

    public Result evaluate(String mechanism, DrawSet hot, DrawSet cold, Progress progress) {
        checkArgument(
                MECHANISMS.contains(mechanism),
                "mechanism must be one of " + MECHANISMS + "; got '" + mechanism + "'");
        Run h = run(mechanism, hot, progress);
        Run c = run(mechanism, cold, progress);
        Double ratio = c.tokens() > 0 ? (double) h.tokens() / c.tokens() : null;
        Double expected =
                c.predictedTokens() > 0 ? h.predictedTokens() / c.predictedTokens() : null;
        Double distinct =
                c.distinctTokens() > 0 ? (double) h.distinctTokens() / c.distinctTokens() : null;
        return new Result(mechanism, h, c, ratio, expected, distinct);
    }

    private Run run(String mechanism, DrawSet draws, Progress progress) {
        HistogramPool pool = new HistogramPool(draws, vocabularySize, tuningTrials);
        Tuned best = tune(mechanism, pool);
        if (best.predictedTokens < MIN_PREDICTED_TOKENS) {
            // No setting on the grid is predicted to yield anything: report zero, spend nothing.
            return new Run(
                    draws.sampler(),
                    best.params,
                    Double.isNaN(best.threshold) ? null : best.threshold,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    false);
        }
        AggregationMechanism m =
                provider.create(mechanism, best.params, vocabularySize, draws.teachers());
        PrivacyEvent worst = m.worstCaseEvent(); // what the job's filter admits on, too
        EnsembleBudgetFilter filter =
                EnsembleBudgetFilter.create(EnsembleBudgetFilter.Config.plan(budget, worst));
        long steps = 0;
        long answered = 0;
        long tokens = 0;
        Set<Integer> distinct = new HashSet<>();
        long expected = Math.max(1, Math.min(maxSteps, best.steps));
        progress.start(
                mechanism + " " + draws.sampler() + " steps at eps=" + budget.epsilon(), expected);
        boolean capped = false;
        while (true) {
            if (steps >= maxSteps) {
                capped = true;
                break;
            }
            int h = (int) (steps % pool.size());
            if (!filter.canAfford(worst)) {
                break;
            }
            Release r = m.release(pool.histogram(h));
            filter.charge(r.event(), worst);
            steps++;
            if (!r.isFail()) {
                answered++;
                int token = r.token().getAsInt();
                if (pool.isPlurality(h, token)) {
                    tokens++;
                    distinct.add(token);
                }
            }
            progress.step();
        }
        progress.finish();
        return new Run(
                draws.sampler(),
                best.params,
                Double.isNaN(best.threshold) ? null : best.threshold,
                best.predictedTokens,
                steps,
                answered,
                tokens,
                answered > 0 ? (double) tokens / answered : 0,
                distinct.size(),
                filter.spentEpsilon(),
                capped);
    }

    // ---- tuning -------------------------------------------------------------------------------

    /**
     * Chosen parameters (as the mechanism factory takes them), the threshold in force (NaN if
     * none).
     */
    private record Tuned(
            Map<String, Double> params,
            double threshold,
            double predictedTokens,
            long steps,
            double precision) {}

    /**
     * The best setting on the grid for {@code mechanism}, searched as its registry entry's {@link
     * PrivacyAnalysis.Tuning} says: a noisy argmax over its one scale, or a thresholded argmax over
     * (σ1, σ2) and — when the mechanism does not fix it — the threshold.
     */
    Tuned tune(String mechanism, HistogramPool pool) {
        PrivacyAnalysis.Tuning tuning =
                MechanismRegistry.analysis(mechanism)
                        .findTuning()
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                "unknown mechanism " + mechanism));
        if (tuning instanceof PrivacyAnalysis.NoisyArgmax n) {
            return tuneNoisyArgmax(n, pool);
        }
        if (tuning instanceof PrivacyAnalysis.ThresholdedArgmax t) {
            return tuneThresholded(t, pool);
        }
        throw new IllegalStateException("no tuner for " + tuning);
    }

    private Tuned tuneNoisyArgmax(PrivacyAnalysis.NoisyArgmax n, HistogramPool pool) {
        double[] scales = scaleGrid(pool.teachers);
        SplittableRandom rnd = new SplittableRandom(tuningSeed);
        Tuned best = null;
        for (double s : scales) {
            double pc = pool.pluralityProbability(s, n.laplace(), rnd);
            long k = affordableSteps(new double[][] {rdp(n.event().apply(s))}, new double[] {1});
            best = better(best, new Tuned(Map.of(n.parameter(), s), Double.NaN, k * pc, k, pc));
        }
        return best;
    }

    /**
     * Confident-GNMax-shaped: Pr[plurality | answered step] per draw depends on σ2 only (estimated
     * once per σ2); Pr[answered] per draw on (σ1, T). The threshold is the mechanism's own or, for
     * each fraction of n in {@link #THRESHOLD_FRACTIONS}, a tuned one.
     */
    private Tuned tuneThresholded(PrivacyAnalysis.ThresholdedArgmax m, HistogramPool pool) {
        double[] scales = scaleGrid(pool.teachers);
        SplittableRandom rnd = new SplittableRandom(tuningSeed);
        Tuned best = null;
        double[][] pcByDraw = new double[scales.length][];
        for (int b = 0; b < scales.length; b++) {
            pcByDraw[b] = pool.pluralityProbabilityByDraw(scales[b], rnd);
        }
        // a tuned threshold: one candidate per fraction; a fixed one: a single pass
        double[] fractions =
                m.findFixedThreshold().isPresent()
                        ? new double[] {Double.NaN}
                        : THRESHOLD_FRACTIONS;
        for (double f : fractions) {
            for (double s1 : scales) {
                // Pr[answered] and the threshold step's curve, kept while (σ1, T) repeats
                double lastT = Double.NaN;
                double[] pAns = null;
                double[] thr = null;
                for (int b = 0; b < scales.length; b++) {
                    double s2 = scales[b];
                    double t =
                            m.findFixedThreshold()
                                    .map(ft -> ft.of(s1, s2, pool.teachers, vocabularySize))
                                    .orElseGet(() -> (double) Math.round(f * pool.teachers));
                    if (pAns == null || Double.compare(t, lastT) != 0) {
                        pAns = pool.answerProbabilityByDraw(s1, t);
                        thr = rdp(m.thresholdStep(s1, t));
                        lastT = t;
                    }
                    double meanAns = Arrays.stream(pAns).average().orElse(0);
                    double pTok = 0;
                    for (int h = 0; h < pAns.length; h++) {
                        pTok += pAns[h] * pcByDraw[b][h];
                    }
                    pTok /= pAns.length;
                    long k =
                            affordableSteps(
                                    new double[][] {thr, rdp(m.answer(s2))},
                                    new double[] {1, meanAns});
                    best =
                            better(
                                    best,
                                    new Tuned(
                                            m.params().of(s1, t, s2),
                                            t,
                                            k * pTok,
                                            k,
                                            meanAns > 0 ? pTok / meanAns : 0));
                }
            }
        }
        return best;
    }

    /** The better of two settings: only settings that meet the precision floor can win. */
    private Tuned better(Tuned a, Tuned b) {
        boolean bOk = b.precision >= minPrecision && b.predictedTokens >= MIN_PREDICTED_TOKENS;
        if (a == null) {
            // Placeholder until a setting qualifies: no parameters, nothing predicted.
            return bOk ? b : new Tuned(Map.of(), Double.NaN, 0, 0, 0);
        }
        return bOk && b.predictedTokens > a.predictedTokens ? b : a;
    }

    /**
     * Noise scales 1, 1.5, 2, 3, 5, 7, 10, 15, … up to 2n (round numbers: exact samplers like short
     * rationals).
     */
    static double[] scaleGrid(int teachers) {
        List<Double> g = new ArrayList<>();
        double[] mantissas = {1, 1.5, 2, 3, 5, 7};
        for (double decade = 1; decade <= 2.0 * teachers; decade *= 10) {
            for (double m : mantissas) {
                if (m * decade <= 2.0 * teachers) {
                    g.add(m * decade);
                }
            }
        }
        return g.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private double[] rdp(PrivacyEvent e) {
        return RdpAccountant.rdpOf(e, grid);
    }

    /**
     * The number of steps a run makes, modelled the way the budget filter stops it: step k is run
     * only if the spend so far plus the step's worst case fits, and a step spends Σ
     * weight_i·curve_i in expectation (for Confident-GNMax the argmax part only with probability
     * Pr[answered]). So K = the largest k ≤ maxSteps with (k − 1)·expected + worst within the
     * filter's RDP budget at its fixed order (planned from worst = Σ curve_i, as the job does).
     */
    long affordableSteps(double[][] curves, double[] weights) {
        double[] expected = new double[grid.size()];
        double[] worst = new double[grid.size()];
        for (int c = 0; c < curves.length; c++) {
            for (int i = 0; i < expected.length; i++) {
                expected[i] += weights[c] * curves[c][i];
                worst[i] += curves[c][i];
            }
        }
        // The filter's order is planned from the worst-case step, as the job plans it.
        EnsembleBudgetFilter.Config cfg =
                EnsembleBudgetFilter.Config.plan(budget, grid, Conversion.IMPROVED, worst, 0);
        if (!fits(cfg, expected, worst, 1)) {
            return 0;
        }
        long lo = 1;
        long hi = maxSteps;
        if (fits(cfg, expected, worst, hi)) {
            return hi;
        }
        while (hi - lo > 1) {
            long mid = (lo + hi) >>> 1;
            if (fits(cfg, expected, worst, mid)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static boolean fits(
            EnsembleBudgetFilter.Config cfg, double[] expected, double[] worst, long k) {
        int i = cfg.orderIndex();
        return (k - 1) * expected[i] + worst[i] <= cfg.rdpBudget();
    }
}
