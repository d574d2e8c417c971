package org.hotpate.eval;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.commons.math3.special.Erf;
import org.hotpate.core.vote.VoteHistogram;

/**
 * The r histograms of one sampler with what {@link PrivacyEfficiency}'s tuning and scoring need:
 * each draw's plurality and its count values, for simulated noisy argmaxes (seeded, tuning only).
 */
final class HistogramPool {
    final int teachers;
    private final int vocabularySize;
    private final DrawSet draws;
    private final VoteHistogram[] histograms;
    private final int[] max;
    private final int trials;
    private final int[][] countValues;
    private final int[][] countMultiplicity;

    HistogramPool(DrawSet draws, int vocabularySize, int trials) {
        this.trials = trials;
        this.draws = draws;
        this.teachers = draws.teachers();
        this.vocabularySize = vocabularySize;
        int r = draws.draws();
        histograms = new VoteHistogram[r];
        max = new int[r];
        countValues = new int[r][];
        countMultiplicity = new int[r][];
        for (int h = 0; h < r; h++) {
            groupCounts(h, draws.counts().get(h), vocabularySize);
            histograms[h] = draws.histogram(h);
            max[h] = histograms[h].maxCount();
        }
    }

    int size() {
        return histograms.length;
    }

    /** Distinct count values of draw h, descending (zero included), with their multiplicities. */
    private void groupCounts(int h, int[] counts, int vocabularySize) {
        java.util.TreeMap<Integer, Integer> m =
                new java.util.TreeMap<>(java.util.Comparator.reverseOrder());
        for (int c : counts) {
            m.merge(c, 1, Integer::sum);
        }
        int zeros = vocabularySize - counts.length;
        if (zeros > 0) {
            m.merge(0, zeros, Integer::sum);
        }
        countValues[h] = m.keySet().stream().mapToInt(Integer::intValue).toArray();
        countMultiplicity[h] = m.values().stream().mapToInt(Integer::intValue).toArray();
    }

    VoteHistogram histogram(int h) {
        return histograms[h];
    }

    boolean isPlurality(int h, int token) {
        return max[h] > 0 && histograms[h].count(token) == max[h];
    }

    /** Pr[answered] of the threshold step per draw: Pr[max c + N(0, σ1²) ≥ T], exactly. */
    double[] answerProbabilityByDraw(double sigma1, double threshold) {
        double[] p = new double[max.length];
        for (int h = 0; h < p.length; h++) {
            p[h] = 0.5 * Erf.erfc((threshold - max[h]) / (sigma1 * Math.sqrt(2)));
        }
        return p;
    }

    /** Noise trials per draw, so that every estimate rests on at least {@code trials} trials. */
    private int reps() {
        return (int) Math.ceil((double) trials / max.length);
    }

    double pluralityProbability(double scale, boolean laplace, SplittableRandom rnd) {
        return Arrays.stream(byDraw(scale, laplace, rnd)).average().orElse(0);
    }

    double[] pluralityProbabilityByDraw(double sigma, SplittableRandom rnd) {
        return byDraw(sigma, false, rnd);
    }

    private double[] byDraw(double scale, boolean laplace, SplittableRandom rnd) {
        int reps = reps();
        double[] p = new double[max.length];
        for (int h = 0; h < p.length; h++) {
            int hits = 0;
            for (int rep = 0; rep < reps; rep++) {
                hits += noisyArgmaxIsPlurality(h, scale, laplace, rnd) ? 1 : 0;
            }
            p[h] = (double) hits / reps;
        }
        return p;
    }

    /**
     * One simulated noisy argmax over the whole vocabulary. Tokens with equal counts are
     * exchangeable, so for each distinct count value c held by m tokens only the largest of their m
     * noises matters: it is drawn at once by inverse CDF (F^m), zero-count tokens included. Cost
     * O(distinct count values) instead of O(|V|).
     */
    private boolean noisyArgmaxIsPlurality(
            int h, double scale, boolean laplace, SplittableRandom rnd) {
        if (max[h] == 0) {
            return false;
        }
        int[] values = countValues[h];
        int[] mult = countMultiplicity[h];
        double bestPlurality =
                max[h] + maxOfNoises(mult[0], scale, laplace, rnd); // values[0] = max
        double bestOther = Double.NEGATIVE_INFINITY;
        for (int x = 1; x < values.length; x++) {
            bestOther = Math.max(bestOther, values[x] + maxOfNoises(mult[x], scale, laplace, rnd));
        }
        return bestPlurality > bestOther;
    }

    private static double noise(double scale, boolean laplace, SplittableRandom rnd) {
        if (laplace) {
            double u = rnd.nextDouble() - 0.5;
            return -scale * Math.signum(u) * Math.log(1 - 2 * Math.abs(u));
        }
        double u1 = 1.0 - rnd.nextDouble();
        return scale * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rnd.nextDouble());
    }

    private static double maxOfNoises(int m, double scale, boolean laplace, SplittableRandom rnd) {
        double u = 1.0 - rnd.nextDouble();
        double q = -Math.expm1(Math.log(u) / m); // 1 − F(max) = 1 − U^{1/m}
        if (laplace) {
            return q <= 0.5 ? -scale * Math.log(2 * q) : scale * Math.log(2 * (1 - q));
        }
        return scale * Math.sqrt(2) * Erf.erfcInv(2 * q);
    }
}
