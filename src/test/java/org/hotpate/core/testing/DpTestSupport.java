package org.hotpate.core.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.commons.math3.distribution.BetaDistribution;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.Release;
import org.hotpate.core.noise.DiscreteGaussian;
import org.hotpate.core.vote.VoteHistogram;

/**
 * Shared statistics for DP tests: empirical output distributions, Clopper–Pearson bounds, the
 * neighbouring-input check Pr[M(D) = o] ≤ e^ε·Pr[M(D′) = o] + δ, and exact (ε, δ) curves of
 * discrete-Gaussian noise vectors to test Gaussian mechanisms against.
 *
 * <p>The check reports a violation only when the data <em>prove</em> one at the stated confidence:
 * lower bound of Pr[M(D) = o] &gt; e^ε · upper bound of Pr[M(D′) = o] + δ. Every one-sided bound is
 * taken at level α/(4K) for K outcomes (a lower and an upper bound for each outcome and each
 * input), so if the mechanism is (ε, δ)-DP the chance that a check reports a violation anyway is at
 * most α (union bound), whatever the sample size.
 */
public final class DpTestSupport {
    private DpTestSupport() {}

    /** The outcome key used for ⊥. */
    public static final int BOTTOM = -1;

    /** Runs {@code m} on {@code h} {@code runs} times; counts per outcome (token, or BOTTOM). */
    public static Map<Integer, Long> outcomes(AggregationMechanism m, VoteHistogram h, int runs) {
        Map<Integer, Long> counts = new TreeMap<>();
        for (int i = 0; i < runs; i++) {
            Release r = m.release(h);
            counts.merge(r.isFail() ? BOTTOM : r.token().getAsInt(), 1L, Long::sum);
        }
        return counts;
    }

    /** One-sided Clopper–Pearson lower bound for a binomial proportion (level alpha). */
    public static double lowerBound(long successes, long trials, double alpha) {
        if (successes == 0) {
            return 0;
        }
        return new BetaDistribution(null, successes, trials - successes + 1)
                .inverseCumulativeProbability(alpha);
    }

    /** One-sided Clopper–Pearson upper bound for a binomial proportion (level alpha). */
    public static double upperBound(long successes, long trials, double alpha) {
        if (successes == trials) {
            return 1;
        }
        return new BetaDistribution(null, successes + 1, trials - successes)
                .inverseCumulativeProbability(1 - alpha);
    }

    /** A proven violation of the (ε, δ) inequality for one outcome and direction. */
    public record Violation(int outcome, String direction, double lower, double upper, double gap) {
        @Override
        public String toString() {
            return "outcome "
                    + (outcome == BOTTOM ? "⊥" : outcome)
                    + " ("
                    + direction
                    + "): Pr >= "
                    + lower
                    + " but e^eps * Pr' + delta <= "
                    + (lower - gap);
        }
    }

    /**
     * The violations of Pr[M(D) = o] ≤ e^ε·Pr[M(D′) = o] + δ (and D ↔ D′) that the samples prove at
     * joint confidence 1 − alpha (see class Javadoc). Empty = consistent with (ε, δ)-DP.
     */
    public static List<Violation> violations(
            Map<Integer, Long> onD,
            Map<Integer, Long> onNeighbour,
            long runs,
            double epsilon,
            double delta,
            double alpha) {
        TreeSet<Integer> keys = new TreeSet<>(onD.keySet());
        keys.addAll(onNeighbour.keySet());
        double level = alpha / (4.0 * keys.size());
        double eEps = Math.exp(epsilon);
        List<Violation> found = new ArrayList<>();
        for (int o : keys) {
            long a = onD.getOrDefault(o, 0L);
            long b = onNeighbour.getOrDefault(o, 0L);
            check(o, "D vs D'", a, b, runs, eEps, delta, level, found);
            check(o, "D' vs D", b, a, runs, eEps, delta, level, found);
        }
        return found;
    }

    private static void check(
            int o,
            String dir,
            long x,
            long y,
            long runs,
            double eEps,
            double delta,
            double level,
            List<Violation> found) {
        double lo = lowerBound(x, runs, level);
        double hi = upperBound(y, runs, level);
        double gap = lo - (eEps * hi + delta);
        if (gap > 0) {
            found.add(new Violation(o, dir, lo, hi, gap));
        }
    }

    /**
     * δ(ε) = Σ_x max(0, P(x) − e^ε·Q(x)) for P = ⊗_i N_ℤ(0, σ_i²) and Q = ⊗_i N_ℤ(s_i, σ_i²) (both
     * directions give the same value by symmetry): the tightest δ at ε of a mechanism that
     * post-processes integer counts plus independent discrete Gaussians whose neighbouring inputs
     * differ by the integer shifts s_i. Brute force over ±(14σ + |s| + 2) per coordinate (the tail
     * mass left out is below e^{−98}); up to 4 coordinates.
     */
    public static double discreteGaussianDelta(
            double epsilon, double[] sigmaSquared, int[] shifts) {
        int d = sigmaSquared.length;
        if (d != shifts.length || d < 1 || d > 4) {
            throw new IllegalArgumentException("need 1..4 coordinates with matching shifts");
        }
        double[][] p = new double[d][];
        double[][] q = new double[d][];
        int[] radius = new int[d];
        for (int i = 0; i < d; i++) {
            radius[i] = (int) Math.ceil(14 * Math.sqrt(sigmaSquared[i])) + Math.abs(shifts[i]) + 2;
            p[i] = new double[2 * radius[i] + 1];
            q[i] = new double[2 * radius[i] + 1];
            for (int x = -radius[i]; x <= radius[i]; x++) {
                p[i][x + radius[i]] = DiscreteGaussian.pmf(sigmaSquared[i], x);
                q[i][x + radius[i]] = DiscreteGaussian.pmf(sigmaSquared[i], x - shifts[i]);
            }
        }
        double eEps = Math.exp(epsilon);
        double[] acc = new double[1];
        sum(0, 1, 1, p, q, eEps, acc);
        return acc[0];
    }

    private static void sum(
            int i, double pp, double qq, double[][] p, double[][] q, double eEps, double[] acc) {
        if (i == p.length) {
            acc[0] += Math.max(0, pp - eEps * qq);
            return;
        }
        for (int x = 0; x < p[i].length; x++) {
            sum(i + 1, pp * p[i][x], qq * q[i][x], p, q, eEps, acc);
        }
    }
}
