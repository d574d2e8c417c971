package org.hotpate.teachers.ngram;

import java.util.Arrays;
import java.util.List;
import org.hotpate.teachers.ngram.NgramModel.PublicView;
import org.hotpate.teachers.ngram.NgramModel.ZeroCounts;

/**
 * {@link NgramModel#next}'s fast path: the top-k of one private model at one context, equal to the
 * exhaustive definition (every candidate scored, all sorted) without scoring every candidate.
 *
 * <p>The candidates fall in three kinds, each walked in an order that bounds what is left:
 *
 * <ol>
 *   <li>tokens with a count at a longer context than the empty one (few: what the teacher has to
 *       say at this prefix) — scored exactly;
 *   <li>tokens with only an empty-context count c₀ (most of a prolific user's vocabulary): their P
 *       is g(c₀, P_pub), each level a rounding-monotone map, so g is monotone in c₀ and in P_pub;
 *   <li>public-only tokens (no own count): P = g(0, P_pub), walked down the shared public ranking
 *       until the k-th public-only one is found and the next scores strictly lower (the rest of a
 *       run of equal P_pub skipped when it cannot tie in), or the next scores below the k-th of the
 *       own candidates scored so far.
 * </ol>
 *
 * The public walk also scores the own tokens it meets, so every own token it did not reach has
 * P_pub ≤ the P_pub where it stopped ({@code bound}). The rest of the own tokens are then walked by
 * c₀ descending (a counting sort; counts ≥ {@link #CAP} share one bucket, bounded by the largest)
 * and a bucket is scored only if g(c₀, bound) can still reach the k-th score so far. Stopping only
 * when the bound is strictly below the k-th keeps ties (broken by the smaller id) exact. What is
 * left per answer: one pass over the empty context's counts (no lookups) and exact scores for the
 * few candidates that can reach the k-th; the own candidates are sorted, the public-only ones come
 * in ranking order and are merged with them.
 */
final class TopKAnswer {
    /** Empty-context counts at or above this share the last bucket of the own-token walk. */
    static final int CAP = 64;

    private final int topK;

    /** The own candidates scored (tokens with a count of this teacher's), in no order. */
    private int[] cand = new int[16];

    private double[] score = new double[16];
    private int n;

    /** The public-only candidates taken, in the public ranking (so by score descending). */
    private int[] pubCand = new int[16];

    private double[] pubScore = new double[16];
    private int m;

    /**
     * The largest {@code topK} scores of the own candidates (until the own walk: then of every
     * candidate scored), a min-heap: heap[0] is the k-th once full.
     */
    private double[] heap;

    private int heapSize;

    private TopKAnswer(int topK) {
        this.topK = topK;
        this.heap = new double[Math.min(topK, 64)];
    }

    /**
     * @param own the model's tables at the context, the empty context first
     * @param view the backoff's side of the context, or null for the uniform backoff
     * @param gamma the backoff weight γ
     * @param uniform 1/|V|
     */
    static NgramModel.Next next(
            List<FollowerTable> own, PublicView view, double gamma, double uniform, int topK) {
        TopKAnswer a = new TopKAnswer(topK);
        FollowerTable empty = own.get(0);
        List<FollowerTable> longer = own.subList(1, own.size());
        int[] ids = empty.tokens();
        int[] counts = empty.counts();
        boolean[] done = new boolean[ids.length];
        Unigram g = new Unigram(empty, new ZeroCounts(longer), gamma);
        int[] context = NgramModel.union(longer);
        for (int w : context) {
            double base = view == null ? uniform : view.probability(w);
            a.add(w, NgramModel.interpolate(own, w, gamma * base));
            int i = Arrays.binarySearch(ids, w);
            if (i >= 0) {
                done[i] = true;
            }
        }
        double bound =
                view == null
                        ? uniform
                        : a.walkPublic(view, ids, counts, done, context, g, new ZeroCounts(own));
        a.walkOwn(ids, counts, done, g, view, uniform, bound);
        // own candidates first, then the public-only ones in ranking order (merged, not sorted)
        int[] c = Arrays.copyOf(a.cand, a.n + a.m);
        double[] p = Arrays.copyOf(a.score, a.n + a.m);
        System.arraycopy(a.pubCand, 0, c, a.n, a.m);
        System.arraycopy(a.pubScore, 0, p, a.n, a.m);
        return NgramModel.topMerged(c, p, a.n, a.n + a.m, topK);
    }

