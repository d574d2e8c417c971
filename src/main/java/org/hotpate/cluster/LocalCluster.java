package org.hotpate.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

/**
 * A standalone Flink session cluster and a KRaft Kafka broker on this machine, each member its own
 * JVM — a JobManager ({@code StandaloneSessionClusterEntrypoint}), N TaskManagers ({@code
 * TaskManagerRunner}) and a broker ({@code kafka.Kafka}) — started from the jars {@code mvn
 * package} copies from Maven Central ({@link ClusterLib}), bound to 127.0.0.1, everything under one
 * directory D: {@code D/conf} (written once, {@link ClusterConfig}), {@code D/logs}, {@code
 * D/kafka}, {@code D/checkpoints}, {@code D/savepoints}, {@code D/tmp}, and {@code D/cluster.json}
 * ({@link ClusterInfo}).
 *
 * <p>{@link #start} on a directory that already has a cluster restarts whatever member is not
 * running, with the same ports (a lost TaskManager, a broker that was stopped), and adds
 * TaskManagers up to the count asked for. {@link #stop} stops every process of D by pid —
 * gracefully, then by force — including any not listed in cluster.json.
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

    private final Settings s;
    private final PrintStream progress;
    private final List<Process> startedNow = new ArrayList<>();
    private ClusterLib lib; // located when the first process is launched

    private LocalCluster(Settings s, PrintStream progress) {
        this.s = s;
        this.progress = progress;
    }

    /**
     * Starts the cluster in {@code s.dir()} — or restarts its members that are not running — and
     * waits until the JobManager's REST API answers with every slot registered and the broker
     * answers a metadata request. On failure every process started by this call is stopped again
     * and the exception names the member and shows the tail of its log.
     */
    public static ClusterInfo start(Settings s, PrintStream progress) {
        LocalCluster c = new LocalCluster(s, progress);
        try {
            return c.startOrHeal();
        } catch (RuntimeException e) {
            c.abort();
            throw e;
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
        awaitReady(info, t0);
        info.write(dir);
        return info;
    }

    /** A new cluster: ports, the configuration files and the broker's formatted storage. */
    private ClusterInfo create() {
        Map<String, Integer> ports = new TreeMap<>();
        ports.put("rest", port("--rest-port", s.restPort()));
        ports.put("kafka", port("--kafka-port", s.kafkaPort()));
        ports.put("jobmanager-rpc", Members.freePort());
        ports.put("kafka-controller", Members.freePort());
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

    private static int port(String option, int wanted) {
        if (wanted == 0) {
            return Members.freePort();
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
            int metrics = Members.freePort();
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
                int metrics = Members.freePort();
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

    private static void requireFree(int port, String what) {
        if (!Members.isFree(port)) {
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
        args.add("metrics.reporter.prom.port=" + metricsPort);
        if (params.length > 1 && !params[1].isBlank()) {
            args.addAll(Arrays.asList(params[1].trim().split("\\s+")));
        }
        try {
            Process p =
                    Members.launch(
                            dir,
                            name,
                            jvm,
                            lib.flink().resolve("*").toString(),
                            main,
                            args,
                            dir.resolve("logs/" + name + ".out"));
            startedNow.add(p);
            say(
                    name
                            + " started (pid "
                            + p.pid()
                            + "), metrics http://127.0.0.1:"
                            + metricsPort
                            + "/metrics");
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

    /** Waits for the broker and for every TaskManager's slots; fails fast when a member dies. */
    private void awaitReady(ClusterInfo info, long t0) {
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
                    return;
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
            Members.stop(
                    startedNow.stream().map(Process::toHandle).toList(), Duration.ofSeconds(10));
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
