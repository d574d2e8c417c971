package org.hotpate.protocol;

import java.time.Duration;

/**
 * The fencing rule of a dataset lease (issue 39 item 3): the holder of a lease may release only
 * while it knows the lease cannot have lapsed. A claim lapses after {@code timeout} of broker time
 * without a heartbeat ({@link DatasetLeases}); the holder stops releasing {@code margin} after the
 * start of its last renewal that the broker acknowledged, well before that ({@code margin <
 * timeout}): the renewal's broker time is no earlier than its start, and both clocks advance at the
 * same rate over seconds. The rest of the timeout covers a release checked just before the margin
 * ran out and committed after it (a checkpoint completing, its transaction committing).
 *
 * <p>Once lost — not renewed within the margin, or fenced by a later holder that took the dataset
 * over — a fence stays lost: the job may not release again under this claim. Thread-safe: the
 * heartbeat renews it, the accountant checks it.
 */
public final class LeaseFence {
    private final long marginNanos;
    private final String claim;
    private volatile long renewedNanos;
    private volatile String lost; // null while the holder may release
    private int failures;

    /**
     * A fence for claim {@code claim} (its id and epoch, for the messages), renewed at {@code
     * nowNanos} ({@link System#nanoTime}).
     */
    public LeaseFence(String claim, Duration margin, Duration timeout, long nowNanos) {
        if (margin.isNegative() || margin.isZero() || margin.compareTo(timeout) >= 0) {
            throw new IllegalArgumentException(
                    "the lease's fencing margin must be positive and shorter than its timeout ("
                            + margin
                            + " vs "
                            + timeout
                            + ")");
        }
        this.claim = claim;
        this.marginNanos = margin.toNanos();
        this.renewedNanos = nowNanos;
    }

    /** A renewal that started at {@code startNanos} was acknowledged by the broker. */
    public synchronized void renewed(long startNanos) {
        failures = 0;
        if (startNanos - renewedNanos > 0) {
            renewedNanos = startNanos;
        }
    }

    /** A renewal failed; returns how many failed in a row. */
    public synchronized int failed() {
        return ++failures;
    }

    /** The claim no longer holds the dataset (a later holder fenced it); for good. */
    public synchronized void lose(String why) {
        if (lost == null) {
            lost = why;
        }
    }

    /**
     * Null while the holder may release at {@code nowNanos}; else why not. Past the margin without
     * a renewal the fence is lost for good.
     */
    public String check(long nowNanos) {
        String why = lost;
        if (why == null && nowNanos - renewedNanos > marginNanos) {
            lose(
                    "the dataset lease (claim "
                            + claim
                            + ") was not renewed for "
                            + Duration.ofNanos(nowNanos - renewedNanos).toSeconds()
                            + " s, past its fencing margin of "
                            + Duration.ofNanos(marginNanos).toSeconds()
                            + " s: the claim may lapse, and another run may take the dataset");
            why = lost;
        }
        return why;
    }

    public String claim() {
        return claim;
    }
}
