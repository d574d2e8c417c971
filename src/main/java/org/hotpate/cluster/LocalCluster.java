package org.hotpate.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.LocalFiles;

/**
 * A standalone Flink session cluster and a KRaft Kafka broker on this machine, each member its own
 * JVM — a JobManager ({@code StandaloneSessionClusterEntrypoint}), N TaskManagers ({@code
 * TaskManagerRunner}) and a broker ({@code kafka.Kafka}) — started from the jars {@code mvn
 * package} copies from Maven Central ({@link ClusterLib}), bound to 127.0.0.1, everything under one
 * directory D: {@code D/conf} (written once, {@link ClusterConfig}), {@code D/lib} (the metrics
 * reporter's jar, written at every start), {@code D/logs}, {@code D/kafka}, {@code D/checkpoints},
 * {@code D/savepoints}, {@code D/tmp}, and {@code D/cluster.json} ({@link ClusterInfo}).
 *
 * <p>{@link #start} on a directory that already has a cluster restarts whatever member is not
 * running, with the same ports (a lost TaskManager, a broker that was stopped), and adds
 * TaskManagers up to the count asked for. {@link #stop} stops every process of D by pid —
 * gracefully, then by force — including any not listed in cluster.json.
 *
 * <p>Ports. A new cluster's ports are chosen free ({@link Members#freePort}, below the kernel's
 * ephemeral range) and bound later by the member processes, so another process can take one in
 * between. A member that dies because its port was taken ({@link PortTakenException}) makes the
 * start begin again on fresh ports (up to {@link #START_ATTEMPTS} times) after stopping everything
 * it launched; each Flink process picks its Prometheus port itself from a small range and the port
 * it bound is read back from its log. A start that fails leaves no process behind, and a new
 * cluster that fails leaves no {@code cluster.json}, configuration or broker storage either (only
 * the logs).
 */
public final class LocalCluster {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JM_MAIN =
            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
    private static final String TM_MAIN = "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";
    private static final String KAFKA_MAIN = "kafka.Kafka";
    private static final String BASH_JAVA_UTILS =
            "org.apache.flink.runtime.util.bash.BashJavaUtils";

    /** Flink's own set of opens (env.java.opts.all of its default configuration). */
    static final List<String> OPENS =
            List.of(
                    "--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                    "--add-opens=java.base/java.io=ALL-UNNAMED",
                    "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                    "--add-opens=java.base/java.net=ALL-UNNAMED",
                    "--add-opens=java.base/java.text=ALL-UNNAMED",
                    "--add-opens=java.base/java.time=ALL-UNNAMED");

    /**
     * What to start.
     *
     * @param dir the cluster directory D (created if missing)
     * @param taskmanagers how many TaskManagers (0: two for a new cluster, as many as before for an
     *     existing one)
     * @param slots slots per TaskManager (0: two; fixed when D is first started)
     * @param restPort the JobManager's REST port (0: a free one)
     * @param kafkaPort the broker's port (0: a free one)
     * @param timeout how long to wait for the cluster to be ready
     */
    public record Settings(
            Path dir, int taskmanagers, int slots, int restPort, int kafkaPort, Duration timeout) {
        public Settings {
            dir = dir.toAbsolutePath().normalize();
            if (taskmanagers < 0 || slots < 0 || restPort < 0 || kafkaPort < 0) {
                throw new IllegalArgumentException(
                        "--taskmanagers, --slots and the ports must be >= 0");
            }
        }

        public static Settings of(Path dir, int taskmanagers, int slots) {
            return new Settings(dir, taskmanagers, slots, 0, 0, Duration.ofSeconds(120));
        }
    }

    /** How many times a new cluster is started on fresh ports when one of its ports was taken. */
    static final int START_ATTEMPTS = 3;

    /** Ports each Flink process may try for its Prometheus endpoint, from the one chosen. */
    static final int METRICS_PORT_RANGE = 10;

    /**
     * Where a new cluster's ports come from, by purpose ({@code rest}, {@code kafka}, {@code
     * jobmanager-rpc}, {@code kafka-controller}, {@code metrics <member>}): a port free right now.
     */
    @FunctionalInterface
    interface PortSource {
        int pick(String purpose);
    }

