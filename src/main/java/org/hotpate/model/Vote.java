package org.hotpate.model;

/** One teacher's vote at one step; {@code token == -1} abstains. */
public record Vote(String runId, long sequenceId, int step, int attempt, long teacherId, int token)
        implements StepRef {
    public static final int ABSTAIN = -1;
}
