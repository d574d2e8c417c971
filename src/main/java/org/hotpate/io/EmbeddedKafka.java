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
import java.util.Properties;
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
    /** The broker's own (super-user) principal in secured mode. */
    public static final String ADMIN_USER = "admin";

    private final Path logDir;
    private final boolean deleteOnClose;
    private final int port;
    private final KafkaRaftServer server;
    private final String adminPassword; // null: PLAINTEXT broker

    private EmbeddedKafka(
            Path logDir,
            boolean deleteOnClose,
            int port,
            KafkaRaftServer server,
            String adminPassword) {
        this.logDir = logDir;
        this.deleteOnClose = deleteOnClose;
        this.port = port;
        this.server = server;
        this.adminPassword = adminPassword;
    }

    /**
     * Starts a broker whose client listener is SASL_PLAINTEXT with SCRAM-SHA-512 and whose
     * authorizer is KRaft's {@code StandardAuthorizer} with {@code allow.everyone.if.no.acl.found =
     * false}: unauthenticated clients cannot connect, and an authenticated principal may do only
     * what ACLs grant it ({@link #createScramUser}, {@link KafkaAcls}). The broker itself is the
     * super user {@value #ADMIN_USER} (its SCRAM credential is written when the log dir is
     * formatted); the controller listener uses SASL/PLAIN with the same static credential. A fresh
     * random admin password per broker; log in a temporary directory deleted on close.
     */
    public static EmbeddedKafka startSecured() {
        byte[] b = new byte[18];
        new java.security.SecureRandom().nextBytes(b);
        String password = java.util.HexFormat.of().formatHex(b);
        try {
            return start(Files.createTempDirectory("hotpate-kafka-"), true, password);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether clients must authenticate (SASL/SCRAM). */
    public boolean secured() {
        return adminPassword != null;
    }

    /**
     * Admin client properties: bootstrap servers, plus the super user's SASL settings on a secured
     * broker.
     */
    public Properties adminProperties() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        if (adminPassword != null) {
            p.putAll(saslClient("SCRAM-SHA-512", ADMIN_USER, adminPassword));
        }
        return p;
    }

    /** SASL_PLAINTEXT client settings for a principal (SCRAM-SHA-256/512 or PLAIN). */
    public static Properties saslClient(String mechanism, String user, String password) {
        return KafkaIo.saslProperties("SASL_PLAINTEXT", mechanism, user, password);
    }

    private static String jaas(
            String mechanism, String user, String password, boolean plainServer) {
        String client = KafkaIo.jaasConfig(mechanism, user, password);
        if (!plainServer) {
            return client;
        }
        // PlainLoginModule on a server listener also lists the accepted users: user_<name>="pw".
        return client.substring(0, client.length() - 1)
                + " user_"
                + user
                + "="
                + KafkaIo.jaasQuote(password)
                + ";";
    }

    /** Creates (or updates) a SCRAM-SHA-512 user on a secured broker. */
    public void createScramUser(String user, String password) {
        if (adminPassword == null) {
            throw new IllegalStateException("createScramUser needs a broker from startSecured()");
        }
        try (Admin admin = Admin.create(adminProperties())) {
            admin.alterUserScramCredentials(
                            java.util.List.of(
                                    new org.apache.kafka.clients.admin.UserScramCredentialUpsertion(
                                            user,
                                            new org.apache.kafka.clients.admin.ScramCredentialInfo(
                                                    org.apache.kafka.clients.admin.ScramMechanism
                                                            .SCRAM_SHA_512,
                                                    8192),
                                            password)))
                    .all()
                    .get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating user " + user, e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(
                    "creating SCRAM user " + user + " failed: " + e.getCause(), e.getCause());
        }
    }

    /** Starts a broker with its log in a fresh temporary directory (deleted on close). */
    public static EmbeddedKafka start() {
        try {
            return start(Files.createTempDirectory("hotpate-kafka-"), true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts a broker listening on {@code port} (0: any free port), its log in a fresh temporary
     * directory: a fixed port lets external teachers (the Python worker) connect to a run's
     * embedded broker.
     */
    public static EmbeddedKafka startOnPort(int port) {
        try {
            return start(Files.createTempDirectory("hotpate-kafka-"), true, null, port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a broker with its log under {@code logDir} (created, formatted if new). */
    public static EmbeddedKafka start(Path logDir, boolean deleteOnClose) {
        return start(logDir, deleteOnClose, null);
    }

    private static EmbeddedKafka start(Path logDir, boolean deleteOnClose, String adminPassword) {
        return start(logDir, deleteOnClose, adminPassword, 0);
    }

    private static EmbeddedKafka start(
            Path logDir, boolean deleteOnClose, String adminPassword, int fixedPort) {
        int port = fixedPort > 0 ? fixedPort : freePort();
        int controllerPort = freePort();
        try {
            Files.createDirectories(logDir);
            Properties p =
                    adminPassword == null
                            ? brokerProperties(logDir, port, controllerPort)
                            : securedBrokerProperties(logDir, port, controllerPort, adminPassword);
            Path propsFile = logDir.resolve("server.properties");
            try (var w = Files.newBufferedWriter(propsFile)) {
                p.store(w, "hotpate embedded broker");
            }
            java.nio.file.attribute.PosixFileAttributeView view =
                    Files.getFileAttributeView(
                            propsFile, java.nio.file.attribute.PosixFileAttributeView.class);
            if (view != null) { // the secured broker's file holds its admin password
                view.setPermissions(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            }
            formatStorage(propsFile, adminPassword);
            KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(p, false), Time.SYSTEM);
            server.startup();
            EmbeddedKafka k = new EmbeddedKafka(logDir, deleteOnClose, port, server, adminPassword);
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
        formatStorage(propsFile, null);
    }

    /**
     * Formats a KRaft log dir for {@code propsFile}; with {@code adminPassword} non-null it also
     * adds the SCRAM admin user (a secured broker).
     */
    public static void formatStorage(Path propsFile, String adminPassword) {
        java.util.List<String> args =
                new java.util.ArrayList<>(
                        java.util.List.of(
                                "format",
                                "-t",
                                Uuid.randomUuid().toString(),
                                "-c",
                                propsFile.toString(),
                                "--ignore-formatted"));
        if (adminPassword != null) {
            args.add("--add-scram");
            args.add("SCRAM-SHA-512=[name=" + ADMIN_USER + ",password=" + adminPassword + "]");
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc =
                StorageTool.execute(
                        args.toArray(String[]::new),
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

    /** {@link #brokerProperties} with SASL listeners and the StandardAuthorizer. */
    static Properties securedBrokerProperties(
            Path logDir, int port, int controllerPort, String adminPassword) {
        Properties p = brokerProperties(logDir, port, controllerPort);
        p.put(
                "listeners",
                "BROKER://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "BROKER://127.0.0.1:" + port);
        p.put("inter.broker.listener.name", "BROKER");
        p.put("listener.security.protocol.map", "BROKER:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
        p.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
        p.put("listener.name.broker.sasl.enabled.mechanisms", "SCRAM-SHA-512");
        p.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
        p.put(
                "listener.name.broker.scram-sha-512.sasl.jaas.config",
                jaas("SCRAM-SHA-512", ADMIN_USER, adminPassword, false));
        p.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
        p.put("sasl.mechanism.controller.protocol", "PLAIN");
        p.put(
                "listener.name.controller.plain.sasl.jaas.config",
                jaas("PLAIN", ADMIN_USER, adminPassword, true));
        p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        p.put("super.users", "User:" + ADMIN_USER);
        p.put("allow.everyone.if.no.acl.found", "false");
        return p;
    }

    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin admin = Admin.create(adminProperties())) {
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
            LocalFiles.deleteTreeQuietly(logDir);
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
