package org.hotpate.model;

import static org.hotpate.core.util.Preconditions.checkArgument;

/**
 * A driver's marker in the budget ledger, beside the spending entries: a run's {@code lease} on its
 * dataset (key {@code <dataset>/lease/<claim id>}: who holds the dataset, alive while {@code held}
 * and heartbeats come) or a {@code finished} mark (key {@code <dataset>/finished/<account>}: the
 * ledger account of a run that ended cleanly; a finished run is never resumed). Markers carry no
 * spending: the readers of the dataset's ε skip them.
 */
public record LedgerMarker(
        String dataset, String kind, String runId, String tag, boolean held, long atMs) {
    public static final String LEASE = "lease";
    public static final String FINISHED = "finished";

    public LedgerMarker {
        checkArgument(dataset != null && !dataset.isEmpty(), "dataset must be set");
        checkArgument(LEASE.equals(kind) || FINISHED.equals(kind), "unknown marker kind " + kind);
        checkArgument(runId != null && !runId.isEmpty(), "runId must be set");
        tag = tag == null ? "" : tag;
    }

    /** A lease claim (held) or its release, with the claim's id as tag. */
    public static LedgerMarker lease(
            String dataset, String runId, String claimId, boolean held, long atMs) {
        return new LedgerMarker(dataset, LEASE, runId, claimId, held, atMs);
    }

    /** The finished mark of ledger account {@code account}. */
    public static LedgerMarker finished(String dataset, String account, long atMs) {
        return new LedgerMarker(dataset, FINISHED, account, "", true, atMs);
    }

    public String key() {
        return dataset + "/" + kind + "/" + (LEASE.equals(kind) ? tag : runId);
    }
}
