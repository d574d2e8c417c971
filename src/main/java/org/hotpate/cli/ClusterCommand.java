package org.hotpate.cli;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.hotpate.cluster.ClusterHealth;
import org.hotpate.cluster.ClusterInfo;
import org.hotpate.cluster.LocalCluster;

/**
 * {@code ./hotpate cluster start|stop|status --dir D}: a standalone Flink session cluster (a
 * JobManager and N TaskManagers, each its own JVM) and a KRaft Kafka broker process on this
 * machine, for fault tests and for users without Kubernetes ({@link LocalCluster}). {@code
 * ./hotpate run SPEC --cluster D} runs a job on it.
 */
public final class ClusterCommand implements Command {
    @Override
    public String name() {
        return "cluster";
    }

    @Override
    public String summary() {
        return "start/stop a local multi-process Flink cluster and Kafka broker (run SPEC --cluster D)";
    }

    @Override
    public String help() {
        return """
                usage: ./hotpate cluster start  --dir D [--taskmanagers N] [--slots S]
                                                [--rest-port P] [--kafka-port P] [--timeout-s T]
                       ./hotpate cluster stop   --dir D [--grace-s G]
                       ./hotpate cluster status --dir D

                start   starts a Flink 2.2 standalone session cluster — a JobManager and N
                        TaskManagers (default 2, S slots each, default 2), each its own JVM — and a
                        KRaft Kafka broker process, all bound to 127.0.0.1 on free ports (or the
                        ports given), from the Flink and Kafka jars Maven copied into
                        target/cluster-lib. Waits until the broker answers and every slot is
                        registered (progress on stderr), then writes D/cluster.json (pids, REST
                        address, bootstrap, Prometheus endpoints) and prints it on stdout.
                        Free ports are picked below the kernel's ephemeral range; if another
                        process takes one before its member binds it, a new cluster starts again
                        on fresh ports (3 attempts). A start that fails stops every process it
                        launched, and a new cluster that fails leaves only its logs in D.
                        On a directory whose cluster is partly down (a killed TaskManager, a
                        stopped broker) it restarts only the missing members, with the same ports;
                        --taskmanagers N adds TaskManagers up to N.
                stop    stops every process of D by pid: SIGTERM, then SIGKILL after G seconds
                        (default 20), and checks that none is left.
                status  shows which members are running and what the JobManager reports.

                Layout of D: conf/ (config.yaml, kafka.properties, log4j.properties; written at
                the first start, edit and restart to change), logs/ (<member>.log and .out),
                kafka/ (broker data), checkpoints/ (retained on cancellation), savepoints/, tmp/.
                Run a job on it: ./hotpate run SPEC --cluster D (docs/operations.md).
                """;
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length == 0) {
            throw new UsageException("expected start, stop or status (see --help)");
        }
        String action = args[0];
        CliArgs a =
                CliArgs.parse(
                        Arrays.copyOfRange(args, 1, args.length),
                        Set.of(
                                "dir",
                                "taskmanagers",
                                "slots",
                                "rest-port",
                                "kafka-port",
                                "timeout-s",
                                "grace-s"),
                        Set.of());
        if (!a.positional().isEmpty()) {
            throw new UsageException("unexpected arguments " + a.positional() + " (see --help)");
        }
        Path dir = Path.of(a.required("dir"));
        try {
            return act(action, a, dir, out, err);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        } catch (IllegalStateException e) {
            err.println("hotpate cluster " + action + ": " + e.getMessage());
            return 1;
        }
    }

    private static int act(String action, CliArgs a, Path dir, PrintStream out, PrintStream err)
            throws Exception {
        switch (action) {
            case "start":
                return start(a, dir, out, err);
            case "stop":
                onlyOptions(a, List.of("dir", "grace-s"), action);
                List<Long> pids =
                        LocalCluster.stop(dir, Duration.ofSeconds(a.intValue("grace-s", 20)), err);
                err.println(
                        "hotpate cluster: stopped "
                                + pids.size()
                                + " processes; none of "
                                + dir.toAbsolutePath().normalize()
                                + " is left");
                return 0;
            case "status":
                onlyOptions(a, List.of("dir"), action);
                if (!Files.isDirectory(dir)) {
                    throw new UsageException("no cluster directory " + dir);
                }
                out.print(ClusterHealth.status(dir));
                return 0;
            default:
                throw new UsageException(
                        "unknown action '" + action + "': expected start, stop or status");
        }
    }

    private static int start(CliArgs a, Path dir, PrintStream out, PrintStream err)
            throws Exception {
        int tms = a.intValue("taskmanagers", 0);
        int slots = a.intValue("slots", 0);
        if (a.has("taskmanagers") && tms < 1) {
            throw new UsageException("--taskmanagers must be >= 1; got " + tms);
        }
        if (a.has("slots") && slots < 1) {
            throw new UsageException("--slots must be >= 1; got " + slots);
        }
        LocalCluster.Settings s =
                new LocalCluster.Settings(
                        dir,
                        tms,
                        slots,
                        a.intValue("rest-port", 0),
                        a.intValue("kafka-port", 0),
                        Duration.ofSeconds(a.intValue("timeout-s", 120)));
        ClusterInfo info = LocalCluster.start(s, err);
        out.print(Files.readString(s.dir().resolve("cluster.json")));
        out.println();
        err.println(
                "hotpate cluster: running — Flink "
                        + info.rest()
                        + ", Kafka "
                        + info.bootstrap()
                        + "; run a job with ./hotpate run SPEC --cluster "
                        + dir
                        + ", stop with ./hotpate cluster stop --dir "
                        + dir);
        return 0;
    }

    private static void onlyOptions(CliArgs a, List<String> allowed, String action) {
        for (String o :
                List.of(
                        "taskmanagers",
                        "slots",
                        "rest-port",
                        "kafka-port",
                        "timeout-s",
                        "grace-s",
                        "dir")) {
            if (a.has(o) && !allowed.contains(o)) {
                throw new UsageException("--" + o + " does not apply to cluster " + action);
            }
        }
    }
}
