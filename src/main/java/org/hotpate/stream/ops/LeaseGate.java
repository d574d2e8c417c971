package org.hotpate.stream.ops;

import java.util.concurrent.ConcurrentHashMap;
import org.hotpate.protocol.LeaseFence;

/**
 * The dataset leases held in this JVM, by run id, for the accountant of a job running here ({@code
 * ./hotpate run}'s MiniCluster): the accountant checks its run's {@link LeaseFence} before every
 * charge and before every checkpoint (whose transaction carries the releases and their charges), so
 * a run that cannot renew its lease stops releasing before the lease can lapse (issue 39 item 3). A
 * run without a lease here — a local ledger, whose lock cannot lapse while its driver lives, or a
 * job on a remote cluster, which its driver or JobManager cancels instead — is not checked.
 */
public final class LeaseGate {
    private static final ConcurrentHashMap<String, LeaseFence> FENCES = new ConcurrentHashMap<>();

    private LeaseGate() {}

    /** Run {@code runId}'s lease is held in this JVM under {@code fence}. */
    public static void open(String runId, LeaseFence fence) {
        FENCES.put(runId, fence);
    }

    /** Run {@code runId}'s lease under {@code fence} is released: nothing more under it. */
    public static void close(String runId, LeaseFence fence) {
        fence.lose("the dataset lease was released");
        FENCES.remove(runId, fence);
    }

    /** A release refused because the run's dataset lease may lapse or was taken over. */
    public static final class LeaseLostException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        LeaseLostException(String runId, String why) {
            super("run " + runId + " stops releasing: " + why);
        }
    }

    /** Throws {@link LeaseLostException} when run {@code runId}'s lease here may no longer hold. */
    public static void check(String runId) {
        LeaseFence f = runId == null ? null : FENCES.get(runId);
        if (f == null) {
            return;
        }
        String why = f.check(System.nanoTime());
        if (why != null) {
            throw new LeaseLostException(runId, why);
        }
    }
}
