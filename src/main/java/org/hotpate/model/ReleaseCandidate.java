package org.hotpate.model;

/**
 * What the reducer computed for one step, on its way to the run's accountant: the release is not
 * visible to anyone until the accountant has charged {@code privacyEventJson} (charge before emit;
 * the accountant admits the step on the mechanism's data-independent worst case, never on this
 * realized event, whose cost reveals the outcome). The event travels in its JSON form for this one
 * network hop only: the reducer and the accountant work on it as a value. {@code token == -1} is ⊥;
 * {@code noisyCount} is NaN when the mechanism releases none; {@code releasedVotes} is the count of
 * teachers that voted for {@code token} (-1 for ⊥). Internal to the job: {@code chargedTeachers},
 * {@code votesCast}, {@code releasedVotes}, {@code closedAtMs} and {@code involvedTeachers} never
 * reach a public output ({@code votesCast} and {@code releasedVotes}: only the operator-only
 * ledger).
 *
 * <p>Per-teacher schemes: {@code involvedTeachers} are the step's involved teachers (own vote = the
 * tested token, public coin 1), sorted; {@code chargedTeachers} those the outcome charges (Scheme
 * B: all of them; Scheme A: all of them on BETWEEN, else none). Empty for other mechanisms.
 */
public record ReleaseCandidate(
        String runId,
        long sequenceId,
        int step,
        int attempt,
        int token,
        String mechanism,
        String privacyEventJson,
        double noisyCount,
        long[] chargedTeachers,
        int votesCast,
        int releasedVotes,
        int teachers,
        long closedAtMs,
        long[] involvedTeachers)
        implements StepRef {}
