package org.hotpate.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.hotpate.cli.Main;
import org.hotpate.cli.RunCommand;
import org.hotpate.stream.JobConfig;
import org.hotpate.stream.JobSpec;
import org.hotpate.stream.RunSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Faults on a real multi-process cluster ({@code ./hotpate cluster start}: a JobManager, two
 * TaskManagers with two slots each and a KRaft broker, each its own JVM, from the jars in
 * target/cluster-lib), one cluster for the class. Each test runs a small Planet-Z spec on it,
 * injects one fault from outside the job — kill -9 of a TaskManager, a broker restart, kill and
 * restart of the teacher worker process, stop with a savepoint and resume — and then checks the
 * run's output files as a user would: the run completes, every sequence appears once in {@code
 * records.jsonl}, no (sequence, step, attempt) is charged twice in {@code ledger.jsonl}, ε ≤
 * budget. The job is a black box here.
 *
 * <p>Needs {@code mvn package} first (failsafe runs after it): the cluster jars and the slim job
 * jar.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocalClusterITCase {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final int SEQUENCES = 10;
    private static final double BUDGET = 100.0;

    private static Path dir;
    private static Path work;
    private static ClusterInfo info;
    private static Thread cleanup;

    @BeforeAll
    static void startCluster() throws IOException {
        // A fresh directory per test run: outputs of an earlier run (same target/) must not count.
        work =
                Files.createDirectories(
                        Path.of("target/it-cluster", "run-" + System.currentTimeMillis())
                                .toAbsolutePath());
        dir = work.resolve("cluster");
        // Whatever happens to this JVM, the cluster's processes do not outlive it.
        cleanup = new Thread(() -> LocalCluster.stop(dir, Duration.ofSeconds(5), null));
        Runtime.getRuntime().addShutdownHook(cleanup);
        info = LocalCluster.start(LocalCluster.Settings.of(dir, 2, 2), System.err);
    }

    @AfterAll
    static void stopCluster() {
        List<Long> stopped = LocalCluster.stop(dir, Duration.ofSeconds(20), System.err);
        Runtime.getRuntime().removeShutdownHook(cleanup);
        assertThat(stopped).hasSizeGreaterThanOrEqualTo(4);
        assertThat(Members.all(dir)).as("no process of the cluster is left").isEmpty();
        for (long pid : stopped) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive))
                    .isNotEqualTo(Optional.of(true));
        }
    }

    @Test
    @Order(1)
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void killingATaskManagerMidRunLosesNothing() throws Exception {
        Path spec = spec("tmkill", "planet-z");
        Path out = work.resolve("out-tmkill");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CompletableFuture<Integer> run =
                CompletableFuture.supplyAsync(
                        () ->
                                Main.execute(
                                        new String[] {
                                            "run",
                                            spec.toString(),
                                            "--cluster",
                                            dir.toString(),
                                            "--out",
                                            out.toString(),
                                            "--quiet"
                                        },
                                        new PrintStream(new ByteArrayOutputStream()),
                                        new PrintStream(err, true)));
        String job = awaitRunningJob("tmkill", 3);
        // Slots are spread over the TaskManagers: the one killed runs part of the job.
        for (JsonNode tm : rest("/taskmanagers").path("taskmanagers")) {
            assertThat(tm.path("freeSlots").asInt()).isLessThan(tm.path("slotsNumber").asInt());
        }
        long victim = info.taskmanagers().get(0).pid();
        ProcessHandle.of(victim).orElseThrow().destroyForcibly(); // kill -9
        assertThat(run.get(4, TimeUnit.MINUTES)).as("exit code; stderr:\n" + err).isZero();
        assertCompleteOutputs(onlyRunDir(out));
        assertThat(rest("/jobs/" + job + "/exceptions").path("exceptionHistory").path("entries"))
                .as("the job failed over")
                .isNotEmpty();
        // The job restarted with the cluster's strategy, not one of its own.
        assertThat(Files.readString(dir.resolve("logs/jobmanager.log")))
                .contains("ExponentialDelayRestartBackoffTimeStrategy");
        heal();
    }

    @Test
    @Order(2)
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void restartingTheBrokerMidRunLosesNothing() throws Exception {
        JobConfig cfg = onCluster(spec("broker", "planet-z"));
        AtomicBoolean restarted = new AtomicBoolean();
        try (RunSession run = RunSession.start(cfg, null)) {
            boolean done =
                    run.follow(
                            Duration.ofMinutes(4),
                            null,
                            r -> {
                                if (!restarted.get() && r.records().size() >= 2) {
                                    restarted.set(true);
                                    restartBroker();
                                }
                            });
            assertThat(restarted).as("the broker was restarted mid-run").isTrue();
            assertThat(done).as("the run completes after the broker restart").isTrue();
            run.finish();
            assertCompleteOutputs(run.outputDir());
        }
    }

    @Test
    @Order(3)
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void killingAndRestartingTheTeacherWorkerLosesNothing() throws Exception {
        Path spec = spec("teachers", "external");
        JobConfig cfg = onCluster(spec);
        Path log1 = work.resolve("teachers-1.log");
        Path log2 = work.resolve("teachers-2.log");
        Process first = teacherWorker(spec, log1);
        Process second = null;
        try (RunSession run = RunSession.start(cfg, null)) {
            Process[] replacement = new Process[1];
            boolean done =
                    run.follow(
                            Duration.ofMinutes(4),
                            null,
                            r -> {
                                if (replacement[0] == null && r.records().size() >= 2) {
                                    first.destroyForcibly(); // kill -9
                                    try {
                                        first.waitFor(10, TimeUnit.SECONDS);
                                        Thread.sleep(2000);
                                        replacement[0] = teacherWorker(spec, log2);
                                    } catch (Exception e) {
                                        throw new IllegalStateException(e);
                                    }
                                }
                            });
            second = replacement[0];
            assertThat(second).as("the worker was killed and restarted mid-run").isNotNull();
            assertThat(done).as("the run completes with the restarted worker").isTrue();
            run.finish();
            assertCompleteOutputs(run.outputDir());
        } finally {
            first.destroyForcibly();
            if (second != null) {
                second.destroy();
                second.waitFor(20, TimeUnit.SECONDS);
            }
        }
        assertThat(Files.readString(log2)).contains("teachers [0, 20) of teachers-pz");
    }

    @Test
    @Order(4)
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void stopWithASavepointAndResume() throws Exception {
        Path spec = spec("savepoint", "planet-z");
        Path out = work.resolve("out-savepoint");
        Path driverLog = work.resolve("savepoint-driver.err");
        Process driver =
                new ProcessBuilder(
                                java(),
                                "-Xmx768m",
                                "-cp",
                                System.getProperty("java.class.path"),
                                Main.class.getName(),
                                "run",
                                spec.toString(),
                                "--cluster",
                                dir.toString(),
                                "--out",
                                out.toString(),
                                "--quiet")
                        .redirectOutput(work.resolve("savepoint-driver.out").toFile())
                        .redirectError(driverLog.toFile())
                        .start();
        try {
            awaitRunningJob("savepoint", 2);
            awaitCommittedRecords(topic("savepoint", "records"), 2, Duration.ofMinutes(2));
            driver.destroy(); // SIGTERM: stop with a savepoint
            assertThat(driver.waitFor(3, TimeUnit.MINUTES)).isTrue();
        } finally {
            driver.destroyForcibly();
        }
        String stderr = Files.readString(driverLog);
        assertThat(driver.exitValue()).as(stderr).isEqualTo(143);
        Matcher m = Pattern.compile("with savepoint (\\S+)").matcher(stderr);
        assertThat(m.find()).as(stderr).isTrue();
        String savepoint = m.group(1);
        Path stoppedRun = onlyRunDir(out);
        assertThat(stoppedRun.resolve("stopped.json")).exists();
        int before = lines(stoppedRun.resolve("records.jsonl")).size();
        assertThat(before).as("records committed before the stop").isBetween(2, SEQUENCES - 1);

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                Main.execute(
                        new String[] {
                            "run",
                            spec.toString(),
                            "--cluster",
                            dir.toString(),
                            "--out",
                            out.toString(),
                            "--quiet",
                            "--from-savepoint",
                            savepoint
                        },
                        new PrintStream(new ByteArrayOutputStream()),
                        new PrintStream(err, true));
        assertThat(code).as(err.toString()).isZero();
        assertThat(onlyRunDir(out)).as("the same run id, the same outputs").isEqualTo(stoppedRun);
        assertCompleteOutputs(stoppedRun);
    }

    // ---- faults ----

    private static void restartBroker() {
        ProcessHandle broker = ProcessHandle.of(ClusterInfo.read(dir).kafka().pid()).orElseThrow();
        broker.destroyForcibly(); // kill -9, no controlled shutdown
        broker.onExit().join();
        sleep(2000);
        heal();
    }

    private static void heal() {
        info = LocalCluster.start(LocalCluster.Settings.of(dir, 2, 0), System.err);
    }

    private static Process teacherWorker(Path spec, Path log) throws IOException {
        return new ProcessBuilder(
                        java(),
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "teachers",
                        spec.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    // ---- the spec and its outputs ----

    /** A small Planet-Z run whose topics are its own; {@code source: external} for the worker. */
    private static Path spec(String name, String source) throws IOException {
        String yaml =
                """
                name: %s
                ensemble: {id: %s-pz, teachers: 20, source: %s, k: 3, seed: 5, top-k: 32}
                sampler: {type: coordinated, seed: 11}
                mechanism: {name: confident-gnmax, params: {sigma1: 1.5, threshold: 6, sigma2: 1.5}}
                budget: {epsilon: %s, delta: 1.0e-6}
                generation: {sequences: %d, concurrency: 3, max-steps: 3, max-attempts: 3, step-deadline-ms: 4000}
                kafka:
                  mode: external
                  bootstrap: "%s"
                  topics: {steps: %s, distributions: %s, results: %s, records: %s, ledger: %s, rejected: %s}
                flink: {parallelism: 2, checkpoint-interval-ms: 500}
                output: {dir: %s, timeout-s: 240}
                """
                        .formatted(
                                name,
                                name,
                                source,
                                BUDGET,
                                SEQUENCES,
                                info.bootstrap(),
                                topic(name, "steps"),
                                topic(name, "distributions"),
                                topic(name, "results"),
                                topic(name, "records"),
                                topic(name, "ledger"),
                                topic(name, "rejected"),
                                work.resolve("out-" + name));
        Path f = work.resolve(name + ".yaml");
        Files.writeString(f, yaml);
        return f;
    }

    private static String topic(String run, String kind) {
        return run + "." + kind;
    }

    private static JobConfig onCluster(Path spec) {
        return RunCommand.onCluster(
                JobSpec.load(spec), info, ClusterLib.locate().requireClusterJar(), dir);
    }

    /** What the issue asks of every fault: complete, each sequence once, each charge once. */
    private static void assertCompleteOutputs(Path runDir) throws IOException {
        List<JsonNode> records = lines(runDir.resolve("records.jsonl"));
        assertThat(records.stream().map(r -> r.get("sequence").asLong()).distinct().count())
                .as("distinct sequences in records.jsonl")
                .isEqualTo(SEQUENCES);
        assertThat(records).as("each sequence once").hasSize(SEQUENCES);
        List<JsonNode> ledger = lines(runDir.resolve("ledger.jsonl"));
        List<String> charged =
                ledger.stream()
                        .filter(e -> e.get("kind").asText().equals("CHARGE"))
                        .map(
                                e ->
                                        e.get("sequence").asLong()
                                                + "/"
                                                + e.get("step").asInt()
                                                + "/"
                                                + e.get("attempt").asInt())
                        .toList();
        assertThat(charged).as("charges").isNotEmpty().doesNotHaveDuplicates();
        assertThat(ledger.stream().mapToDouble(e -> e.get("epsilon").asDouble()).max().orElse(0))
                .as("epsilon within the budget")
                .isLessThanOrEqualTo(BUDGET);
    }

    private static List<JsonNode> lines(Path f) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String l : Files.readAllLines(f)) {
            if (!l.isBlank()) {
                out.add(JSON.readTree(l));
            }
        }
        return out;
    }

    private static Path onlyRunDir(Path out) throws IOException {
        try (Stream<Path> s = Files.list(out)) {
            List<Path> runs = s.filter(Files::isDirectory).toList();
            assertThat(runs).hasSize(1);
            return runs.get(0);
        }
    }

    // ---- the cluster from outside ----

    /** The id of the RUNNING job named after {@code run} once it has completed checkpoints. */
    private static String awaitRunningJob(String run, int checkpoints) {
        long deadline = System.currentTimeMillis() + 180_000;
        while (System.currentTimeMillis() < deadline) {
            for (JsonNode j : rest("/jobs/overview").path("jobs")) {
                if (j.path("name").asText().startsWith("hotpate " + run + "-")
                        && j.path("state").asText().equals("RUNNING")) {
                    String id = j.path("jid").asText();
                    if (rest("/jobs/" + id + "/checkpoints").at("/counts/completed").asInt()
                            >= checkpoints) {
                        return id;
                    }
                }
            }
            sleep(500);
        }
        throw new AssertionError(
                "no running job for " + run + " with " + checkpoints + " checkpoints");
    }

    private static JsonNode rest(String path) {
        return LocalCluster.getJson(HTTP, info.rest() + path).orElse(JSON.createObjectNode());
    }

    private static void awaitCommittedRecords(String topic, int n, Duration timeout) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, info.bootstrap());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + System.nanoTime());
        int seen = 0;
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            while (seen < n && System.currentTimeMillis() < deadline) {
                seen += c.poll(Duration.ofMillis(500)).count();
            }
        }
        assertThat(seen).as("committed records on " + topic).isGreaterThanOrEqualTo(n);
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
