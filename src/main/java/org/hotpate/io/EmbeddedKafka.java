package org.hotpate.io;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node Kafka broker (KRaft, combined broker + controller) running inside this JVM,
 * for {@code kafka: embedded} and the ITCases. Storage is formatted with Kafka's own {@code
 * StorageTool}; the server is {@code KafkaRaftServer} — the same code a standalone broker runs.
 *
 * <p>Settings follow BUILD-NOTES.md: replication factor 1 for the internal topics, {@code
 * transaction.max.timeout.ms=900000} (the job's transactional sinks use 300 s), and a 2 MiB log
 * cleaner buffer so the broker fits a small heap.
 */
public final class EmbeddedKafka implements AutoCloseable {
    private final Path logDir;
    private final boolean deleteOnClose;
    private final int port;
    private final KafkaRaftServer server;

    private EmbeddedKafka(Path logDir, boolean deleteOnClose, int port, KafkaRaftServer server) {
        this.logDir = logDir;
        this.deleteOnClose = deleteOnClose;
        this.port = port;
        this.server = server;
    }

    /** Starts a broker with its log in a fresh temporary directory (deleted on close). */
    public static EmbeddedKafka start() {
        try {
            return start(Files.createTempDirectory("hotpate-kafka-"), true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a broker with its log under {@code logDir} (created, formatted if new). */
    public static EmbeddedKafka start(Path logDir, boolean deleteOnClose) {
        int port = freePort();
        int controllerPort = freePort();
        try {
            Files.createDirectories(logDir);
            Properties p = brokerProperties(logDir, port, controllerPort);
            Path propsFile = logDir.resolve("server.properties");
            try (var w = Files.newBufferedWriter(propsFile)) {
                p.store(w, "hotpate embedded broker");
            }
            formatStorage(propsFile);
            KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(p, false), Time.SYSTEM);
            server.startup();
            EmbeddedKafka k = new EmbeddedKafka(logDir, deleteOnClose, port, server);
            k.awaitReady(Duration.ofSeconds(60));
            return k;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Formats the KRaft storage named by a {@code server.properties} file with a fresh cluster id
     * (Kafka's own {@code StorageTool format}); a directory already formatted is kept as it is.
     */
    public static void formatStorage(Path propsFile) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc =
                StorageTool.execute(
                        new String[] {
                            "format",
                            "-t",
                            Uuid.randomUuid().toString(),
                            "-c",
                            propsFile.toString(),
                            "--ignore-formatted"
                        },
                        new PrintStream(buf, true, StandardCharsets.UTF_8));
        if (rc != 0) {
            throw new IllegalStateException(
                    "formatting the Kafka log dir failed: " + buf.toString(StandardCharsets.UTF_8));
        }
    }

    /**
     * The settings of a single combined KRaft node on loopback (BUILD-NOTES.md), its log under
     * {@code logDir/data}; also the broker process of {@code ./hotpate cluster start}.
     */
    public static Properties brokerProperties(Path logDir, int port, int controllerPort) {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put(
                "listeners",
                "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", logDir.resolve("data").toString());
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "4");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("transaction.max.timeout.ms", "900000");
        p.put("log.cleaner.dedupe.buffer.size", "2097152");
        p.put("num.partitions", "2");
        p.put("auto.create.topics.enable", "false");
        return p;
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        try (Admin admin = Admin.create(p)) {
            while (true) {
                try {
                    if (!admin.describeCluster().nodes().get().isEmpty()) {
                        return;
                    }
                } catch (Exception e) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("embedded Kafka did not become ready", e);
                    }
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for Kafka", e);
                }
            }
        }
    }

    /** {@code 127.0.0.1:<port>}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        if (deleteOnClose) {
            try (Stream<Path> s = Files.walk(logDir)) {
                s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException ignored) {
                // best effort: a temp dir left behind is harmless
            }
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
