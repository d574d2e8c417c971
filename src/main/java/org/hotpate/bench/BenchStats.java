package org.hotpate.bench;

import java.util.Arrays;

/**
 * The statistics of {@code ./hotpate bench pipeline}: nearest-rank percentiles and the steady-state
 * window of a cumulative counter sampled over time. Pure functions; {@code BenchStatsTest} holds
 * them.
 */
public final class BenchStats {
    /** Relative block-rate deviation up to which a window counts as steady. */
    public static final double TOLERANCE = 0.25;

    /** Samples per batch of the MSER-5 warm-up rule. */
    public static final int MSER_BATCH = 5;

    /** Equal-time blocks a window is split into for the steadiness check. */
    public static final int BLOCKS = 4;

    private BenchStats() {}

    /**
     * The q-quantile by the nearest-rank method: the smallest value v of the sample with at least
     * ⌈q·N⌉ values ≤ v (so p50 of 1..100 is 50 and p99 is 99). NaN for an empty sample.
     */
    public static double percentile(double[] values, double q) {
        if (!(q > 0 && q <= 1)) {
            throw new IllegalArgumentException("q must be in (0, 1]; got " + q);
        }
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] v = values.clone();
        Arrays.sort(v);
        int rank = (int) Math.ceil(q * v.length - 1e-9); // 1-based
        return v[Math.max(0, Math.min(v.length - 1, rank - 1))];
    }

    /**
     * A window {@code [startS, endS]} of a cumulative series: its mean rate (count per second), the
     * largest relative deviation of a block's rate from it ({@code spread}), and whether that
     * spread is within the tolerance ({@code steady}).
     */
    public record Window(double startS, double endS, double rate, double spread, boolean steady) {
        public double lengthS() {
            return endS - startS;
        }

        /** Whether time {@code s} lies in the window. */
        public boolean contains(double s) {
            return s >= startS && s <= endS;
        }
    }

    /**
     * The steady-state window of a cumulative count {@code c} sampled at increasing times {@code t}
     * (seconds). The window ends at the last sample; its start is chosen by MSER-5 (White 1997, the
     * marginal standard error rule used to truncate warm-up in simulation output analysis): the
     * samples from {@code minStartS} on are grouped into batches of five, each batch giving a rate;
     * the start is the batch boundary d (at most half of the batches in, and leaving at least
     * {@code minLengthS} seconds) that minimises Σ_{i≥d}(x_i − x̄_d)² / (m − d)², the squared
     * standard error of the mean rate of what remains. The window is then {@code steady} if each of
     * {@code blocks} equal-time sub-windows runs within ± {@code tolerance} (relative) of the
     * window's rate. With too few samples after {@code minStartS} (less than two batches or {@code
     * minLengthS} seconds) the window is the last {@code minLengthS} seconds. Counts between
     * samples are interpolated linearly.
     */
    public static Window steadyWindow(
            double[] t,
            double[] c,
            double minStartS,
            double minLengthS,
            int blocks,
            double tolerance) {
        if (t.length != c.length || t.length < 2) {
            throw new IllegalArgumentException(
                    "need at least two samples of equal length; got " + t.length + ", " + c.length);
        }
        if (blocks < 1) {
            throw new IllegalArgumentException("blocks must be >= 1; got " + blocks);
        }
        int last = t.length - 1;
        double end = t[last];
        int i0 = 0;
        while (i0 < last && t[i0] < minStartS) {
            i0++;
        }
        int m = (last - i0) / MSER_BATCH;
        if (m < 2 || end - t[i0] < minLengthS) {
            double start = Math.max(t[0], end - minLengthS);
            return window(t, c, start < end ? start : t[0], end, blocks, tolerance);
        }
        double[] x = new double[m];
        int[] bound = new int[m + 1];
        for (int k = 0; k <= m; k++) {
            bound[k] = k == m ? last : i0 + k * MSER_BATCH;
        }
        for (int k = 0; k < m; k++) {
            x[k] = (c[bound[k + 1]] - c[bound[k]]) / (t[bound[k + 1]] - t[bound[k]]);
        }
        int best = 0;
        double bestStat = Double.POSITIVE_INFINITY;
        for (int d = 0; d <= m / 2 && end - t[bound[d]] >= minLengthS; d++) {
            double mean = 0;
            for (int k = d; k < m; k++) {
                mean += x[k];
            }
            mean /= m - d;
            double ss = 0;
            for (int k = d; k < m; k++) {
                ss += (x[k] - mean) * (x[k] - mean);
            }
            double stat = ss / ((double) (m - d) * (m - d));
            if (stat < bestStat) {
                bestStat = stat;
                best = d;
            }
        }
        return window(t, c, t[bound[best]], end, blocks, tolerance);
    }

    /** The window [start, end] of the series with its block spread. */
    static Window window(
            double[] t, double[] c, double start, double end, int blocks, double tolerance) {
        double rate = (at(t, c, end) - at(t, c, start)) / (end - start);
        double spread = 0;
        for (int b = 0; b < blocks; b++) {
            double a = start + (end - start) * b / blocks;
            double z = start + (end - start) * (b + 1) / blocks;
            double r = (at(t, c, z) - at(t, c, a)) / (z - a);
            spread =
                    Math.max(
                            spread,
                            rate > 0 ? Math.abs(r - rate) / rate : Double.POSITIVE_INFINITY);
        }
        return new Window(start, end, rate, spread, rate > 0 && spread <= tolerance);
    }

    /** The series at time x, linearly interpolated (clamped to the sampled range). */
    static double at(double[] t, double[] c, double x) {
        if (x <= t[0]) {
            return c[0];
        }
        for (int i = 1; i < t.length; i++) {
            if (x <= t[i]) {
                double f = (x - t[i - 1]) / (t[i] - t[i - 1]);
                return c[i - 1] + f * (c[i] - c[i - 1]);
            }
        }
        return c[c.length - 1];
    }
}
