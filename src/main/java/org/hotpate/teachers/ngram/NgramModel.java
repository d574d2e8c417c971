package org.hotpate.teachers.ngram;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A token n-gram language model with interpolated <b>Witten–Bell</b> smoothing over an abstract
 * {@link ContextStore} (pure code; the Flink teacher operator, {@code serve-teacher} and the tests
 * run the same class).
 *
 * <p>Training: each record's tokens are padded with {@code order − 1} begin-of-text markers ({@link
 * #BOS}, not a vocabulary id) and ended with the end-of-text token; every position adds one to c(h,
 * w) for each context h of length 0..order−1 before it.
 *
 * <p>Probability, for a context h of length m and h′ = h without its oldest token:
 *
 * <pre>
 *   P_WB(w | h) = (c(h, w) + N1+(h·) · P_WB(w | h′)) / (c(h) + N1+(h·))     if c(h) > 0
 *   P_WB(w | h) = P_WB(w | h′)                                              if c(h) = 0
 * </pre>
 *
 * where N1+(h·) is the number of distinct followers of h. Below the empty context the recursion
 * ends in the <b>backoff</b>: a public model of the same kind (built only from public text), or the
 * uniform distribution 1/|V| when there is none, scaled by the <b>backoff weight</b> γ ∈ (0, 1]
 * ({@code teacher.public-weight}; 1 = plain Witten–Bell): with γ &lt; 1 the share (1 − γ) of the
 * mass a private model would hand to the public model is left unlisted, so it abstains (it never
 * coordinates across teachers) instead of voting what the public model would say. The teacher's own
 * counts keep their full weight. Private counts of one model never enter another model: a private
 * model reads only its own store and the public model.
 *
 * <p>{@link #next} lists the {@code topK} most likely tokens among those with a count at some level
 * (private or public); tokens that have only the uniform share are never listed, and the unlisted
 * mass abstains (the vote's residual, DESIGN invariant 1), so a teacher with little data abstains
 * instead of voting for arbitrary tokens.
 */
public final class NgramModel {
    /** {@code teacher.public-weight}'s default: plain Witten–Bell. */
    public static final double DEFAULT_PUBLIC_WEIGHT = 1.0;

    /**
     * {@code teacher.public-order}'s default for a private model of order {@code order}: at most a
     * bigram. A public model as long as the private one makes every teacher continue a public text
     * verbatim once the prefix matches it (the teachers then agree on copying public sentences); a
     * bigram backoff keeps the public model's fluency without its sentences
     * (docs/privacy-efficiency.md, "teacher's public backoff").
     */
    public static int defaultPublicOrder(int order) {
        return Math.min(order, 2);
    }

    /** The begin-of-text padding marker in contexts (never a vocabulary id). */
    public static final int BOS = -1;

    private final int order;
    private final int vocabularySize;
    private final int endOfText;
    private final ContextStore store;
    private final NgramModel backoff;
    private final double backoffWeight;

    /** Bumped by every {@link #add}: a cached view of this model as a backoff is then stale. */
    private volatile long version;

    /**
     * @param backoff the public model below the empty context, or null for the uniform 1/|V|
     */
    public NgramModel(
            int order, int vocabularySize, int endOfText, ContextStore store, NgramModel backoff) {
        this(order, vocabularySize, endOfText, store, backoff, 1.0);
    }

    /**
     * @param backoff the public model below the empty context, or null for the uniform 1/|V|
     * @param backoffWeight γ ∈ (0, 1]: the backoff's mass is scaled by γ, the rest abstains
     */
    public NgramModel(
            int order,
            int vocabularySize,
            int endOfText,
            ContextStore store,
            NgramModel backoff,
            double backoffWeight) {
        checkArgument(order >= 1 && order <= 8, "teacher.order must be in [1, 8]; got " + order);
        checkArgument(
                backoffWeight > 0 && backoffWeight <= 1,
                "teacher.public-weight must be in (0, 1]; got " + backoffWeight);
        this.backoffWeight = backoffWeight;
        checkArgument(vocabularySize > 0, "vocabulary size must be > 0; got " + vocabularySize);
        checkArgument(
                endOfText >= 0 && endOfText < vocabularySize,
                "end-of-text token must be in [0, " + vocabularySize + "); got " + endOfText);
        this.order = order;
        this.vocabularySize = vocabularySize;
        this.endOfText = endOfText;
        this.store = store;
        this.backoff = backoff;
    }

    public int order() {
        return order;
    }

    /** γ, the weight of the backoff's mass (1 = plain Witten–Bell). */
    public double backoffWeight() {
        return backoffWeight;
    }

    /** Adds one record (its tokens, without padding) under {@code label} ("" = no label). */
    public void add(String label, int[] tokens) throws Exception {
        version++; // single writer (a model is trained from one thread)
        // Counted in memory first: one read and one write per distinct context of the record.
        int[] padded = pad(tokens);
        Map<String, TreeMap<Integer, Integer>> increments = new HashMap<>();
        for (int i = order - 1; i < padded.length; i++) {
            int w = padded[i];
            for (int m = 0; m < order; m++) {
                increments
                        .computeIfAbsent(
                                ContextKey.of(label, padded, i - m, i), k -> new TreeMap<>())
                        .merge(w, 1, Integer::sum);
            }
        }
        for (Map.Entry<String, TreeMap<Integer, Integer>> e : increments.entrySet()) {
            int[] ws = e.getValue().keySet().stream().mapToInt(Integer::intValue).toArray();
            int[] cs = e.getValue().values().stream().mapToInt(Integer::intValue).toArray();
            FollowerTable t = store.get(e.getKey());
            store.put(e.getKey(), (t == null ? FollowerTable.EMPTY : t).plusAll(ws, cs));
        }
    }

    private int[] pad(int[] tokens) {
        int[] p = new int[order - 1 + tokens.length + 1];
        Arrays.fill(p, 0, order - 1, BOS);
        System.arraycopy(tokens, 0, p, order - 1, tokens.length);
        p[p.length - 1] = endOfText;
        return p;
    }

    /** The follower tables of the contexts of {@code history}, shortest (empty) first. */
    List<FollowerTable> tables(String label, int[] history) throws Exception {
        int[] h = context(history);
        List<FollowerTable> out = new ArrayList<>(order);
        for (int m = 0; m < order; m++) {
            FollowerTable t = store.get(ContextKey.of(label, h, h.length - m, h.length));
            out.add(t == null ? FollowerTable.EMPTY : t);
        }
        return out;
    }

    /** The last order−1 tokens of BOS-padded history. */
    private int[] context(int[] history) {
        int[] padded = new int[order - 1 + history.length];
        Arrays.fill(padded, 0, order - 1, BOS);
        System.arraycopy(history, 0, padded, order - 1, history.length);
        return Arrays.copyOfRange(padded, padded.length - (order - 1), padded.length);
    }

    /** P_WB(w | history) (label "" = the unlabeled model). */
    public double probability(String label, int[] history, int w) throws Exception {
        return probability(tables(label, history), backoffTables(history), w);
    }

    private List<FollowerTable> backoffTables(int[] history) throws Exception {
        return backoff == null ? null : backoff.tables("", history);
    }

    private double probability(List<FollowerTable> own, List<FollowerTable> pub, int w) {
        double p = pub == null ? 1.0 / vocabularySize : interpolate(pub, w, 1.0 / vocabularySize);
        return interpolate(own, w, backoffWeight * p);
    }

    static double interpolate(List<FollowerTable> tables, int w, double base) {
        double p = base;
        for (FollowerTable t : tables) { // empty context first, longest last
            if (t.total() > 0) {
                p = (t.count(w) + t.distinct() * p) / (t.total() + t.distinct());
            }
        }
        return p;
    }

    /** A teacher's answer: the most likely listed tokens and their probabilities. */
    public record Next(int[] tokens, double[] probs) {}

    /**
     * The {@code topK} most likely next tokens after {@code history} (prompt ++ generated tokens)
     * among tokens with a count at some level, by probability (ties: smaller id first).
     *
     * <p>Fast path, same answer as the exhaustive definition ({@link #nextExhaustive}): the
     * backoff's candidates ranked by P_pub depend only on the context ({@link PublicView}, cached
     * per context and shared by every teacher), and a token's P is monotone in its empty-context
     * count and in P_pub, so an answer scores only the candidates that can still reach the k-th
     * ({@link TopKAnswer}) — not every token its user ever wrote nor the whole public vocabulary.
     */
    public Next next(String label, int[] history, int topK) throws Exception {
        if (topK <= 0) {
            return new Next(new int[0], new double[0]);
        }
        List<FollowerTable> own = tables(label, history);
        PublicView view = backoff == null ? null : backoff.viewAsBackoff(history, vocabularySize);
        return TopKAnswer.next(own, view, backoffWeight, 1.0 / vocabularySize, topK);
    }

    /**
     * The exhaustive definition of {@link #next}: every candidate scored and sorted (kept to test
     * the fast path against).
     */
    Next nextExhaustive(String label, int[] history, int topK) throws Exception {
        List<FollowerTable> own = tables(label, history);
        List<FollowerTable> pub = backoffTables(history);
        Set<Integer> candidates = new HashSet<>();
        for (List<FollowerTable> ts : pub == null ? List.of(own) : List.of(own, pub)) {
            for (FollowerTable t : ts) {
                for (int w : t.tokens()) {
                    candidates.add(w);
                }
            }
        }
        int[] c = candidates.stream().mapToInt(Integer::intValue).toArray();
        double[] p = new double[c.length];
        for (int i = 0; i < c.length; i++) {
            p[i] = probability(own, pub, c[i]);
        }
        return top(c, p, c.length, topK);
    }

    /** The first {@code topK} of {@code c[0, n)} by p descending, then id ascending. */
    static Next top(int[] c, double[] p, int n, int topK) {
        return answer(c, p, order(c, p, n), Math.max(0, Math.min(topK, n)));
    }

    /**
     * {@link #top} when {@code c[owned, n)} is already by p descending except among equal p (the
     * public-only candidates, walked in the public ranking): the teacher's own candidates are
     * sorted, the public ones put in order among their ties, and the two merged — the same answer
     * without sorting the public ones again.
     */
    static Next topMerged(int[] c, double[] p, int owned, int n, int topK) {
        int[] mine = order(c, p, owned);
        int m = n - owned;
        int[] pub = new int[m];
        for (int i = 0; i < m; i++) { // insertion: moves only ties that are out of id order
            int x = owned + i;
            int j = i - 1;
            while (j >= 0 && before(x, pub[j], c, p)) {
                pub[j + 1] = pub[j];
                j--;
            }
            pub[j + 1] = x;
        }
        int k = Math.max(0, Math.min(topK, n));
        int[] idx = new int[k];
        int i = 0;
        int j = 0;
        for (int r = 0; r < k; r++) {
            idx[r] = j >= m || (i < owned && before(mine[i], pub[j], c, p)) ? mine[i++] : pub[j++];
        }
        return answer(c, p, idx, k);
    }

    /** The candidates {@code idx[0, k)} of c as an answer, Σp kept ≤ 1. */
    private static Next answer(int[] c, double[] p, int[] idx, int k) {
        int[] tokens = new int[k];
        double[] probs = new double[k];
        double sum = 0;
        for (int i = 0; i < k; i++) {
            tokens[i] = c[idx[i]];
            probs[i] = p[idx[i]];
            sum += probs[i];
        }
        if (sum > 1.0) { // rounding only: keep Σp ≤ 1 for core validation
            for (int i = 0; i < k; i++) {
                probs[i] /= sum;
            }
        }
        return new Next(tokens, probs);
    }

    /**
     * Indices of {@code c[0, n)} sorted by p descending, then id ascending (a total order, so any
     * correct sort gives the same answer): a merge sort over primitive indices (the boxed sort it
     * replaced was a tenth of a run's samples, docs/privacy-efficiency.md).
     */
    private static int[] order(int[] c, double[] p, int n) {
        int[] idx = new int[n];
        int[] buf = new int[n];
        for (int i = 0; i < n; i++) {
            idx[i] = i;
        }
        for (int lo = 0; lo < n; lo += 16) { // runs of 16 by insertion
            int hi = Math.min(lo + 16, n);
            for (int i = lo + 1; i < hi; i++) {
                int x = idx[i];
                int j = i - 1;
                while (j >= lo && before(x, idx[j], c, p)) {
                    idx[j + 1] = idx[j];
                    j--;
                }
                idx[j + 1] = x;
            }
        }
        for (int width = 16; width < n; width *= 2) {
            for (int lo = 0; lo < n - width; lo += 2 * width) {
                int mid = lo + width;
                int hi = Math.min(lo + 2 * width, n);
                int i = lo;
                int j = mid;
                int k = lo;
                while (i < mid && j < hi) {
                    buf[k++] = before(idx[j], idx[i], c, p) ? idx[j++] : idx[i++];
                }
                while (i < mid) {
                    buf[k++] = idx[i++];
                }
                while (j < hi) {
                    buf[k++] = idx[j++];
                }
                System.arraycopy(buf, lo, idx, lo, hi - lo);
            }
        }
        return idx;
    }

    /** Whether candidate a ranks before b: higher p, then the smaller id. */
    private static boolean before(int a, int b, int[] c, double[] p) {
        return p[a] != p[b] ? p[a] > p[b] : c[a] < c[b];
    }

    /**
     * {@link #interpolate} for a token with no count at any level of {@code tables}: each non-empty
     * level maps p to (0 + d·p) / (t + d) — the same floating-point operations, so the same bits,
     * without looking the token up. Built once per answer (per view) and applied per candidate.
     */
    static final class ZeroCounts {
        private final double[] distinct;
        private final double[] denominator;
        private final int levels;

        ZeroCounts(List<FollowerTable> tables) {
            distinct = new double[tables.size()];
            denominator = new double[tables.size()];
            int l = 0;
            for (FollowerTable t : tables) { // empty context first, as interpolate
                if (t.total() > 0) {
                    distinct[l] = t.distinct();
                    denominator[l++] = t.total() + t.distinct();
                }
            }
            levels = l;
        }

        double interpolate(double base) {
            double p = base;
            for (int l = 0; l < levels; l++) {
                p = (0 + distinct[l] * p) / denominator[l];
            }
            return p;
        }
    }

    /**
     * The distinct tokens of {@code tables}, ascending: each table's tokens are sorted, so a merge
     * (linear; a private model's longer contexts' followers are among its empty context's, so the
     * merge mostly confirms the first table) instead of a sort.
     */
    static int[] union(List<FollowerTable> tables) {
        int[] acc = new int[0];
        for (FollowerTable t : tables) {
            acc = mergeDistinct(acc, t.tokens());
        }
        return acc;
    }

    /** The distinct values of two ascending arrays, ascending ({@code a} itself when b ⊆ a). */
    private static int[] mergeDistinct(int[] a, int[] b) {
        if (b.length == 0) {
            return a;
        }
        if (a.length == 0) {
            return b.clone();
        }
        int[] out = new int[a.length + b.length];
        int i = 0;
        int j = 0;
        int n = 0;
        while (i < a.length || j < b.length) {
            int x;
            if (j >= b.length || (i < a.length && a[i] < b[j])) {
                x = a[i++];
            } else if (i >= a.length || b[j] < a[i]) {
                x = b[j++];
            } else {
                x = a[i++];
                j++;
            }
            if (n == 0 || out[n - 1] != x) { // PublicView's tables may repeat ids within one
                out[n++] = x;
            }
        }
        return n == a.length ? a : Arrays.copyOf(out, n);
    }

    // ---- the backoff side of a context, shared by every private model's answers ----

    /**
     * The backoff model's tables of one context and its candidates (every token with a count at
     * some level) ranked by P_pub descending, then id ascending, with P_pub by token id. Public
     * only: built from the backoff model, never from a private model's counts.
     */
    static final class PublicView {
        final long backoffVersion;
        final int vocabularySize;
        final int[] tokens;
        final double[] probs;

        /** The candidates ascending by id, and their P_pub. */
        final int[] ids;

        final double[] idProbs;

        /** P_pub of a token with no count at any level (the same for every such token). */
        final double unseen;

        /** The end (exclusive) of the run of equal P_pub in {@link #probs} that holds rank r. */
        final int[] runEnd;

        PublicView(long backoffVersion, int vocabularySize, List<FollowerTable> tables) {
            this.backoffVersion = backoffVersion;
            this.vocabularySize = vocabularySize;
            double uniform = 1.0 / vocabularySize;
            ids = union(tables);
            idProbs = new double[ids.length];
            for (int i = 0; i < ids.length; i++) {
                idProbs[i] = interpolate(tables, ids[i], uniform);
            }
            int[] idx = order(ids, idProbs, ids.length);
            tokens = new int[ids.length];
            probs = new double[ids.length];
            for (int i = 0; i < ids.length; i++) {
                tokens[i] = ids[idx[i]];
                probs[i] = idProbs[idx[i]];
            }
            unseen = new ZeroCounts(tables).interpolate(uniform);
            runEnd = new int[probs.length];
            for (int r = probs.length - 1; r >= 0; r--) {
                runEnd[r] =
                        r + 1 < probs.length && probs[r + 1] == probs[r] ? runEnd[r + 1] : r + 1;
            }
        }

        /** P_pub(w | context): interpolate(tables, w, 1/|V|), looked up. */
        double probability(int w) {
            int i = Arrays.binarySearch(ids, w);
            return i >= 0 ? idProbs[i] : unseen;
        }
    }

    /** Contexts whose public view is kept (the in-flight sequences' contexts, LRU). */
    private static final int PUBLIC_VIEWS = 64;

    /**
     * Kept on the public model, so every private model backing off to it (one per teacher in the
     * evaluation, one per subtask in the job) shares one view per context.
     */
    private final Map<String, PublicView> publicViews =
            new LinkedHashMap<>(16, 0.75f, true) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<String, PublicView> e) {
                    return size() > PUBLIC_VIEWS;
                }
            };

    /** This model's side of {@code history} as the backoff of private models over |V| tokens. */
    private PublicView viewAsBackoff(int[] history, int privateVocabularySize) throws Exception {
        String key = ContextKey.of("", context(history), 0, order - 1);
        long v = version;
        synchronized (publicViews) {
            PublicView view = publicViews.get(key);
            if (view != null
                    && view.backoffVersion == v
                    && view.vocabularySize == privateVocabularySize) {
                return view;
            }
        }
        PublicView view = new PublicView(v, privateVocabularySize, tables("", history));
        synchronized (publicViews) {
            publicViews.put(key, view);
        }
        return view;
    }
}
