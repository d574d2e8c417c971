package org.hotpate.stream.driver;

import java.time.Duration;

/**
 * For ITCases outside this package: the dataset leases of this JVM run {@code n} times faster
 * ({@link DatasetHolds#timingForTests}) until the returned handle is closed, so that a test that
 * waits for a claim to go silent waits seconds, not a minute.
 */
public final class LeaseTimingForTests implements AutoCloseable {
    private LeaseTimingForTests() {}

    /** Leases {@code n} times faster (heartbeat, timeout and margin alike) until closed. */
    public static LeaseTimingForTests faster(int n) {
        DatasetHolds.timingForTests(DatasetHolds.LeaseTiming.DEFAULT.faster(n));
        return new LeaseTimingForTests();
    }

    /** The silence of broker time after which a claim of this JVM's timing lapses. */
    public static Duration timeout() {
        return DatasetHolds.timing().timeout();
    }

    @Override
    public void close() {
        DatasetHolds.timingForTests(DatasetHolds.LeaseTiming.DEFAULT);
    }
}
