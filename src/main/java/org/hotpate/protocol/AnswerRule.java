package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkNotNull;

import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.model.Distribution;
import org.hotpate.model.PayloadKind;
import org.hotpate.model.Rejected;
import org.hotpate.model.Vote;

/**
 * The answer rule: what a teacher's answer to a step stands for — validated and turned into its
 * vote once, where the answer enters the job (at the source). A step's public seed, randomness
 * version and vocabulary are functions of the run and the step's (sequence, position, attempt)
 * ({@link RunShape}), so the vote needs no step record.
 *
 * <p>In order: a teacher outside 0..n−1 is UNKNOWN_TEACHER; a payload that fails core's structural
 * checks ({@link Distribution#toCore()}: NaN, negative, mass &gt; 1, duplicate tokens, empty raw
 * samples) is INVALID_DISTRIBUTION. An answer for a step outside the run's bounds ({@link
 * RunShape#contains}) can never meet an open step: it is {@link Verdict#outsideRun() outside the
 * run} and carries no vote (the vote operator holds it for one step deadline, as any answer to a
 * step that has not opened, and then dead-letters it). Otherwise: a model-side vote computed with
 * another randomness version is RANDOMNESS_VERSION, a voted token outside [−1, |V|) or a listed
 * token id ≥ |V| is INVALID_DISTRIBUTION, and a distribution is voted with the run's sampler under
 * the step's public seed.
 */
public final class AnswerRule {
    private AnswerRule() {}

    /**
     * What an answer stands for: a vote ({@link #vote}, {@code ABSTAIN} included), no vote because
     * its step lies outside the run, or a rejection ({@link #reason} and {@link #detail}).
     */
    public record Verdict(int vote, boolean outsideRun, String reason, String detail) {
        static Verdict of(int vote) {
            return new Verdict(vote, false, null, null);
        }

        static Verdict reject(String reason, String detail) {
            return new Verdict(Vote.ABSTAIN, false, reason, detail);
        }

        public boolean rejected() {
            return reason != null;
        }

        /** The answer as a vote: its token, or an abstention for an answer outside the run. */
        public Vote asVote(Distribution d) {
            return new Vote(d.runId(), d.sequenceId(), d.step(), d.attempt(), d.teacherId(), vote);
        }
    }

    /** The verdict on answer {@code d} of a run of {@code teachers} teachers with this shape. */
    public static Verdict judge(Distribution d, int teachers, RunShape shape, Voter voter) {
        checkNotNull("answer", d);
        if (d.teacherId() < 0 || d.teacherId() >= teachers) {
            return Verdict.reject(
                    Rejected.UNKNOWN_TEACHER,
                    "teacher " + d.teacherId() + " is not in 0.." + (teachers - 1));
        }
        TeacherDistribution dist = null;
        if (d.kind() != PayloadKind.MODEL_VOTE) {
            try {
                dist = d.toCore();
            } catch (IllegalArgumentException e) {
                return Verdict.reject(Rejected.INVALID_DISTRIBUTION, e.getMessage());
            }
        }
        if (!shape.contains(d)) {
            return new Verdict(Vote.ABSTAIN, true, null, null);
        }
        int v = shape.vocabularySize();
        if (d.kind() == PayloadKind.MODEL_VOTE) {
            if (d.randomnessVersion() != RunShape.RANDOMNESS_VERSION) {
                return Verdict.reject(
                        Rejected.RANDOMNESS_VERSION,
                        "model-side vote used randomness version "
                                + d.randomnessVersion()
                                + "; the step uses "
                                + RunShape.RANDOMNESS_VERSION);
            }
            if (d.voteToken() < -1 || d.voteToken() >= v) {
                return Verdict.reject(
                        Rejected.INVALID_DISTRIBUTION,
                        "voted token must be in [-1, " + (v - 1) + "]; got " + d.voteToken());
            }
            return Verdict.of(shape.earlyStop().mask(d.step(), d.voteToken()));
        }
        for (int t : d.tokens()) {
            if (t >= v) {
                return Verdict.reject(
                        Rejected.INVALID_DISTRIBUTION,
                        "token ids must be < vocabulary size " + v + "; got " + t);
            }
        }
        try {
            return Verdict.of(
                    shape.earlyStop()
                            .mask(d.step(), voter.vote(dist, shape.seed(d), v, d.teacherId())));
        } catch (IllegalArgumentException e) {
            return Verdict.reject(Rejected.INVALID_DISTRIBUTION, e.getMessage());
        }
    }
}
