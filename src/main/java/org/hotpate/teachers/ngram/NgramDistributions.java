package org.hotpate.teachers.ngram;

import java.util.Arrays;
import java.util.List;

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
}
