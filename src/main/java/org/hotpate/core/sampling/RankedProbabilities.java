package org.hotpate.core.sampling;

import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.vote.VoteHistogram.ABSTAIN;

import java.util.Arrays;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;

/**
 * One teacher's sparse probabilities prepared for many coordinated votes — a model that answers
 * step after step with its own vote (the {@code model-vote} payload): the same entries in
 * decreasing probability, so the vote y = argmax p_j/u_j can stop at the first entry whose p_i · B
 * is below the best score so far, where B ≥ 1/u_j for every listed token ({@link
 * StepRandomness#maxInvExp1} over the listed id range). Every later score is p_j · (1/u_j) with p_j
 * ≤ p_i and 1/u_j ≤ B, and a rounded product is monotone in both factors, so no later entry can
 * reach the best score, nor tie it.
 *
 * <p>{@link #coordinatedVote} therefore equals {@code Samplers.coordinated().vote(source, r,
 * teacherKey)} for every step and key: the same scores, the same tie rule (smallest token id), the
 * same residual competitor from the source's own listed mass (summed in the source's order). Only
 * the work differs: for a Planet-Z teacher (950 listed tokens) it reads about a tenth of the
 * entries. When the listed ids leave the step's table there is no bound and every entry is read.
 * Immutable.
 */
public final class RankedProbabilities {
    private final int[] tokens; // by decreasing probability
    private final double[] probs;
    private final double listedMass; // the source's Σp, in the source's order
    private final int minToken;
    private final int maxToken;

    private RankedProbabilities(int[] tokens, double[] probs, double listedMass) {
        this.tokens = tokens;
        this.probs = probs;
        this.listedMass = listedMass;
        int lo = Integer.MAX_VALUE;
        int hi = -1;
        for (int t : tokens) {
            lo = Math.min(lo, t);
            hi = Math.max(hi, t);
        }
        this.minToken = lo;
        this.maxToken = hi;
    }

    /** The entries of {@code p} in decreasing probability (equal probabilities by token id). */
    public static RankedProbabilities of(SparseProbabilities p) {
        checkNotNull("p", p);
        Integer[] order = new Integer[p.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(
                order,
                (a, b) -> {
                    int c = Double.compare(p.probAt(b), p.probAt(a));
                    return c != 0 ? c : Integer.compare(p.tokenAt(a), p.tokenAt(b));
                });
        int[] tokens = new int[order.length];
        double[] probs = new double[order.length];
        for (int i = 0; i < order.length; i++) {
            tokens[i] = p.tokenAt(order[i]);
            probs[i] = p.probAt(order[i]);
        }
        return new RankedProbabilities(tokens, probs, p.listedMass());
    }

    /** Number of listed tokens. */
    public int size() {
        return tokens.length;
    }

    /**
     * The coordinated vote (Hot PATE Algorithm 1, {@link CoordinatedSampler}) of the teacher with
     * key {@code teacherKey} at the step {@code r}: a token id or {@code VoteHistogram.ABSTAIN}.
     */
    public int coordinatedVote(StepRandomness r, long teacherKey) {
        double bound = tokens.length == 0 ? 0 : r.maxInvExp1(minToken, maxToken);
        int best = ABSTAIN;
        double bestScore = 0;
        for (int i = 0; i < tokens.length; i++) {
            double p = probs[i];
            if (p * bound < bestScore) {
                break; // no later entry can reach bestScore (see the class comment)
            }
            double score = p * r.invExp1(tokens[i]);
            if (score >= bestScore && score > 0) {
                int t = tokens[i];
                if (score > bestScore || t < best) {
                    best = t;
                    bestScore = score;
                }
            }
        }
        return CoordinatedSampler.residualWins(1 - listedMass, bestScore, r, teacherKey)
                ? ABSTAIN
                : best;
    }
}
