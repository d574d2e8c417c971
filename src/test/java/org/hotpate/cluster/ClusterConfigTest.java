package org.hotpate.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.HeartbeatManagerOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.hotpate.stream.HotPateJob;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local cluster's files, checked without starting it: Flink parses config.yaml to the intended
 * values and knows every key; cluster.json has the documented shape; and the job's own
 * configuration leaves the restart strategy to the cluster.
 */
class ClusterConfigTest {
    private static final Map<String, Integer> PORTS =
            Map.of("rest", 8081, "jobmanager-rpc", 6123, "kafka", 9092, "kafka-controller", 9093);

    @Test
    void flinkReadsTheConfigAsIntended(@TempDir Path dir) throws Exception {
        Path conf = Files.createDirectories(dir.resolve("conf"));
        ClusterConfig.writeFlink(conf, ClusterConfig.flink(dir, 3, PORTS));
        Configuration c = GlobalConfiguration.loadConfiguration(conf.toString());
        assertThat(c.get(RestOptions.PORT)).isEqualTo(8081);
        assertThat(c.get(RestOptions.BIND_ADDRESS)).isEqualTo("127.0.0.1");
        assertThat(c.get(JobManagerOptions.BIND_HOST)).isEqualTo("127.0.0.1");
        assertThat(c.get(TaskManagerOptions.NUM_TASK_SLOTS)).isEqualTo(3);
        assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY)).isEqualTo("exponential-delay");
        assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS))
                .isEqualTo(10);
        assertThat(c.get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION))
                .isEqualTo(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        assertThat(c.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
                .isEqualTo(dir.resolve("checkpoints").toUri().toString());
        assertThat(c.get(HeartbeatManagerOptions.HEARTBEAT_TIMEOUT).toMillis()).isEqualTo(10_000);
        assertThat(c.get(PipelineOptions.MAX_PARALLELISM)).isEqualTo(128);
        assertThat(c.getString("metrics.reporter.prom.factory.class", null))
                .isEqualTo(ClusterConfig.PROMETHEUS_FACTORY);
        assertThat(Class.forName(ClusterConfig.PROMETHEUS_FACTORY)).isNotNull();
    }

    @Test
    void theMembersPrometheusReporterBindsLoopback(@TempDir Path dir) throws Exception {
        // The metrics are operator-only: Flink's own PrometheusReporter binds every interface.
        Path conf = Files.createDirectories(dir.resolve("conf"));
        ClusterConfig.writeFlink(conf, ClusterConfig.flink(dir, 2, PORTS));
        Configuration c = GlobalConfiguration.loadConfiguration(conf.toString());
        assertThat(c.getString("metrics.reporter.prom.factory.class", null))
                .isEqualTo("org.hotpate.stream.ops.BoundPrometheusReporterFactory");
        assertThat(c.getString("metrics.reporter.prom.host", null)).isEqualTo("127.0.0.1");
    }

    @Test
    void theReporterJarIsSelfContainedAndFoundByServiceLoader(@TempDir Path dir) throws Exception {
        Path jar = ClusterConfig.writeReporterJar(dir.resolve("lib"));
        assertThat(jar.getFileName().toString()).isEqualTo(ClusterConfig.REPORTER_JAR);
        // The members' classpath: Flink's jars (here the test classpath with hotpate's classes
        // hidden) and this jar. The factory must come from the jar, and start a loopback server.
        ClassLoader flinkOnly =
                new ClassLoader(getClass().getClassLoader()) {
                    @Override
                    protected Class<?> loadClass(String name, boolean resolve)
                            throws ClassNotFoundException {
                        if (name.startsWith("org.hotpate.")) {
                            throw new ClassNotFoundException(name);
                        }
                        return super.loadClass(name, resolve);
                    }
                };
        try (java.net.URLClassLoader members =
                new java.net.URLClassLoader(new java.net.URL[] {jar.toUri().toURL()}, flinkOnly)) {
            org.apache.flink.metrics.reporter.MetricReporterFactory factory =
                    java.util.ServiceLoader.load(
                                    org.apache.flink.metrics.reporter.MetricReporterFactory.class,
                                    members)
                            .stream()
                            .filter(
                                    p ->
                                            p.type()
                                                    .getName()
                                                    .equals(ClusterConfig.PROMETHEUS_FACTORY))
                            .findFirst()
                            .orElseThrow()
                            .get();
            assertThat(factory.getClass().getClassLoader()).isSameAs(members);
            int port;
            try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
                port = s.getLocalPort();
            }
            java.util.Properties p = new java.util.Properties();
            p.setProperty("port", Integer.toString(port));
            p.setProperty("host", ClusterConfig.METRICS_HOST);
            org.apache.flink.metrics.reporter.MetricReporter r = factory.createMetricReporter(p);
            try {
                java.net.http.HttpResponse<String> res =
                        java.net.http.HttpClient.newHttpClient()
                                .send(
                                        java.net.http.HttpRequest.newBuilder(
                                                        java.net.URI.create(
                                                                "http://127.0.0.1:"
                                                                        + port
                                                                        + "/metrics"))
                                                .build(),
                                        java.net.http.HttpResponse.BodyHandlers.ofString());
                assertThat(res.statusCode()).isEqualTo(200);
            } finally {
                r.close();
            }
        }
    }

    @Test
    void everyClusterKeyIsAFlinkOption(@TempDir Path dir) {
        Set<String> known = flinkKeys();
        for (String key : ClusterConfig.flink(dir, 2, PORTS).keySet()) {
            if (!key.startsWith("metrics.reporter.")) {
                assertThat(known).as("config.yaml key " + key).contains(key);
            }
        }
    }

    @Test
    void clusterJsonHasTheDocumentedShape(@TempDir Path dir) throws IOException {
        ClusterInfo info =
                new ClusterInfo(
                        new ClusterInfo.Member("jobmanager", 11, 9250),
                        List.of(
                                new ClusterInfo.Member("taskmanager-1", 12, 9251),
                                new ClusterInfo.Member("taskmanager-2", 13, 9252)),
                        new ClusterInfo.Member("kafka", 14, 0),
                        PORTS,
                        2);
        info.write(dir);
        JsonNode j = new ObjectMapper().readTree(dir.resolve("cluster.json").toFile());
        assertThat(j.at("/jobmanager/pid").asLong()).isEqualTo(11);
        assertThat(j.at("/jobmanager/rest").asText()).isEqualTo("http://127.0.0.1:8081");
        assertThat(j.at("/taskmanagers/0/pid").asLong()).isEqualTo(12);
        assertThat(j.at("/taskmanagers/1/pid").asLong()).isEqualTo(13);
        assertThat(j.at("/kafka/pid").asLong()).isEqualTo(14);
        assertThat(j.at("/kafka/bootstrap").asText()).isEqualTo("127.0.0.1:9092");
        assertThat(j.at("/taskmanagers/1/metrics").asText())
                .isEqualTo("http://127.0.0.1:9252/metrics");
        assertThat(ClusterInfo.read(dir)).isEqualTo(info);
    }

    @Test
    void aMissingClusterFileSaysHowToStartOne(@TempDir Path dir) {
        assertThatThrownBy(() -> ClusterInfo.read(dir))
                .hasMessageContaining("./hotpate cluster start --dir " + dir);
    }

    @Test
    void aBusyPortIsRefusedWithItsOption() throws IOException {
        try (java.net.ServerSocket busy =
                new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThat(Members.isFree(busy.getLocalPort())).isFalse();
            assertThatThrownBy(
                            () ->
                                    LocalCluster.start(
                                            new LocalCluster.Settings(
                                                    Files.createTempDirectory(
                                                            Path.of("target/tmp"), "busy"),
                                                    1,
                                                    1,
                                                    busy.getLocalPort(),
                                                    0,
                                                    java.time.Duration.ofSeconds(5)),
                                            null))
                    .hasMessageContaining("port " + busy.getLocalPort() + " (--rest-port) is busy");
        }
    }

    @Test
    void onAClusterTheJobLeavesTheRestartStrategyToTheCluster() {
        JobConfig cfg = JobSpec.parse("flink: {parallelism: 2, max-parallelism: 64}", "x");
        Configuration cluster = HotPateJob.flinkConfiguration(cfg, "file:///cp", null);
        assertThat(cluster.keySet()).noneMatch(k -> k.startsWith("restart-strategy"));
        assertThat(cluster.get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION))
                .isEqualTo(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        assertThat(cluster.get(PipelineOptions.MAX_PARALLELISM)).isEqualTo(64);

        Configuration mini = HotPateJob.flinkConfiguration(cfg, "file:///cp", "/tmp/x");
        assertThat(mini.get(RestartStrategyOptions.RESTART_STRATEGY)).isEqualTo("fixed-delay");
        assertThat(mini.get(PipelineOptions.MAX_PARALLELISM)).isEqualTo(64);
        assertThat(mini.keySet()).noneMatch(k -> k.startsWith("metrics.reporter"));
        JobConfig metered = JobSpec.parse("flink: {metrics-port: 9999}", "x");
        assertThat(
                        HotPateJob.flinkConfiguration(metered, "file:///cp", "/tmp/x")
                                .getString("metrics.reporter.prom.port", null))
                .isEqualTo("9999");
    }

    @Test
    void maxParallelismBelowTheParallelismIsRejectedWithItsKey() {
        assertThatThrownBy(() -> JobSpec.parse("flink: {parallelism: 4, max-parallelism: 2}", "x"))
                .hasMessageContaining("flink.max-parallelism");
    }

    private static Set<String> flinkKeys() {
        Set<String> keys = new HashSet<>();
        for (Class<?> c :
                List.of(
                        CheckpointingOptions.class,
                        StateBackendOptions.class,
                        RestartStrategyOptions.class,
                        CoreOptions.class,
                        JobManagerOptions.class,
                        TaskManagerOptions.class,
                        RestOptions.class,
                        RocksDBOptions.class,
                        HeartbeatManagerOptions.class,
                        PipelineOptions.class)) {
            for (Field f : c.getFields()) {
                if (Modifier.isStatic(f.getModifiers())
                        && ConfigOption.class.isAssignableFrom(f.getType())) {
                    try {
                        ConfigOption<?> o = (ConfigOption<?>) f.get(null);
                        keys.add(o.key());
                        for (FallbackKey fk : o.fallbackKeys()) {
                            keys.add(fk.getKey());
                        }
                    } catch (IllegalAccessException e) {
                        throw new AssertionError(e);
                    }
                }
            }
        }
        return keys;
    }
}
