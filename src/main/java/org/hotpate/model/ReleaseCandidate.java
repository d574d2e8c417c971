package org.hotpate.model;

/**
 * What the reducer computed for one step, on its way to the run's accountant: the release is not
 * visible to anyone until the accountant has charged {@code privacyEventJson} (charge before emit).
 * {@code worstCaseEventJson} is the mechanism's data-independent worst case: the accountant admits
 * the step on it (never on the realized event, whose cost reveals the outcome) and then charges
 * {@code privacyEventJson}. {@code token == -1} is ⊥; {@code noisyCount} is NaN when the mechanism
 * releases none. Internal to the job: {@code chargedTeachers}, {@code votesCast} and {@code
 * closedAtMs} never reach a public output.
 */
public record ReleaseCandidate(
        String runId,
        long sequenceId,
        int step,
        int attempt,
        int token,
        String mechanism,
        String privacyEventJson,
        String worstCaseEventJson,
        double noisyCount,
        long[] chargedTeachers,
        int votesCast,
        int teachers,
        long closedAtMs) {

    /** The reducer key {@code run/sequence/step/attempt}. */
    public String stepKey() {
        return Keys.step(runId, sequenceId, step, attempt);
    }
}
