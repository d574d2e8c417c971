package org.hotpate.core.sampling;

import static org.hotpate.core.vote.VoteHistogram.ABSTAIN;

import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.TeacherDistribution.Dense;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.hotpate.core.sampling.TeacherDistribution.TopKLogits;

/**
 * Hot PATE Algorithm 1 (coordinated ensemble sampling): every teacher votes y = argmax_j p_j/u_j
 * with the SAME u_j ~ Exp(1) per token (the step's shared randomness), equivalently argmax ln p_j +
 * G_j with shared Gumbel noise G_j = −ln u_j (PRIVACY.md §1.1–1.2).
 *
 * <p>Residual rule: the unlisted mass r = 1 − Σp competes as the teacher's own extra candidate with
 * score r/u_res, where u_res ~ Exp(1) comes from the teacher's own stream (keyed by its teacher
 * key), never from the shared one. By the exponential race Pr[abstain] = r and Pr[vote = j] = p_j
 * exactly, and abstention never coordinates across teachers. A residual r ≤ {@link
 * TeacherDistribution#MASS_TOLERANCE} counts as 0, so a full distribution whose float sum is 1 −
 * 1e-16 never abstains.
 *
 * <p>Ties (probability 0 over the reals) go to the smallest token id; a listed token beats the
 * residual on a tie. Tokens with p_j = 0 (or logit −∞) are never chosen.
 *
 * <p>Privacy (Hot PATE Observation 1): for every fixed shared randomness, changing one teacher's
 * distribution changes only that teacher's vote, so the histogram has the sensitivity of cold PATE.
 */
final class CoordinatedSampler implements Sampler {
    static final CoordinatedSampler INSTANCE = new CoordinatedSampler();

    private CoordinatedSampler() {}

    @Override
    public String name() {
        return "coordinated";
    }

    @Override
    public int vote(TeacherDistribution d, StepRandomness r, long teacherKey) {
        if (d instanceof SparseProbabilities s) {
            return voteSparse(s, r, teacherKey);
        } else if (d instanceof Dense dense) {
            return voteDense(dense, r, teacherKey);
        } else if (d instanceof TopKLogits k) {
            return voteTopK(k, r, teacherKey);
        }
        throw new IllegalArgumentException("unknown distribution form " + d.getClass().getName());
    }

    // Hot path: one table lookup, one multiply and one compare per listed token. The listed mass
    // is the distribution's own Σp (summed in the same order at construction), so the loop carries
    // no add chain.
    private static int voteSparse(SparseProbabilities s, StepRandomness r, long teacherKey) {
        int best = ABSTAIN;
        double bestScore = 0;
        for (int i = 0, n = s.size(); i < n; i++) {
            double score = s.probAt(i) * r.invExp1(s.tokenAt(i));
            if (score >= bestScore && score > 0) {
                int t = s.tokenAt(i);
                if (score > bestScore || t < best) {
                    best = t;
                    bestScore = score;
                }
            }
        }
        return residualWins(1 - s.listedMass(), bestScore, r, teacherKey) ? ABSTAIN : best;
    }

    private static int voteDense(Dense d, StepRandomness r, long teacherKey) {
        int best = ABSTAIN;
        double bestScore = 0;
        double mass = 0;
        for (int t = 0, n = d.size(); t < n; t++) {
            double p = d.probAt(t);
            mass += p;
            double score = p * r.invExp1(t);
            if (score > bestScore) { // ascending ids: the first maximum is the smallest id
                best = t;
                bestScore = score;
            }
        }
        return residualWins(1 - mass, bestScore, r, teacherKey) ? ABSTAIN : best;
    }

    static boolean residualWins(
            double residual, double bestScore, StepRandomness r, long teacherKey) {
        if (residual <= TeacherDistribution.MASS_TOLERANCE) {
            return false;
        }
        return residual / r.residualExp1(teacherKey) > bestScore;
    }

    // Log space (Gumbel form): ln p_j = w_j/t − logZ, and logZ is common to all listed tokens.
    private static int voteTopK(TopKLogits k, StepRandomness r, long teacherKey) {
        double temperature = k.temperature();
        int best = ABSTAIN;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0, n = k.size(); i < n; i++) {
            double w = k.logitAt(i);
            if (w == Double.NEGATIVE_INFINITY) {
                continue;
            }
            int t = k.tokenAt(i);
            double score = w / temperature + r.gumbel(t);
            if (score > bestScore || (score == bestScore && t < best)) {
                best = t;
                bestScore = score;
            }
        }
        if (k.logNormalizer().isEmpty() || best == ABSTAIN) {
            // Without a normaliser the listed tokens carry all the mass; with no finite logit,
            // nothing is listed and the whole mass abstains.
            return best;
        }
        double z = k.logNormalizer().getAsDouble();
        double residual = 1 - k.listedMass();
        if (residual <= TeacherDistribution.MASS_TOLERANCE) {
            return best;
        }
        double residualScore = Math.log(residual) + z - Math.log(r.residualExp1(teacherKey));
        return residualScore > bestScore ? ABSTAIN : best;
    }
}
