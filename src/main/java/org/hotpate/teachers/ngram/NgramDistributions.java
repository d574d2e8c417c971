package org.hotpate.teachers.ngram;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whole-vocabulary views of an {@link NgramModel}: the dense distribution P_WB(· | history) in
 * O(|V| · order) — the same numbers as {@link NgramModel#probability} token by token, computed once
 * per level instead of once per token. For a public model whose dense form a mechanism needs
 * (PMixED's p0 in {@code ./hotpate evaluate --workload records}).
 */
public final class NgramDistributions {
    private NgramDistributions() {}

    /**
     * P_WB(w | history) for every w in [0, vocabularySize): uniform 1/|V| interpolated up through
     * the model's levels (empty context first). A model with a backoff model is not supported here
     * (the public model has none).
     */
    public static double[] dense(NgramModel model, String label, int[] history, int vocabularySize)
            throws Exception {
        List<FollowerTable> tables = model.tables(label, history);
        double[] p = new double[vocabularySize];
        Arrays.fill(p, 1.0 / vocabularySize);
        for (FollowerTable t : tables) {
            if (t.total() == 0) {
                continue;
            }
            double den = t.total() + t.distinct();
            double keep = t.distinct() / den;
            for (int w = 0; w < p.length; w++) {
                p[w] *= keep;
            }
            int[] ws = t.tokens();
            int[] cs = t.counts();
            for (int x = 0; x < ws.length; x++) {
                if (ws[x] >= 0 && ws[x] < p.length) {
                    p[ws[x]] += cs[x] / den;
                }
            }
        }
        return p;
    }

    /**
     * The public backoff model's side of one history, computed once and shared by every teacher
     * asked at that history: its tables, and its candidate tokens ranked by probability (ties:
     * smaller id first). {@code publicModel} null = the uniform 1/|V| backoff, no candidates.
     */
    public static final class SharedBackoff {
        private final List<FollowerTable> tables;
        private final double uniform;
        private final int[] ranked;
        private final double[] rankedP;
        private final Map<Integer, Double> byToken = new HashMap<>();

        private SharedBackoff(List<FollowerTable> tables, int vocabularySize) {
            this.tables = tables;
            this.uniform = 1.0 / vocabularySize;
            java.util.TreeSet<Integer> c = new java.util.TreeSet<>();
            if (tables != null) {
                for (FollowerTable t : tables) {
                    for (int w : t.tokens()) {
                        c.add(w);
                    }
                }
            }
            int[] tokens = c.stream().mapToInt(Integer::intValue).toArray();
            double[] p = new double[tokens.length];
            Integer[] idx = new Integer[tokens.length];
            for (int i = 0; i < tokens.length; i++) {
                p[i] = probability(tokens[i]);
                idx[i] = i;
                byToken.put(tokens[i], p[i]);
            }
            Arrays.sort(
                    idx,
                    (a, b) -> p[a] != p[b] ? Double.compare(p[b], p[a]) : tokens[a] - tokens[b]);
            ranked = new int[tokens.length];
            rankedP = new double[tokens.length];
            for (int i = 0; i < idx.length; i++) {
                ranked[i] = tokens[idx[i]];
                rankedP[i] = p[idx[i]];
            }
        }

        /** The shared side of {@code history} for teachers whose backoff is {@code publicModel}. */
        public static SharedBackoff at(NgramModel publicModel, int[] history, int vocabularySize)
                throws Exception {
            return new SharedBackoff(
                    publicModel == null ? null : publicModel.tables("", history), vocabularySize);
        }

        /** P_pub(w | history) (1/|V| without a public model). */
        public double probability(int w) {
            Double p = byToken.get(w);
            if (p != null) {
                return p;
            }
            return tables == null ? uniform : interpolate(tables, w, uniform);
        }
    }

    /**
     * The same answer as {@code teacher.next(label, history, topK)} for a teacher whose backoff is
     * the model of {@code shared} — the top-K tokens among those with a count in the teacher's or
     * the public tables — in O(teacher's tokens + K) per teacher instead of O(public vocabulary):
     * off the teacher's own tokens its probability is the public one times Π d/(t + d) over its
     * non-empty levels, which keeps the public ranking. {@code teacher} must have been built with
     * that backoff (or none, for the uniform shared side).
     */
    public static NgramModel.Next next(
            NgramModel teacher, String label, int[] history, int topK, SharedBackoff shared)
            throws Exception {
        List<FollowerTable> own = teacher.tables(label, history);
        double scale = teacher.backoffWeight();
        double weight = teacher.backoffWeight();
        java.util.TreeSet<Integer> mine = new java.util.TreeSet<>();
        for (FollowerTable t : own) {
            if (t.total() > 0) {
                scale *= t.distinct() / (double) (t.total() + t.distinct());
            }
            for (int w : t.tokens()) {
                mine.add(w);
            }
        }
        int size = mine.size();
        int[] c = new int[size + Math.min(topK, shared.ranked.length)];
        double[] p = new double[c.length];
        int k = 0;
        for (int w : mine) {
            c[k] = w;
            p[k++] = interpolate(own, w, weight * shared.probability(w));
        }
        for (int i = 0; i < shared.ranked.length && k < c.length; i++) {
            if (!mine.contains(shared.ranked[i])) {
                c[k] = shared.ranked[i];
                p[k++] = scale * shared.rankedP[i];
            }
        }
        Integer[] idx = new Integer[k];
        for (int i = 0; i < k; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (a, b) -> p[a] != p[b] ? Double.compare(p[b], p[a]) : c[a] - c[b]);
        int n = Math.min(topK, k);
        int[] tokens = new int[n];
        double[] probs = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            tokens[i] = c[idx[i]];
            probs[i] = p[idx[i]];
            sum += probs[i];
        }
        if (sum > 1.0) {
            for (int i = 0; i < n; i++) {
                probs[i] /= sum;
            }
        }
        return new NgramModel.Next(tokens, probs);
    }

    private static double interpolate(List<FollowerTable> tables, int w, double base) {
        double p = base;
        for (FollowerTable t : tables) {
            if (t.total() > 0) {
                p = (t.count(w) + t.distinct() * p) / (t.total() + t.distinct());
            }
        }
        return p;
    }
}
