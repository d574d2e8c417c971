package org.hotpate.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.stream.ops.BoundPrometheusReporterFactory;

/**
 * The configuration files of a local cluster under {@code D/conf}, written at the first start of
 * {@code D} and kept afterwards (edit them and restart the cluster to change a setting):
 *
 * <ul>
 *   <li>{@code config.yaml} — Flink: everything bound to 127.0.0.1, RocksDB, checkpoints and
 *       savepoints under {@code D} (retained on cancellation), the cluster's restart strategy
 *       (exponential delay; jobs submitted by {@code ./hotpate run} keep it), fast heartbeats so a
 *       lost TaskManager is noticed within seconds, slots spread evenly over the TaskManagers, and
 *       the Prometheus reporter (each process gets its own port on its command line). The metrics
 *       are operator-only, so the reporter is hotpate's loopback-bound one ({@code
 *       stream.ops.BoundPrometheusReporterFactory}, {@code metrics.reporter.prom.host: 127.0.0.1},
 *       as in the embedded MiniCluster): Flink 2.2's own {@code PrometheusReporter} has no host
 *       option and listens on every interface. Its two classes are written to {@code
 *       D/lib/hotpate-metrics-reporter.jar} at every start ({@link #writeReporterJar}) and put on
 *       the members' classpath next to Flink's jars (docs/operations.md, "Metrics");
 *   <li>{@code kafka.properties} — one combined KRaft node on loopback (the embedded broker's
 *       settings, {@link EmbeddedKafka#brokerProperties});
 *   <li>{@code log4j.properties} — one rolling file per process, {@code D/logs/<name>.log}.
 * </ul>
 */
final class ClusterConfig {
    private ClusterConfig() {}

    /** The members' reporter: Flink's Prometheus reporter, bound to one address. */
    static final String PROMETHEUS_FACTORY = BoundPrometheusReporterFactory.class.getName();

    /** Where the members' reporter is bound by default: the metrics are operator-only. */
    static final String METRICS_HOST = BoundPrometheusReporterFactory.DEFAULT_HOST;

    /** The jar with the reporter's classes, under {@code D/lib}. */
    static final String REPORTER_JAR = "hotpate-metrics-reporter.jar";