    /** A member could not bind one of its ports: another process took it. */
    static final class PortTakenException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortTakenException(String message) {
            super(message);
        }
    }

    private final Settings s;
    private final PrintStream progress;
    private final PortSource ports;
    private final List<Process> startedNow = new ArrayList<>();
    // Each launched member's log sizes at launch: what it wrote since is this start's.
    private final Map<String, long[]> logOffsets = new LinkedHashMap<>();
    private ClusterLib lib; // located when the first process is launched
    private boolean checkFixedPorts;
    // D/lib/hotpate-metrics-reporter.jar, written once per start (ClusterConfig.writeReporterJar).
    private Path reporterJar;

    private LocalCluster(Settings s, PrintStream progress, PortSource ports) {
        this.s = s;
        this.progress = progress;
        this.ports = ports;
    }

    /**
     * Starts the cluster in {@code s.dir()} — or restarts its members that are not running — and
     * waits until the JobManager's REST API answers with every slot registered and the broker
     * answers a metadata request. On failure every process started by this call is stopped again
     * and the exception names the member and shows the tail of its log. A new cluster whose member
     * lost a port to another process between choosing and binding it starts again on fresh ports.
     */
    public static ClusterInfo start(Settings s, PrintStream progress) {
        return start(s, progress, purpose -> Members.freePort());
    }

    /** As above, new ports from {@code ports} (tests take one in between to reproduce the race). */
    static ClusterInfo start(Settings s, PrintStream progress, PortSource ports) {
        boolean fresh = !Files.isRegularFile(s.dir().resolve(ClusterInfo.FILE));
        for (int attempt = 1; ; attempt++) {
            LocalCluster c = new LocalCluster(s, progress, ports);
            try {
                return c.startOrHeal();
            } catch (RuntimeException e) {
                c.abort();
                if (fresh) {
                    c.discardNewCluster();
                }
                if (fresh && e instanceof PortTakenException && attempt < START_ATTEMPTS) {
                    c.say(e.getMessage() + "; starting again on fresh ports");
                    continue;
                }
                throw e;
            }
        }
    }

    private ClusterInfo startOrHeal() {
        Path dir = s.dir();
        try {
            for (String sub :
                    List.of("conf", "logs", "kafka", "checkpoints", "savepoints", "tmp")) {
                Files.createDirectories(dir.resolve(sub));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the cluster directory " + dir, e);
        }
        boolean existing = Files.isRegularFile(dir.resolve(ClusterInfo.FILE));
        // A new cluster's ports were just found free; whether they still are shows when its
        // members bind them (PortTakenException: start again on fresh ports). An existing
        // cluster's ports are fixed in cluster.json: checked before a member is launched again.
        checkFixedPorts = existing;
        ClusterInfo info = existing ? ClusterInfo.read(dir) : create();
        if (existing && s.slots() > 0 && s.slots() != info.slots()) {
            throw new IllegalArgumentException(
                    "the cluster in "
                            + dir
                            + " has "
                            + info.slots()
                            + " slots per TaskManager (fixed at its first start); got --slots "
                            + s.slots());
        }
        long t0 = System.nanoTime();
        info = launchMissing(info);
        info.write(dir);
        info = awaitReady(info, t0);
        info.write(dir);
        return info;
    }

    /** A new cluster: ports, the configuration files and the broker's formatted storage. */
    private ClusterInfo create() {
        Map<String, Integer> ports = new TreeMap<>();
        ports.put("rest", port("rest", "--rest-port", s.restPort()));
        ports.put("kafka", port("kafka", "--kafka-port", s.kafkaPort()));
        ports.put("jobmanager-rpc", this.ports.pick("jobmanager-rpc"));
        ports.put("kafka-controller", this.ports.pick("kafka-controller"));
        int slots = s.slots() > 0 ? s.slots() : 2;
        Path conf = s.dir().resolve("conf");
        try {
            ClusterConfig.writeFlink(conf, ClusterConfig.flink(s.dir(), slots, ports));
            ClusterConfig.writeLog4j(conf);
            ClusterConfig.writeKafka(
                    conf,
                    s.dir().resolve("kafka"),
                    ports.get("kafka"),
                    ports.get("kafka-controller"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        EmbeddedKafka.formatStorage(conf.resolve("kafka.properties"));
        int n = s.taskmanagers() > 0 ? s.taskmanagers() : 2;
        List<ClusterInfo.Member> tms = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            tms.add(new ClusterInfo.Member("taskmanager-" + i, -1, 0));
        }
        return new ClusterInfo(
                new ClusterInfo.Member("jobmanager", -1, 0),
                tms,
                new ClusterInfo.Member("kafka", -1, 0),
                ports,
                slots);
    }

    private int port(String purpose, String option, int wanted) {
        if (wanted == 0) {
            return ports.pick(purpose);
        }
        if (!Members.isFree(wanted)) {
            throw new IllegalStateException(
                    "port "
                            + wanted
                            + " ("
                            + option
                            + ") is busy: another process listens on it; choose another or omit "
                            + option
                            + " for a free port");
        }
        return wanted;
    }

    /** Launches every member that is not running (all of them for a new cluster). */
    private ClusterInfo launchMissing(ClusterInfo info) {
        Path dir = s.dir();
        lib = ClusterLib.locate();
        ClusterInfo.Member kafka = info.kafka();
        if (Members.ours(dir, "kafka", kafka.pid()).isEmpty()) {
            requireFree(info.ports().get("kafka"), "the broker's port");
            requireFree(info.ports().get("kafka-controller"), "the broker's controller port");
            info = info.withKafka(kafka.withPid(launchKafka(info.bootstrap())));
        } else {
            say("kafka is running (pid " + kafka.pid() + ")");
        }
        String[] jmParams = null;
        String[] tmParams = null;
        ClusterInfo.Member jm = info.jobmanager();
        boolean jmDown = Members.ours(dir, "jobmanager", jm.pid()).isEmpty();
        List<ClusterInfo.Member> tms = new ArrayList<>(info.taskmanagers());
        int wanted = Math.max(s.taskmanagers(), tms.size());
        while (tms.size() < wanted) {
            tms.add(new ClusterInfo.Member("taskmanager-" + (tms.size() + 1), -1, 0));
        }
        boolean anyTmDown =
                tms.stream().anyMatch(t -> Members.ours(dir, t.name(), t.pid()).isEmpty());
        if (jmDown) {
            jmParams = resourceParams("GET_JM_RESOURCE_PARAMS");
        }
        if (anyTmDown) {
            tmParams = resourceParams("GET_TM_RESOURCE_PARAMS");
        }
        if (jmDown) {
            requireFree(info.ports().get("rest"), "the JobManager's REST port");
            requireFree(info.ports().get("jobmanager-rpc"), "the JobManager's RPC port");
            int metrics = ports.pick("metrics jobmanager");
            info =
                    info.withJobmanager(
                            new ClusterInfo.Member(
                                    "jobmanager",
                                    launchFlink("jobmanager", JM_MAIN, jmParams, metrics),
                                    metrics));
        } else {
            say("jobmanager is running (pid " + jm.pid() + ")");
        }
        for (int i = 0; i < tms.size(); i++) {
            ClusterInfo.Member t = tms.get(i);
            if (Members.ours(dir, t.name(), t.pid()).isEmpty()) {
                int metrics = ports.pick("metrics " + t.name());
                tms.set(
                        i,
                        new ClusterInfo.Member(
                                t.name(),
                                launchFlink(t.name(), TM_MAIN, tmParams, metrics),
                                metrics));
            } else {
                say(t.name() + " is running (pid " + t.pid() + ")");
            }
        }
        return info.withTaskmanagers(tms);
    }

    private void requireFree(int port, String what) {
        if (checkFixedPorts && !Members.isFree(port)) {
            throw new IllegalStateException(
                    "port "
                            + port
                            + " ("
                            + what
                            + ", fixed in cluster.json) is busy: another process listens on it."
                            + " Stop that process, or start a new cluster in another --dir");
        }
    }

    private long launchKafka(String bootstrap) {
        Path dir = s.dir();
        rememberLogOffsets("kafka");
        try {
            Process p =
                    Members.launch(
                            dir,
                            "kafka",
                            List.of(
                                    "-Xmx512m",
                                    "-Xms256m",
                                    "-XX:+UseG1GC",
                                    "-Djava.awt.headless=true",
                                    "-Dlog.file=" + dir.resolve("logs/kafka.log"),
                                    "-Dkafka.logs.dir=" + dir.resolve("logs"),
                                    "-Dlog4j2.configurationFile="
                                            + dir.resolve("conf/log4j.properties")),
                            lib.kafka().resolve("*").toString(),
                            KAFKA_MAIN,
                            List.of(dir.resolve("conf/kafka.properties").toString()),
                            dir.resolve("logs/kafka.out"));
            startedNow.add(p);
            say("kafka started (pid " + p.pid() + "), bootstrap " + bootstrap);
            return p.pid();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the Kafka broker", e);
        }
    }

    /** The members' Prometheus reporter jar, written at the first launch of this start. */
    private Path reporterJar() {
        if (reporterJar == null) {
            try {
                reporterJar = ClusterConfig.writeReporterJar(s.dir().resolve("lib"));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the metrics reporter's jar", e);
            }
        }
        return reporterJar;
    }

    private long launchFlink(String name, String main, String[] params, int metricsPort) {
        Path dir = s.dir();
        List<String> jvm = new ArrayList<>(Arrays.asList(params[0].trim().split("\\s+")));
        jvm.addAll(OPENS);
        jvm.add("-XX:+UseG1GC");
        jvm.add("-Djava.awt.headless=true");
        jvm.add("-Dlog.file=" + dir.resolve("logs/" + name + ".log"));
        jvm.add("-Dlog4j.configurationFile=file:" + dir.resolve("conf/log4j.properties"));
        List<String> args = new ArrayList<>();
        args.add("--configDir");
        args.add(dir.resolve("conf").toString());
        args.add("-D");
        // A range: the reporter binds the first free port of it, and its log says which one.
        args.add(
                "metrics.reporter.prom.port="
                        + metricsPort
                        + "-"
                        + (metricsPort + METRICS_PORT_RANGE - 1));
        if (params.length > 1 && !params[1].isBlank()) {
            args.addAll(Arrays.asList(params[1].trim().split("\\s+")));
        }
        rememberLogOffsets(name);
        try {
            Process p =
                    Members.launch(
                            dir,
                            name,
                            jvm,
                            // Flink's jars and the loopback-bound Prometheus reporter's
                            lib.flink().resolve("*") + File.pathSeparator + reporterJar(),
                            main,
                            args,
                            dir.resolve("logs/" + name + ".out"));
            startedNow.add(p);
            say(name + " started (pid " + p.pid() + ")");
            return p.pid();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the " + name, e);
        }
    }

    /** JVM memory flags and dynamic properties as Flink's scripts compute them (BashJavaUtils). */
    private String[] resourceParams(String command) {
        List<String> cmd =
                List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx128m",
                        "-cp",
                        lib.flink().resolve("*").toString(),
                        BASH_JAVA_UTILS,
                        command,
                        "--configDir",
                        s.dir().resolve("conf").toString());
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out =
                    new String(
                            p.getInputStream().readAllBytes(),
                            java.nio.charset.StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IllegalStateException(
                        "Flink's BashJavaUtils "
                                + command
                                + " failed (check D/conf/config.yaml):\n"
                                + out);
            }
            String prefix = "BASH_JAVA_UTILS_EXEC_RESULT:";
            return out.lines()
                    .filter(l -> l.startsWith(prefix))
                    .map(l -> l.substring(prefix.length()))
                    .toArray(String[]::new);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Waits for the broker and for every TaskManager's slots; fails fast when a member dies.
     * Returns {@code info} with the Prometheus ports the members started now bound.
     */
    private ClusterInfo awaitReady(ClusterInfo info, long t0) {
        long deadline = t0 + s.timeout().toNanos();
        int slotsWanted = info.taskmanagers().size() * info.slots();
        boolean kafkaReady = false;
        int slotsSeen = -1;
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, info.bootstrap());
        ap.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        ap.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "3000");
        try (Admin admin = Admin.create(ap)) {
            while (true) {
                checkAlive(info);
                if (!kafkaReady) {
                    kafkaReady = kafkaAnswers(admin);
                    if (kafkaReady) {
                        say(
                                String.format(
                                        "kafka ready at %s (%.1f s)", info.bootstrap(), secs(t0)));
                    }
                }
                int slots = registeredSlots(http, info);
                if (slots != slotsSeen && slots >= 0) {
                    say(
                            String.format(
                                    "jobmanager %s: %d/%d slots registered (%.1f s)",
                                    info.rest(), slots, slotsWanted, secs(t0)));
                    slotsSeen = slots;
                }
                if (kafkaReady && slots >= slotsWanted) {
                    say(String.format("cluster ready in %.1f s", secs(t0)));
                    return withMetricsPorts(info);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "the cluster was not ready after "
                                    + s.timeout().toSeconds()
                                    + " s (kafka "
                                    + (kafkaReady ? "ready" : "not answering")
                                    + ", "
                                    + Math.max(slotsSeen, 0)
                                    + "/"
                                    + slotsWanted
                                    + " slots); logs in "
                                    + s.dir().resolve("logs"));
                }
                sleep(300);
            }
        }
    }

    private void checkAlive(ClusterInfo info) {
        for (ClusterInfo.Member m : info.members()) {
            if (Members.ours(s.dir(), m.name(), m.pid()).isEmpty()) {
                Path log = s.dir().resolve("logs/" + m.name() + ".log");
                Path out = s.dir().resolve("logs/" + m.name() + ".out");
                Optional<String> bind = bindFailure(m.name());
                if (bind.isPresent()) {
                    throw new PortTakenException(
                            m.name()
                                    + " (pid "
                                    + m.pid()
                                    + ") could not bind its port, another process took it: "
                                    + bind.get());
                }
                throw new IllegalStateException(
                        m.name()
                                + " (pid "
                                + m.pid()
                                + ") died while the cluster was starting. Last lines of "
                                + out
                                + ":\n"
                                + Members.tail(out, 15)
                                + "\nLast lines of "
                                + log
                                + ":\n"
                                + Members.tail(log, 25));
            }
        }
    }

    private static boolean kafkaAnswers(Admin admin) {
        try {
            return !admin.describeCluster(new DescribeClusterOptions().timeoutMs(2000))
                    .nodes()
                    .get()
                    .isEmpty();
        } catch (Exception e) {
            return false;
        }
    }

    /** Slots registered at the JobManager, or -1 when its REST API does not answer yet. */
    static int registeredSlots(HttpClient http, ClusterInfo info) {
        Optional<JsonNode> o = getJson(http, info.rest() + "/overview");
        return o.map(n -> n.path("slots-total").asInt(-1)).orElse(-1);
    }

    static Optional<JsonNode> getJson(HttpClient http, String url) {
        try {
            HttpResponse<String> r =
                    http.send(
                            HttpRequest.newBuilder(URI.create(url))
                                    .timeout(Duration.ofSeconds(3))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? Optional.of(JSON.readTree(r.body())) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Stops what this call started (a failed or interrupted start). */
    private void abort() {
        if (!startedNow.isEmpty()) {
            say("stopping the " + startedNow.size() + " processes this start launched");
            List<Long> alive =
                    Members.stop(
                            startedNow.stream().map(Process::toHandle).toList(),
                            Duration.ofSeconds(10));
            if (!alive.isEmpty()) {
                say("WARNING: still alive after SIGKILL: " + alive);
            }
        }
    }

    /**
     * A new cluster that did not start: its cluster.json, configuration and broker storage go, so
     * that D holds no half-started cluster (a later start begins afresh); the logs stay.
     */
    private void discardNewCluster() {
        Path dir = s.dir();
        try {
            Files.deleteIfExists(dir.resolve(ClusterInfo.FILE));
            Files.deleteIfExists(dir.resolve(ClusterInfo.FILE + ".tmp"));
            for (String f : List.of("config.yaml", "kafka.properties", "log4j.properties")) {
                Files.deleteIfExists(dir.resolve("conf").resolve(f));
            }
            LocalFiles.deleteTree(dir.resolve("kafka"));
            Files.createDirectories(dir.resolve("kafka"));
        } catch (IOException e) {
            say("WARNING: could not clean " + dir + " after the failed start: " + e.getMessage());
        }
    }

    /** Remembers how long member {@code name}'s log files are before it is launched now. */
    private void rememberLogOffsets(String name) {
        Path logs = s.dir().resolve("logs");
        logOffsets.put(
                name,
                new long[] {
                    Members.size(logs.resolve(name + ".log")),
                    Members.size(logs.resolve(name + ".out"))
                });
    }

    /** What member {@code name} wrote to its log files since this start launched it. */
    private String writtenSinceLaunch(String name) {
        long[] from = logOffsets.getOrDefault(name, new long[2]);
        Path logs = s.dir().resolve("logs");
        return Members.readFrom(logs.resolve(name + ".log"), from[0])
                + "\n"
                + Members.readFrom(logs.resolve(name + ".out"), from[1]);
    }

    /** Messages with which Flink (Netty, Pekko) and Kafka report a port they could not bind. */
    private static final List<String> BIND_FAILURES =
            List.of(
                    "Address already in use",
                    "BindException",
                    "Could not start actor system on any port",
                    "Could not start rest endpoint on any port",
                    "failed to bind",
                    "Failed to bind");

    /** The first line this start's member {@code name} logged about a port it could not bind. */
    Optional<String> bindFailure(String name) {
        return writtenSinceLaunch(name)
                .lines()
                .filter(l -> BIND_FAILURES.stream().anyMatch(l::contains))
                .map(String::strip)
                .findFirst();
    }

    private static final java.util.regex.Pattern PROMETHEUS_STARTED =
            java.util.regex.Pattern.compile(
                    "Started PrometheusReporter HTTP server on port (\\d+)");

    /**
     * The members started now with the Prometheus port each one bound (its log says which of its
     * range); a member whose reporter did not start keeps no metrics endpoint (0) and a warning.
     */
    private ClusterInfo withMetricsPorts(ClusterInfo info) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        ClusterInfo.Member jm = info.jobmanager();
        List<ClusterInfo.Member> tms = new ArrayList<>(info.taskmanagers());
        while (true) {
            boolean missing = false;
            if (logOffsets.containsKey(jm.name())) {
                jm = jm.withMetricsPort(boundMetricsPort(jm.name()));
                missing |= jm.metricsPort() == 0;
            }
            for (int i = 0; i < tms.size(); i++) {
                ClusterInfo.Member t = tms.get(i);
                if (logOffsets.containsKey(t.name())) {
                    tms.set(i, t.withMetricsPort(boundMetricsPort(t.name())));
                    missing |= tms.get(i).metricsPort() == 0;
                }
            }
            if (!missing || System.nanoTime() > deadline) {
                break;
            }
            sleep(200);
        }
        for (ClusterInfo.Member m : info.withJobmanager(jm).withTaskmanagers(tms).members()) {
            if (logOffsets.containsKey(m.name()) && !m.name().equals("kafka")) {
                say(
                        m.metricsPort() > 0
                                ? m.name()
                                        + " metrics http://127.0.0.1:"
                                        + m.metricsPort()
                                        + "/metrics"
                                : "WARNING: "
                                        + m.name()
                                        + " started no Prometheus endpoint (see its log)");
            }
        }
        return info.withJobmanager(jm).withTaskmanagers(tms);
    }

    private int boundMetricsPort(String name) {
        java.util.regex.Matcher m = PROMETHEUS_STARTED.matcher(writtenSinceLaunch(name));
        int port = 0;
        while (m.find()) {
            port = Integer.parseInt(m.group(1));
        }
        return port;
    }

    /**
     * Stops every process of the cluster in {@code dir} (those in cluster.json and any other whose
     * command line names {@code dir}): TaskManagers and JobManager first, then the broker; SIGTERM,
     * then SIGKILL after {@code grace}. Returns the pids stopped; throws if one survives.
     */
    public static List<Long> stop(Path dir, Duration grace, PrintStream progress) {
        Path d = dir.toAbsolutePath().normalize();
        Map<Long, String> byPid = new LinkedHashMap<>();
        if (Files.isRegularFile(d.resolve(ClusterInfo.FILE))) {
            ClusterInfo info = ClusterInfo.read(d);
            for (ClusterInfo.Member m : info.members()) {
                Members.ours(d, m.name(), m.pid()).ifPresent(h -> byPid.put(h.pid(), m.name()));
            }
        } else if (!Files.isDirectory(d)) {
            throw new IllegalStateException("no cluster directory " + d);
        }
        for (ProcessHandle h : Members.all(d)) {
            byPid.putIfAbsent(h.pid(), "process");
        }
        List<ProcessHandle> flink = new ArrayList<>();
        List<ProcessHandle> kafka = new ArrayList<>();
        byPid.forEach(
                (pid, name) ->
                        ProcessHandle.of(pid)
                                .ifPresent(
                                        h ->
                                                (Members.ours(d, "kafka", pid).isPresent()
                                                                ? kafka
                                                                : flink)
                                                        .add(h)));
        if (progress != null) {
            progress.println(
                    byPid.isEmpty()
                            ? "hotpate cluster: nothing is running in " + d
                            : "hotpate cluster: stopping " + byPid);
        }
        List<Long> alive = new ArrayList<>(Members.stop(flink, grace));
        alive.addAll(Members.stop(kafka, grace));
        alive.addAll(Members.all(d).stream().map(ProcessHandle::pid).toList());
        if (!alive.isEmpty()) {
            throw new IllegalStateException("processes still alive after stop: " + alive);
        }
        return List.copyOf(byPid.keySet());
    }

    /**
     * The cluster in {@code dir} if its JobManager answers and its broker runs; warns on {@code
     * warn} about TaskManagers that are down. Throws with the command that starts it otherwise.
     */
    public static ClusterInfo requireRunning(Path dir, PrintStream warn) {
        Path d = dir.toAbsolutePath().normalize();
        ClusterInfo info = ClusterInfo.read(d);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        boolean kafkaUp = Members.ours(d, "kafka", info.kafka().pid()).isPresent();
        int slots = registeredSlots(http, info);
        if (!kafkaUp || slots < 0) {
            throw new IllegalStateException(
                    "the cluster in "
                            + d
                            + " is not running ("
                            + (kafkaUp ? "" : "no broker process; ")
                            + (slots < 0
                                    ? "the JobManager at " + info.rest() + " does not answer"
                                    : "")
                            + "): start it with ./hotpate cluster start --dir "
                            + dir);
        }
        for (ClusterInfo.Member t : info.taskmanagers()) {
            if (Members.ours(d, t.name(), t.pid()).isEmpty() && warn != null) {
                warn.println(
                        "hotpate: "
                                + t.name()
                                + " of "
                                + d
                                + " is not running; ./hotpate cluster start --dir "
                                + dir
                                + " restarts it");
            }
        }
        return info;
    }

    /** Which members of the cluster in {@code dir} are running, one line each. */
    public static String status(Path dir) {
        Path d = dir.toAbsolutePath().normalize();
        ClusterInfo info = ClusterInfo.read(d);
        StringBuilder sb = new StringBuilder();
        for (ClusterInfo.Member m : info.members()) {
            boolean up = Members.ours(d, m.name(), m.pid()).isPresent();
            sb.append(
                    String.format(
                            "%-15s pid %-8d %s%n",
                            m.name(), m.pid(), up ? "running" : "NOT RUNNING"));
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        int slots = registeredSlots(http, info);
        sb.append(
                String.format(
                        "jobmanager REST %s: %s%n",
                        info.rest(), slots < 0 ? "not answering" : slots + " slots registered"));
        sb.append("kafka bootstrap ").append(info.bootstrap()).append('\n');
        return sb.toString();
    }

    private void say(String line) {
        if (progress != null) {
            progress.println("hotpate cluster: " + line);
        }
    }

    private static double secs(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the cluster", e);
        }
    }
}
