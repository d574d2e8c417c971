package org.hotpate.protocol;

import java.util.LinkedHashMap;
import java.util.Map;
import org.hotpate.core.randomness.IndexedTeacherKeys;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.Sampler;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.core.sampling.TeacherDistribution;

/**
 * A teacher's vote at a step from its distribution, with the run's sampler (coordinated: Hot PATE;
 * independent: cold PATE) under the step's public seed. The step table (one u_j per token) is built
 * once per step and kept for the 256 most recent steps, so one instance serves one operator
 * instance (not thread-safe).
 */
public final class Voter {
    private static final int CACHED_STEPS = 256;

    private final Sampler sampler;
    private final Map<Long, StepRandomness> tables =
            new LinkedHashMap<>(64, 0.75f, true) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<Long, StepRandomness> e) {
                    return size() > CACHED_STEPS;
                }
            };
    private final IndexedTeacherKeys keys = new IndexedTeacherKeys();

    /** A voter with the sampler named {@code coordinated} or {@code independent}. */
    public Voter(String sampler) {
        this.sampler = Samplers.byName(sampler);
    }

    /**
     * Teacher {@code teacherId}'s vote (a token, or {@code VoteHistogram.ABSTAIN}) at the step with
     * public seed {@code stepSeed} over a vocabulary of {@code vocabularySize} tokens.
     */
    public int vote(TeacherDistribution d, long stepSeed, int vocabularySize, long teacherId) {
        return sampler.vote(
                d,
                tables.computeIfAbsent(stepSeed, k -> StepRandomness.forStep(k, vocabularySize)),
                keys.of((int) teacherId));
    }
}
