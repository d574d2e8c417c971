package org.hotpate.cluster;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
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
 * between. A member that dies because its port was taken ({@link ClusterPorts.PortTakenException})
 * makes the start begin again on fresh ports (up to {@link #START_ATTEMPTS} times) after stopping
 * everything it launched; each Flink process picks its Prometheus port itself from a small range
 * and the port it bound is read back from its log. A start that fails leaves no process behind, and
 * a new cluster that fails leaves no {@code cluster.json}, configuration or broker storage either
 * (only the logs).
 *
 * <p>This class is the lifecycle (start or heal, wait until ready, undo a failed start, stop); the
 * member processes are launched by {@link MemberLauncher}, the ports checked by {@link
 * ClusterPorts}, and whether a cluster is up is {@link ClusterHealth}'s.
 */
public final class LocalCluster {

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

    private final Settings s;
    private final PrintStream progress;
    private final ClusterPorts.PortSource portSource;
    private ClusterPorts ports; // once startOrHeal knows whether the cluster exists
    private MemberLauncher launcher; // once the first process is launched

    private LocalCluster(Settings s, PrintStream progress, ClusterPorts.PortSource portSource) {
        this.s = s;
        this.progress = progress;
        this.portSource = portSource;
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
    static ClusterInfo start(Settings s, PrintStream progress, ClusterPorts.PortSource ports) {
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
                if (fresh
                        && e instanceof ClusterPorts.PortTakenException
                        && attempt < START_ATTEMPTS) {
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
        ports = new ClusterPorts(portSource, existing);
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
        ports.put("rest", this.ports.chosen("rest", "--rest-port", s.restPort()));
        ports.put("kafka", this.ports.chosen("kafka", "--kafka-port", s.kafkaPort()));
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

    /** Launches every member that is not running (all of them for a new cluster). */
    private ClusterInfo launchMissing(ClusterInfo info) {
        Path dir = s.dir();
        launcher = new MemberLauncher(dir, ClusterLib.locate(), this::say);
        ClusterInfo.Member kafka = info.kafka();
        if (Members.ours(dir, "kafka", kafka.pid()).isEmpty()) {
            ports.requireFree(info.ports().get("kafka"), "the broker's port");
            ports.requireFree(info.ports().get("kafka-controller"), "the broker's controller port");
            info = info.withKafka(kafka.withPid(launcher.launchKafka(info.bootstrap())));
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
            jmParams = launcher.jobManagerParams();
        }
        if (anyTmDown) {
            tmParams = launcher.taskManagerParams();
        }
        if (jmDown) {
            ports.requireFree(info.ports().get("rest"), "the JobManager's REST port");
            ports.requireFree(info.ports().get("jobmanager-rpc"), "the JobManager's RPC port");
            int metrics = ports.pick("metrics jobmanager");
            info =
                    info.withJobmanager(
                            new ClusterInfo.Member(
                                    "jobmanager",
                                    launcher.launchJobManager(jmParams, metrics),
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
                                launcher.launchTaskManager(t.name(), tmParams, metrics),
                                metrics));
            } else {
                say(t.name() + " is running (pid " + t.pid() + ")");
            }
        }
        return info.withTaskmanagers(tms);
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
                    kafkaReady = ClusterHealth.kafkaAnswers(admin);
                    if (kafkaReady) {
                        say(
                                String.format(
                                        "kafka ready at %s (%.1f s)", info.bootstrap(), secs(t0)));
                    }
                }
                int slots = ClusterHealth.registeredSlots(http, info);
                if (slots != slotsSeen && slots >= 0) {
                    say(
                            String.format(
                                    "jobmanager %s: %d/%d slots registered (%.1f s)",
                                    info.rest(), slots, slotsWanted, secs(t0)));
                    slotsSeen = slots;
                }
                if (kafkaReady && slots >= slotsWanted) {
                    say(String.format("cluster ready in %.1f s", secs(t0)));
                    return launcher.withMetricsPorts(info);
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
                Optional<String> bind = launcher.bindFailure(m.name());
                if (bind.isPresent()) {
                    throw new ClusterPorts.PortTakenException(
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

    /** Stops what this call started (a failed or interrupted start). */
    private void abort() {
        List<Process> startedNow = launcher == null ? List.of() : launcher.startedNow();
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

    private void say(String line) {
        if (progress != null) {
            progress.println("hotpate cluster: " + line);
        }
    }

    private static double secs(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Sleeps while waiting for the cluster; an interrupt ends the start. */
    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the cluster", e);
        }
    }
}
