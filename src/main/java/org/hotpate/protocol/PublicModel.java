package org.hotpate.protocol;

import java.io.Serializable;
import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.hotpate.core.vote.VoteHistogram;

/**
 * The run's public model (no private data: the simulated ensemble's public distribution, or a flat
 * one), built where it is used — it travels in the job graph as this recipe, not as a table. Two
 * rules use it: the public token after a ⊥ under {@code generation.on-fail: fallback} ({@link
 * #fallbackToken}) and the tested token of the per-teacher schemes ({@link IndividualScheme}).
 */
@FunctionalInterface
public interface PublicModel extends Serializable {
    /** The public model's next-token distribution. */
    SparseProbabilities distribution();

    /**
     * The public-model token after a ⊥: the public model's coordinated vote under the step's public
     * seed (no private data, so no charge); its most likely token if it abstains.
     */
    static int fallbackToken(SparseProbabilities publicModel, long stepSeed, int vocabularySize) {
        int t =
                Samplers.coordinated()
                        .vote(
                                publicModel,
                                StepRandomness.forStep(stepSeed, vocabularySize),
                                SeedDerivation.teacherKey("public-model"));
        if (t != VoteHistogram.ABSTAIN) {
            return t;
        }
        int best = 0;
        for (int i = 1; i < publicModel.size(); i++) {
            if (publicModel.probAt(i) > publicModel.probAt(best)) {
                best = i;
            }
        }
        return publicModel.tokenAt(best);
    }
}
