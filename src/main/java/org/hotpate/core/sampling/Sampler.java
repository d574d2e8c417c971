package org.hotpate.core.sampling;

import org.hotpate.core.randomness.StepRandomness;

/**
 * Turns one teacher's next-token distribution into one vote at one step. For every teacher and
 * token, Pr[vote = j] = p_j and Pr[abstain] = 1 − Σp (DESIGN.md invariant 1); implementations
 * differ only in the joint law across teachers.
 */
public interface Sampler {
    /**
     * The vote of the teacher with key {@code teacherKey} (see {@code SeedDerivation.teacherKey}):
     * a token id, or {@code VoteHistogram.ABSTAIN}. Deterministic in (d, r, teacherKey).
     */
    int vote(TeacherDistribution d, StepRandomness r, long teacherKey);

    /** "coordinated" or "independent". */
    String name();
}
