package org.hotpate.model;

/** One teacher's vote at one step; {@code token == -1} abstains. */
public record Vote(String runId, long sequenceId, int step, int attempt, long teacherId, int token)
        implements StepRef {
    public static final int ABSTAIN = -1;

    /** This vote with {@code token} instead (the same vote if it is already that token). */
    public Vote withToken(int token) {
        return token == this.token
                ? this
                : new Vote(runId, sequenceId, step, attempt, teacherId, token);
    }
}