    /** The Flink settings of a fresh cluster directory (keys checked by LocalClusterTest). */
    static Map<String, String> flink(Path dir, int slots, Map<String, Integer> ports) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("jobmanager.rpc.address", "127.0.0.1");
        c.put("jobmanager.rpc.port", Integer.toString(ports.get("jobmanager-rpc")));
        c.put("jobmanager.bind-host", "127.0.0.1");
        c.put("taskmanager.bind-host", "127.0.0.1");
        c.put("taskmanager.host", "127.0.0.1");
        c.put("rest.address", "127.0.0.1");
        c.put("rest.bind-address", "127.0.0.1");
        c.put("rest.port", Integer.toString(ports.get("rest")));
        c.put("jobmanager.memory.process.size", "1024m");
        c.put("taskmanager.memory.process.size", "1536m");
        c.put("taskmanager.numberOfTaskSlots", Integer.toString(slots));
        // A job of parallelism 2 gets a slot on each TaskManager, so losing one loses half the job
        // and the other TaskManager's free slots take it over.
        c.put("taskmanager.load-balance.mode", "SLOTS");
        c.put("parallelism.default", "2");
        c.put("pipeline.max-parallelism", "128");
        c.put("state.backend.type", "rocksdb");
        c.put("state.backend.incremental", "true");
        c.put("execution.checkpointing.dir", dir.resolve("checkpoints").toUri().toString());
        c.put(
                "execution.checkpointing.savepoint-dir",
                dir.resolve("savepoints").toUri().toString());
        c.put(
                "execution.checkpointing.externalized-checkpoint-retention",
                "RETAIN_ON_CANCELLATION");
        c.put("execution.checkpointing.num-retained", "3");
        c.put("io.tmp.dirs", dir.resolve("tmp").toString());
        c.put("state.backend.rocksdb.localdir", dir.resolve("tmp/rocksdb").toString());
        // The cluster's restart strategy: jobs that do not set one (./hotpate run on a cluster)
        // restart with it. Ten quick attempts, backing off to 10 s, reset after a minute of health.
        c.put("restart-strategy.type", "exponential-delay");
        c.put("restart-strategy.exponential-delay.initial-backoff", "1 s");
        c.put("restart-strategy.exponential-delay.max-backoff", "10 s");
        c.put("restart-strategy.exponential-delay.backoff-multiplier", "2.0");
        c.put("restart-strategy.exponential-delay.reset-backoff-threshold", "1 min");
        c.put("restart-strategy.exponential-delay.attempts-before-reset-backoff", "10");
        // A killed TaskManager refuses the heartbeat RPC: two refusals mark it lost (~2 s); the
        // timeout only matters for a hung process.
        c.put("heartbeat.interval", "1 s");
        c.put("heartbeat.timeout", "10 s");
        c.put("heartbeat.rpc-failure-threshold", "2");
        c.put("metrics.reporter.prom.factory.class", PROMETHEUS_FACTORY);
        c.put("metrics.reporter.prom.host", METRICS_HOST);
        return c;
    }

    static void writeFlink(Path conf, Map<String, String> settings) throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append(
                "# Flink configuration of this local cluster, written by ./hotpate cluster start\n");
        sb.append(
                "# at the first start of the directory. Edit it and restart the cluster to change it;\n");
        sb.append(
                "# each process gets metrics.reporter.prom.port on its command line (cluster.json).\n");
        settings.forEach((k, v) -> sb.append(k).append(": ").append(quote(v)).append('\n'));
        Files.writeString(conf.resolve("config.yaml"), sb.toString());
    }

    /**
     * Writes {@code libDir/}{@value #REPORTER_JAR}: the classes of {@link
     * BoundPrometheusReporterFactory} and its service entry, nothing else of hotpate (the job jar
     * brings its own classes; this one only needs Flink's jars, flink-metrics-prometheus included).
     * Rewritten at every start, so it matches the code that starts the members.
     */
    static Path writeReporterJar(Path libDir) throws IOException {
        Files.createDirectories(libDir);
        Path jar = libDir.resolve(REPORTER_JAR);
        Path tmp = libDir.resolve(REPORTER_JAR + ".tmp");
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(tmp), m)) {
            for (Class<?> c :
                    List.of(
                            BoundPrometheusReporterFactory.class,
                            BoundPrometheusReporterFactory.Reporter.class)) {
                String entry = c.getName().replace('.', '/') + ".class";
                try (InputStream in = c.getClassLoader().getResourceAsStream(entry)) {
                    if (in == null) {
                        throw new IOException("class file not found: " + entry);
                    }
                    out.putNextEntry(new JarEntry(entry));
                    in.transferTo(out);
                    out.closeEntry();
                }
            }
            out.putNextEntry(
                    new JarEntry("META-INF/services/" + MetricReporterFactory.class.getName()));
            out.write((PROMETHEUS_FACTORY + "\n").getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return jar;
    }

    private static String quote(String v) {
        return v.matches("[A-Za-z0-9_./:-]+( [a-z]+)?") ? v : "\"" + v + "\"";
    }

    static void writeKafka(Path conf, Path dataDir, int port, int controllerPort)
            throws IOException {
        Properties p = EmbeddedKafka.brokerProperties(dataDir, port, controllerPort);
        try (Writer w = Files.newBufferedWriter(conf.resolve("kafka.properties"))) {
            p.store(w, "Kafka broker of this local cluster, written by ./hotpate cluster start");
        }
    }

    static void writeLog4j(Path conf) {
        String text =
                """
                # log4j2 for every process of this local cluster: one rolling file per process,
                # named by the system property log.file (D/logs/<name>.log).
                rootLogger.level = INFO
                rootLogger.appenderRef.file.ref = MainAppender
                logger.zk.name = org.apache.flink.shaded.zookeeper3
                logger.zk.level = WARN
                appender.main.name = MainAppender
                appender.main.type = RollingFile
                appender.main.append = true
                appender.main.fileName = ${sys:log.file}
                appender.main.filePattern = ${sys:log.file}.%i
                appender.main.layout.type = PatternLayout
                appender.main.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
                appender.main.policies.type = Policies
                appender.main.policies.size.type = SizeBasedTriggeringPolicy
                appender.main.policies.size.size = 50MB
                appender.main.strategy.type = DefaultRolloverStrategy
                appender.main.strategy.max = 3
                """;
        try {
            Files.writeString(conf.resolve("log4j.properties"), text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
