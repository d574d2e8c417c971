package org.hotpate.eval.records;

import org.hotpate.core.accounting.PublicChargingRandomness;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.Sampler;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.core.vote.VoteHistogram;
import org.hotpate.teachers.ngram.NgramModel;

/**
 * One step of a {@link LeverStudy} run: the active teachers' votes (the job's sampler and step
 * randomness) and the public model's coordinated proposal.
 */
final class LeverStep {
    int[] votes;
    VoteHistogram histogram;
    int proposal;
    StepRandomness randomness;

    private LeverStep() {}

    static LeverStep at(
            LeverStudySetup s, int[] prefix, long seed, boolean[] active, Sampler sampler)
            throws Exception {
        int v = s.tok().vocabularySize();
        LeverStep st = new LeverStep();
        st.randomness = StepRandomness.forStep(seed, v);
        Sampler co = sampler;
        VoteHistogram.Builder b = VoteHistogram.builder(s.n());
        st.votes = new int[s.n()];
        for (int i = 0; i < s.n(); i++) {
            int vote = VoteHistogram.ABSTAIN;
            if (active == null || active[i]) {
                NgramModel.Next x = s.teachers().get(i).next("", prefix, 64);
                vote =
                        co.vote(
                                TeacherDistribution.SparseProbabilities.ofNonZero(
                                        x.tokens(), x.probs()),
                                st.randomness,
                                s.keys()[i]);
            }
            st.votes[i] = vote;
            b.vote(i, vote);
        }
        st.histogram = b.build();
        NgramModel.Next p = s.publicModel().next("", prefix, 64);
        st.proposal =
                PublicChargingRandomness.publicModelToken(
                        TeacherDistribution.SparseProbabilities.ofNonZero(p.tokens(), p.probs()),
                        st.randomness,
                        v);
        return st;
    }
}
