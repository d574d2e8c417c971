package org.hotpate.model;

/**
 * Votes of one step pre-aggregated on one subtask ({@code stream.ops.VoteCombiner}): parallel
 * arrays of teachers and tokens ({@code -1} abstains), so the step reducer touches its state once
 * per batch instead of once per vote.
 */
public record VoteBatch(
        String runId, long sequenceId, int step, int attempt, long[] teachers, int[] tokens)
        implements StepRef {
    public VoteBatch {
        if (teachers.length != tokens.length) {
            throw new IllegalArgumentException(
                    "teachers and tokens must have the same length; got "
                            + teachers.length
                            + " and "
                            + tokens.length);
        }
    }

    /** A batch of one vote. */
    public static VoteBatch of(Vote v) {
        return new VoteBatch(
                v.runId(),
                v.sequenceId(),
                v.step(),
                v.attempt(),
                new long[] {v.teacherId()},
                new int[] {v.token()});
    }

    public int size() {
        return teachers.length;
    }

    /** The i-th vote. */
    public Vote vote(int i) {
        return new Vote(runId, sequenceId, step, attempt, teachers[i], tokens[i]);
    }
}
