package org.hotpate.cluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Launches the member processes of one start of a {@link LocalCluster} — the broker, the JobManager
 * and TaskManagers, each its own JVM with the jars of {@link ClusterLib} — and reads back what each
 * wrote to its logs since: a port it could not bind ({@link #bindFailure}), the Prometheus port it
 * bound ({@link #withMetricsPorts}). Remembers the processes it started, so a failed start can stop
 * them.
 */
final class MemberLauncher {
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

    private final Path dir;
    private final ClusterLib lib;
    private final Consumer<String> say;
    private final List<Process> startedNow = new ArrayList<>();
    // Each launched member's log sizes at launch: what it wrote since is this start's.
    private final Map<String, long[]> logOffsets = new LinkedHashMap<>();
    // D/lib/hotpate-metrics-reporter.jar, written once per start (ClusterConfig.writeReporterJar).
    private Path reporterJar;

    /** A launcher for the cluster in {@code dir}; {@code say} prints a progress line. */
    MemberLauncher(Path dir, ClusterLib lib, Consumer<String> say) {
        this.dir = dir;
        this.lib = lib;
        this.say = say;
    }

    /** The processes launched so far. */
    List<Process> startedNow() {
        return startedNow;
    }

    /** JVM memory flags and dynamic properties of a JobManager (BashJavaUtils). */
    String[] jobManagerParams() {
        return resourceParams("GET_JM_RESOURCE_PARAMS");
    }

    /** JVM memory flags and dynamic properties of a TaskManager (BashJavaUtils). */
    String[] taskManagerParams() {
        return resourceParams("GET_TM_RESOURCE_PARAMS");
    }

    /** Launches the JobManager; returns its pid. */
    long launchJobManager(String[] params, int metricsPort) {
        return launchFlink("jobmanager", JM_MAIN, params, metricsPort);
    }

    /** Launches TaskManager {@code name}; returns its pid. */
    long launchTaskManager(String name, String[] params, int metricsPort) {
        return launchFlink(name, TM_MAIN, params, metricsPort);
    }

    /** Launches the broker; returns its pid. */
    long launchKafka(String bootstrap) {
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
            say.accept("kafka started (pid " + p.pid() + "), bootstrap " + bootstrap);
            return p.pid();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the Kafka broker", e);
        }
    }

    /** The members' Prometheus reporter jar, written at the first launch of this start. */
    private Path reporterJar() {
        if (reporterJar == null) {
            try {
                reporterJar = ClusterConfig.writeReporterJar(dir.resolve("lib"));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the metrics reporter's jar", e);
            }
        }
        return reporterJar;
    }

    private long launchFlink(String name, String main, String[] params, int metricsPort) {
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
                        + (metricsPort + ClusterPorts.METRICS_PORT_RANGE - 1));
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
            say.accept(name + " started (pid " + p.pid() + ")");
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
                        dir.resolve("conf").toString());
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

    /** Remembers how long member {@code name}'s log files are before it is launched now. */
    private void rememberLogOffsets(String name) {
        Path logs = dir.resolve("logs");
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
        Path logs = dir.resolve("logs");
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
    ClusterInfo withMetricsPorts(ClusterInfo info) {
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
            LocalCluster.sleep(200);
        }
        for (ClusterInfo.Member m : info.withJobmanager(jm).withTaskmanagers(tms).members()) {
            if (logOffsets.containsKey(m.name()) && !m.name().equals("kafka")) {
                say.accept(
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
}
