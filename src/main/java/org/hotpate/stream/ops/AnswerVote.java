package org.hotpate.stream.ops;

import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.model.Distribution;
import org.hotpate.model.PayloadKind;
import org.hotpate.stream.CoreBindings;

/**
 * The vote an answer stands for at a step — one rule for the two places that vote: the decode
 * operator (at the source, from the step the run derives) and the vote operator (from the open step
 * record). A model-side vote is checked (randomness version, token in [-1, |V|)); a distribution's
 * token ids must be below |V| and its coordinated (or independent) vote is drawn from the step's
 * public seed.
 */
final class AnswerVote {
    private AnswerVote() {}

    /** A model-side vote computed with another randomness version than the step's. */
    static final class VersionMismatch extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        VersionMismatch(String m) {
            super(m);
        }
    }

    /**
     * @param dist the answer's core distribution ({@link Distribution#toCore()}, already
     *     validated); ignored for a model-side vote
     * @throws VersionMismatch for a model-side vote of another randomness version
     * @throws IllegalArgumentException for a token outside the vocabulary
     */
    static int of(
            Distribution d,
            TeacherDistribution dist,
            long stepSeed,
            int randomnessVersion,
            int vocabularySize,
            CoreBindings.Voter voter) {
        int v = vocabularySize;
        if (d.kind() == PayloadKind.MODEL_VOTE) {
            if (d.randomnessVersion() != randomnessVersion) {
                throw new VersionMismatch(
                        "model-side vote used randomness version "
                                + d.randomnessVersion()
                                + "; the step uses "
                                + randomnessVersion);
            }
            if (d.voteToken() < -1 || d.voteToken() >= v) {
                throw new IllegalArgumentException(
                        "voted token must be in [-1, " + (v - 1) + "]; got " + d.voteToken());
            }
            return d.voteToken();
        }
        for (int t : d.tokens()) {
            if (t >= v) {
                throw new IllegalArgumentException(
                        "token ids must be < vocabulary size " + v + "; got " + t);
            }
        }
        return voter.vote(dist, stepSeed, v, d.teacherId());
    }
}
