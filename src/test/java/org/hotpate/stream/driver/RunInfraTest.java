package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.checkpoint.CheckpointFailureReason;
import org.apache.flink.util.SerializedThrowable;
import org.junit.jupiter.api.Test;

/**
 * A stop-with-savepoint right after a resume met tasks still initialising and the driver cancelled
 * the job (seen by hand on the local cluster: "Checkpoint triggering task kafka-sink … is not being
 * executed at the moment … Not all required tasks are currently running"). Only that reason is
 * retried; any other failure ends the stop as before.
 */
class RunInfraTest {
    private static ExecutionException asTheClientSeesIt(Throwable cause) {
        return new ExecutionException(new CompletionException(new CompletionException(cause)));
    }

    @Test
    void aDeclineForNowIsRetriedWhetherTheCauseCameBackTypedOrSerialized() {
        CheckpointException notRunning =
                new CheckpointException(
                        "Checkpoint triggering task kafka-sink: Writer (1/1) is not being executed"
                                + " at the moment. Aborting checkpoint.",
                        CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING);
        assertThat(RunInfra.declinedForNow(asTheClientSeesIt(notRunning))).isTrue();
        assertThat(RunInfra.declinedForNow(asTheClientSeesIt(new SerializedThrowable(notRunning))))
                .isTrue();
        // the next try, a second later, met the bounded start source finishing its part
        CheckpointException closing =
                new CheckpointException(CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_CLOSING);
        assertThat(RunInfra.declinedForNow(asTheClientSeesIt(closing))).isTrue();
        assertThat(RunInfra.declinedForNow(asTheClientSeesIt(new SerializedThrowable(closing))))
                .isTrue();
    }

    @Test
    void anyOtherFailureIsNot() {
        assertThat(
                        RunInfra.declinedForNow(
                                asTheClientSeesIt(
                                        new CheckpointException(
                                                CheckpointFailureReason.CHECKPOINT_DECLINED))))
                .isFalse();
        assertThat(RunInfra.declinedForNow(asTheClientSeesIt(new IllegalStateException("x"))))
                .isFalse();
        assertThat(RunInfra.declinedForNow(new ExecutionException(null))).isFalse();
    }
}
