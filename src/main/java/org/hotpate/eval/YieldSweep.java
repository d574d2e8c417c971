package org.hotpate.eval;

import static org.hotpate.core.util.Preconditions.checkPositive;

import java.util.LinkedHashMap;
import java.util.Map;
import org.hotpate.teachers.AlphaMixtureEnsemble;

/**
 * Yield vs α on the α-mixture (hot-pate §E): the probability that a step returns a token, i.e.
 * that the largest count reaches a high threshold T, measured over r draws for each α.
 *
 * <p>Theory (§E): with coordination the largest count is distributed as Bin(n, e^{−y(1−α)}) with
 * y ~ Exp(rate α) whatever the common part s is, so for large n Pr[max ≥ T] ≈ 1 −
 * (T/n)^{α/(1−α)}; at T = n/e this is 1 − e^{−α/(1−α)} ≈ α for small α. With independent
 * sampling counts concentrate at n·α·s_j, far below a high T.
 */
public final class YieldSweep {
    private YieldSweep() {}

    /** Measured and predicted yield per α. */
    public record Result(int threshold, int teachers, int commonTokens, int draws,
            double[] alphas, double[] coordinated, double[] independent, double[] theory) {}

    /** The default high threshold: ⌈n/e⌉, where the theoretical yield is ≈ α. */
    public static int defaultThreshold(int teachers) {
        return (int) Math.ceil(teachers / Math.E);
    }

    /** 1 − (T/n)^{α/(1−α)} (1 at α = 1). */
    public static double theory(double alpha, int threshold, int teachers) {
        if (alpha >= 1) {
            return threshold <= teachers ? 1 : 0;
        }
        double t = Math.min(1.0, (double) threshold / teachers);
        return 1 - Math.pow(t, alpha / (1 - alpha));
    }

    public static Result run(double[] alphas, int commonTokens, int privateTokens, int teachers, int draws,
            int threshold, long seed, int threads, Progress progress) throws InterruptedException {
        checkPositive("threshold", threshold);
        double[] coord = new double[alphas.length];
        double[] indep = new double[alphas.length];
        double[] theory = new double[alphas.length];
        for (int a = 0; a < alphas.length; a++) {
            AlphaMixtureEnsemble e = AlphaMixtureEnsemble.uniform(alphas[a], commonTokens, teachers, privateTokens);
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("alpha", alphas[a]);
            EvalEnsemble ens = EvalEnsemble.indexed("alpha-mixture", p, e.teachers(), e.vocabularySize());
            VoteSimulator sim = new VoteSimulator(ens);
            coord[a] = yieldOf(sim.draw("coordinated", seed, draws, threads, progress), threshold);
            indep[a] = yieldOf(sim.draw("independent", seed, draws, threads, progress), threshold);
            theory[a] = theory(alphas[a], threshold, teachers);
        }
        return new Result(threshold, teachers, commonTokens, draws, alphas.clone(), coord, indep, theory);
    }

    /** Fraction of draws whose largest count is ≥ T. */
    public static double yieldOf(DrawSet d, int threshold) {
        int hits = 0;
        for (int h = 0; h < d.draws(); h++) {
            hits += d.maxCount(h) >= threshold ? 1 : 0;
        }
        return (double) hits / d.draws();
    }
}
