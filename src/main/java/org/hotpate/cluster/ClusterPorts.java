package org.hotpate.cluster;

/**
 * The ports of a {@link LocalCluster}: where a new cluster's come from ({@link PortSource}), the
 * check that a fixed one is free before a member binds it, and the failure of a member whose port
 * another process took in between ({@link PortTakenException}: the start begins again on fresh
 * ports).
 */
final class ClusterPorts {
    /** Ports each Flink process may try for its Prometheus endpoint, from the one chosen. */
    static final int METRICS_PORT_RANGE = 10;

    /**
     * Where a new cluster's ports come from, by purpose ({@code rest}, {@code kafka}, {@code
     * jobmanager-rpc}, {@code kafka-controller}, {@code metrics <member>}): a port free right now.
     */
    @FunctionalInterface
    interface PortSource {
        int pick(String purpose);
    }

    /** A member could not bind one of its ports: another process took it. */
    static final class PortTakenException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortTakenException(String message) {
            super(message);
        }
    }

    private final PortSource source;
    private final boolean checkFixed;

    /**
     * Ports from {@code source}; {@code checkFixed}: the cluster's ports are fixed in cluster.json
     * (an existing cluster), so each is checked free before a member is launched on it again.
     */
    ClusterPorts(PortSource source, boolean checkFixed) {
        this.source = source;
        this.checkFixed = checkFixed;
    }

    /** A port free right now for {@code purpose}. */
    int pick(String purpose) {
        return source.pick(purpose);
    }

    /**
     * The port asked for with {@code option} ({@code wanted}, which must be free), or a free one.
     */
    int chosen(String purpose, String option, int wanted) {
        if (wanted == 0) {
            return source.pick(purpose);
        }
        if (!Members.isFree(wanted)) {
            throw new IllegalStateException(
                    "port "
                            + wanted
                            + " ("
                            + option
                            + ") is busy: another process listens on it; choose another or omit "
                            + option
                            + " for a free port");
        }
        return wanted;
    }

    /** Throws when {@code port}, fixed in cluster.json, is busy (an existing cluster only). */
    void requireFree(int port, String what) {
        if (checkFixed && !Members.isFree(port)) {
            throw new IllegalStateException(
                    "port "
                            + port
                            + " ("
                            + what
                            + ", fixed in cluster.json) is busy: another process listens on it."
                            + " Stop that process, or start a new cluster in another --dir");
        }
    }
}
