package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkNotNull;

import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.Release;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.model.ReleaseCandidate;

/**
 * What a closed step would release, before the run's accountant charges it (charge before emit):
 * the token ({@code -1} = ⊥), the mechanism's privacy event for it, the noisy count where the
 * mechanism itself releases one (NaN otherwise), the teachers the outcome charges and — per-teacher
 * schemes — the involved teachers (both sorted; empty for ensemble mechanisms). Everything but the
 * token, the public part of the event and the noisy count stays inside the job.
 */
public record StepRelease(
        int token,
        PrivacyEvent event,
        double noisyCount,
        long[] chargedTeachers,
        long[] involvedTeachers) {

    public StepRelease {
        checkNotNull("event", event);
        checkNotNull("chargedTeachers", chargedTeachers);
        checkNotNull("involvedTeachers", involvedTeachers);
    }

    /**
     * The release on its way to the run's accountant: step {@code id} closed with {@code votesCast}
     * answering teachers of {@code teachers}, {@code releasedVotes} of them for the released token
     * (-1 for ⊥); {@code event} is this release's event in its wire form (the reducer→accountant
     * hop is a network shuffle).
     */
    public ReleaseCandidate candidate(
            StepId id,
            String mechanism,
            String event,
            int votesCast,
            int releasedVotes,
            int teachers,
            long atMs) {
        return new ReleaseCandidate(
                id.runId(),
                id.sequenceId(),
                id.step(),
                id.attempt(),
                token,
                mechanism,
                event,
                noisyCount,
                chargedTeachers,
                votesCast,
                token < 0 ? -1 : releasedVotes,
                teachers,
                atMs,
                involvedTeachers);
    }

    /**
     * An ensemble mechanism's release on the step's canonical histogram (sorted tokens and voters):
     * with noise keyed by the step, the same votes give the same release, also after a restore.
     */
    public static StepRelease of(AggregationMechanism mechanism, StepTally tally) {
        Release r = mechanism.release(tally.histogram());
        return new StepRelease(
                r.token().orElse(-1),
                r.event(),
                r.noisyCount().orElse(Double.NaN),
                r.chargedTeachers().stream().mapToLong(Integer::longValue).toArray(),
                new long[0]);
    }
}
