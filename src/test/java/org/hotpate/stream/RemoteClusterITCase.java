package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobOptions;
import org.hotpate.stream.driver.RunSession;
import org.junit.jupiter.api.Test;

/**
 * {@code flink.mode: remote}: the driver submits the job through the cluster's REST endpoint with
 * the shaded jar (as against a Flink session cluster), here a MiniCluster with its REST server on.
 * Needs {@code target/hotpate-0.1.0-SNAPSHOT-all.jar} (built in the package phase, before
 * failsafe).
 */
class RemoteClusterITCase {
    private static final Path JAR = Path.of("target/hotpate-0.1.0-SNAPSHOT-all.jar");

    @Test
    void theShadedJarRunsOnACluster() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "shaded jar not built (run mvn verify)");
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        // This JVM's class path already holds Kafka and the connector (a real cluster's does not):
        // resolve parent-first so the uploaded jar's copies do not clash with them.
        conf.set(CoreOptions.CLASSLOADER_RESOLVE_ORDER, "parent-first");
        try (EmbeddedKafka kafka = EmbeddedKafka.start();
                MiniCluster cluster =
                        new MiniCluster(
                                new MiniClusterConfiguration.Builder()
                                        .setConfiguration(conf)
                                        .setNumTaskManagers(1)
                                        .setNumSlotsPerTaskManager(2)
                                        .build())) {
            cluster.start();
            int port = cluster.getRestAddress().get().getPort();
            JobConfig base = HotPateJobITCase.config("remote", "", kafka.bootstrapServers());
            JobConfig cfg =
                    JobConfig.of(
                            base.values()
                                    .with(JobOptions.FLINK_MODE, "remote")
                                    .with(JobOptions.FLINK_HOST, "127.0.0.1")
                                    .with(JobOptions.FLINK_PORT, port)
                                    .with(JobOptions.FLINK_JAR, JAR.toString())
                                    .with(JobOptions.FLINK_PARALLELISM, 2)
                                    .with(JobOptions.FLINK_CHECKPOINT_INTERVAL_MS, 500L));
            try (RunSession run = RunSession.start(cfg, null)) {
                assertThat(run.await(Duration.ofSeconds(120), null)).isTrue();
                run.finish();
                assertThat(run.records()).hasSize(4);
                HotPateJobITCase.assertConsistent(run, cfg);
            }
        }
    }
}
