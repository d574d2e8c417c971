package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Issue 30 item 6: a lease is never taken from a job whose state cannot be read. A JobManager that
 * cannot be reached (here: nothing listens on port 1) may still run the job, so the silent claim
 * naming it stays in force. Fails on 4a555fd, where an unreachable JobManager counted as "ended".
 */
class ClusterJobStatusTest {
    @Test
    void aJobWhoseJobManagerCannotBeReachedMayStillRun() {
        assertThat(ClusterJobStatus.mayRun("http://127.0.0.1:1", "0123456789abcdef")).isTrue();
    }
}