    /**
     * The public ranking, down to where no public-only token can enter the top-k; scores the own
     * tokens met on the way. Returns a bound on P_pub of every own token not scored.
     */
    private double walkPublic(
            PublicView view,
            int[] ids,
            int[] counts,
            boolean[] done,
            int[] context,
            Unigram g,
            ZeroCounts unseen) {
        int taken = 0;
        double kth = Double.NaN; // the k-th public-only score
        // the score of the last public-only token taken before the current run of equal P_pub
        double beforeRun = Double.NaN;
        double lastTaken = Double.NaN;
        int firstUnvisited = view.tokens.length;
        for (int r = 0; r < view.tokens.length; r++) {
            if (r > 0 && view.probs[r] != view.probs[r - 1]) {
                beforeRun = lastTaken;
            }
            int w = view.tokens[r];
            int i = Arrays.binarySearch(ids, w);
            if (i >= 0) {
                if (!done[i]) {
                    done[i] = true;
                    add(w, g.score(counts[i], view.probs[r]));
                }
                continue;
            }
            if (context.length > 0 && Arrays.binarySearch(context, w) >= 0) {
                continue; // scored already (a table not built by add: no empty-context count)
            }
            double pw = unseen.interpolate(g.gamma * view.probs[r]);
            if ((taken >= topK && pw < kth) || (full() && pw < heap[0])) {
                // every later public-only token scores <= pw, below the k-th (of the public-only
                // ones, or of the own ones scored so far)
                firstUnvisited = Math.min(firstUnvisited, r); // a skipped run may come first
                break;
            }
            if (taken >= topK && pw == kth && beforeRun != kth) {
                // The rest of this run of equal P_pub scores pw with larger ids than the run's
                // tokens taken, and no earlier run's token ties at kth: no public-only token of it
                // can enter the top-k (a long run of equally rare public tokens is skipped). Own
                // tokens in it are left to walkOwn, bounded by this run's P_pub.
                if (view.runEnd[r] > r + 1) {
                    firstUnvisited = Math.min(firstUnvisited, r + 1);
                }
                r = view.runEnd[r] - 1;
                continue;
            }
            if (m == pubCand.length) {
                pubCand = Arrays.copyOf(pubCand, 2 * m);
                pubScore = Arrays.copyOf(pubScore, 2 * m);
            }
            pubCand[m] = w;
            pubScore[m++] = pw;
            lastTaken = pw;
            if (++taken == topK) {
                kth = pw;
            }
        }
        return firstUnvisited < view.tokens.length
                ? Math.max(view.probs[firstUnvisited], view.unseen)
                : view.unseen;
    }

    /** The own tokens not scored yet, by empty-context count descending, while they can enter. */
    private void walkOwn(
            int[] ids,
            int[] counts,
            boolean[] done,
            Unigram g,
            PublicView view,
            double uniform,
            double bound) {
        int left = 0;
        int max = 0;
        int[] bucketSize = new int[CAP + 1];
        for (int i = 0; i < ids.length; i++) {
            if (!done[i]) {
                left++;
                max = Math.max(max, counts[i]);
                bucketSize[bucket(counts[i])]++;
            }
        }
        if (left == 0) {
            return;
        }
        // from here the heap holds the k largest of every candidate scored: the own ones and the
        // public-only ones (descending, so only while they can still enter)
        for (int j = 0; j < m && !(full() && pubScore[j] <= heap[0]); j++) {
            offer(pubScore[j]);
        }
        if (full() && g.score(max, bound) < heap[0]) {
            return; // the usual case for a teacher whose longer contexts fill the top-k
        }
        int[] start = new int[CAP + 1]; // bucket b at [start[b], start[b] + size), CAP first
        for (int b = CAP - 1; b >= 0; b--) {
            start[b] = start[b + 1] + bucketSize[b + 1];
        }
        int[] next = Arrays.copyOf(start, CAP + 1);
        int[] byCount = new int[left];
        for (int i = 0; i < ids.length; i++) {
            if (!done[i]) {
                byCount[next[bucket(counts[i])]++] = i;
            }
        }
        for (int b = CAP; b >= 0; b--) {
            int from = start[b];
            int to = from + bucketSize[b];
            if (from == to) {
                continue;
            }
            // the largest count in bucket b: b itself below CAP, the overall largest at CAP
            if (full() && g.score(b == CAP ? max : b, bound) < heap[0]) {
                return; // lower buckets score lower still
            }
            for (int x = from; x < to; x++) {
                int i = byCount[x];
                double base = view == null ? uniform : view.probability(ids[i]);
                add(ids[i], g.score(counts[i], base));
            }
        }
    }

    private static int bucket(int count) {
        return Math.max(0, Math.min(count, CAP));
    }

    private boolean full() {
        return heapSize == topK;
    }

    /** A scored own candidate. */
    private void add(int w, double s) {
        if (n == cand.length) {
            cand = Arrays.copyOf(cand, 2 * n);
            score = Arrays.copyOf(score, 2 * n);
        }
        cand[n] = w;
        score[n++] = s;
        offer(s);
    }

    private void offer(double s) {
        if (heapSize < topK) {
            if (heapSize == heap.length) {
                heap = Arrays.copyOf(heap, Math.min(topK, 2 * heapSize));
            }
            int j = heapSize++;
            while (j > 0 && heap[(j - 1) / 2] > s) {
                heap[j] = heap[(j - 1) / 2];
                j = (j - 1) / 2;
            }
            heap[j] = s;
        } else if (s > heap[0]) {
            int j = 0;
            while (true) {
                int c = 2 * j + 1;
                if (c >= heapSize) {
                    break;
                }
                if (c + 1 < heapSize && heap[c + 1] < heap[c]) {
                    c++;
                }
                if (heap[c] >= s) {
                    break;
                }
                heap[j] = heap[c];
                j = c;
            }
            heap[j] = s;
        }
    }

    /**
     * P of a token whose only count is c₀ in the empty context: {@link NgramModel#interpolate}'s
     * floating-point operations with zero counts above the empty context (so the same bits).
     */
    private static final class Unigram {
        final double gamma;
        private final boolean counted;
        private final double distinct;
        private final double denominator;
        private final ZeroCounts above;

        Unigram(FollowerTable empty, ZeroCounts above, double gamma) {
            this.gamma = gamma;
            this.counted = empty.total() > 0;
            this.distinct = empty.distinct();
            this.denominator = empty.total() + empty.distinct();
            this.above = above;
        }

        double score(int count, double publicProbability) {
            double p = gamma * publicProbability;
            if (counted) {
                p = (count + distinct * p) / denominator;
            }
            return above.interpolate(p);
        }
    }
}
