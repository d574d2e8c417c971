package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.junit.jupiter.api.Test;

/**
 * Issue 39 item 4: checkpoints are pinned aligned — with unaligned ones a charge in flight could
 * land in a later transaction than its release. The job's configuration sets them off, and a job
 * built on an environment that turns them on (a cluster's override) is refused before it starts.
 */
class AlignedCheckpointsTest {
    private final JobConfig cfg = JobSpec.parse("", "x");

    @Test
    void theJobsConfigurationPinsAlignedCheckpoints() {
        Configuration c = HotPateJob.flinkConfiguration(cfg, "file:///tmp/cp", null);
        assertThat(c.getOptional(CheckpointingOptions.ENABLE_UNALIGNED)).contains(false);
    }

    @Test
    void aJobOnAnEnvironmentWithUnalignedCheckpointsIsRefused() {
        Configuration c = new Configuration();
        c.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        assertThatThrownBy(() -> HotPateJob.build(env, cfg, "r", null, null, null, s -> s))
                .isInstanceOf(JobSpec.SpecException.class)
                .hasMessageContaining("execution.checkpointing.unaligned.enabled must be false");
    }
}
