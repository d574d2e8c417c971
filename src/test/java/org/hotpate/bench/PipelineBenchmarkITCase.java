package org.hotpate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.hotpate.cli.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real, tiny {@code ./hotpate bench pipeline} run (embedded broker, MiniCluster, teacher worker):
 * the last stdout line is the JSON the issue names, its figures are sane, and nothing it started is
 * left running. Speed is never asserted.
 */
class PipelineBenchmarkITCase {
    @Test
    void aShortRunPrintsTheJsonLineAndStopsEverything() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc =
                Main.execute(
                        new String[] {
                            "bench",
                            "pipeline",
                            "--payload",
                            "model-vote",
                            "--teachers",
                            "30",
                            "--concurrency",
                            "4",
                            "--seconds",
                            "5",
                            "--warmup",
                            "2",
                            "--ceiling-seconds",
                            "2",
                            "--checkpoint-ms",
                            "300",
                            "--jit-wait",
                            "0"
                        },
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();

        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        JsonNode j = new ObjectMapper().readTree(lines.get(lines.size() - 1));
        assertThat(j.get("payload").asText()).isEqualTo("model-vote");
        for (String key :
                List.of(
                        "kafka_ceiling_per_s",
                        "pipeline_per_s",
                        "ratio",
                        "latency_ms_p50",
                        "latency_ms_p99")) {
            assertThat(j.has(key)).as(key).isTrue();
        }
        assertThat(j.get("kafka_ceiling_per_s").asDouble()).isPositive();
        assertThat(j.get("pipeline_per_s").asDouble()).isPositive();
        assertThat(j.get("ratio").asDouble()).isGreaterThan(0).isLessThanOrEqualTo(2);
        assertThat(j.get("ratio").asDouble())
                .isCloseTo(
                        j.get("pipeline_per_s").asDouble()
                                / j.get("kafka_ceiling_per_s").asDouble(),
                        org.assertj.core.api.Assertions.within(0.01));
        assertThat(j.get("latency_ms_p50").asDouble()).isPositive();
        assertThat(j.get("latency_ms_p99").asDouble())
                .isGreaterThanOrEqualTo(j.get("latency_ms_p50").asDouble());
        assertThat(j.get("steps").asInt()).isPositive();
        assertThat(j.get("partial_steps").asInt()).isZero(); // every step closed with all n answers
        assertThat(j.get("state_bytes").size()).isPositive();

        // Everything the run started has stopped (threads of the broker, the job, the worker).
        List<String> left = List.of();
        for (int i = 0; i < 60; i++) {
            left =
                    Thread.getAllStackTraces().keySet().stream()
                            .filter(t -> !before.contains(t) && t.isAlive())
                            .filter(t -> !(t.isDaemon() && jvmWide(t.getName())))
                            .map(Thread::getName)
                            .filter(PipelineBenchmarkITCase::ours)
                            .sorted()
                            .collect(Collectors.toList());
            if (left.isEmpty()) {
                break;
            }
            Thread.sleep(500);
        }
        assertThat(left).as("threads left running").isEmpty();
    }

    /**
     * {@code --payload records}: the simulated path and a records job of 40 users (dealt from a
     * three-user corpus) one after the other; both rates come from committed results and the ratio
     * is theirs. Speed is never asserted.
     */
    @Test
    void theRecordsWorkloadComparesRecordsTeachersWithSimulatedOnesInOneRun(@TempDir Path dir)
            throws Exception {
        // three users, so the 40 are dealt from their subjects
        Path corpus = dir.resolve("three-users.jsonl.gz");
        try (java.io.Writer w =
                new java.io.OutputStreamWriter(
                        new java.util.zip.GZIPOutputStream(Files.newOutputStream(corpus)),
                        StandardCharsets.UTF_8)) {
            for (String[] r :
                    new String[][] {
                        {"a", "Fix the build on Java 17"},
                        {"b", "Add a test for the parser"},
                        {"c", "Update the docs"},
                        {"a", "Merge branch main"}
                    }) {
                w.write("{\"user\": \"" + r[0] + "\", \"subject\": \"" + r[1] + "\"}\n");
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc =
                Main.execute(
                        new String[] {
                            "bench",
                            "pipeline",
                            "--payload",
                            "records",
                            "--teachers",
                            "40",
                            "--records-per-user",
                            "3",
                            "--records-file",
                            corpus.toString(),
                            "--concurrency",
                            "4",
                            "--seconds",
                            "4",
                            "--warmup",
                            "2",
                            "--checkpoint-ms",
                            "300",
                            "--jit-wait",
                            "0"
                        },
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        String log = err.toString(StandardCharsets.UTF_8);
        assertThat(rc).as(log).isZero();
        assertThat(log).contains("40 users, 120 records (3 subjects each, dealt at random)");
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        JsonNode j = new ObjectMapper().readTree(lines.get(lines.size() - 1));
        assertThat(j.get("payload").asText()).isEqualTo("records");
        assertThat(j.get("teachers").asInt()).isEqualTo(40);
        assertThat(j.get("users_dealt").asBoolean()).isTrue();
        double records = j.get("records_votes_per_s").asDouble();
        double simulated = j.get("simulated_votes_per_s").asDouble();
        assertThat(records).isPositive();
        assertThat(simulated).isPositive();
        assertThat(j.get("ratio").asDouble())
                .isCloseTo(records / simulated, org.assertj.core.api.Assertions.within(0.01));
        assertThat(j.get("first_result_s").asDouble())
                .isGreaterThanOrEqualTo(j.get("load_s").asDouble());
        JsonNode run = j.get("records_run");
        assertThat(run.get("pipeline_source").asText()).isEqualTo("results (votesCast)");
        assertThat(run.get("steps").asInt()).isPositive();
        assertThat(run.get("partial_steps").asInt()).isZero();
        assertThat(run.get("state_bytes").has("teachers")).isTrue();

        assertThat(
                        Main.execute(
                                new String[] {
                                    "bench",
                                    "pipeline",
                                    "--payload",
                                    "sparse-1kb",
                                    "--records-per-user",
                                    "3"
                                },
                                new PrintStream(out, true, StandardCharsets.UTF_8),
                                new PrintStream(err, true, StandardCharsets.UTF_8)))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("--records-per-user need --payload records");
    }

    /**
     * Flink's one static, daemon scheduler for delayed futures (FutureUtils): created on first use,
     * shared by every later job in the JVM, never per run.
     */
    private static boolean jvmWide(String name) {
        return name.startsWith("FlinkCompletableFutureDelayScheduler");
    }

    /** Threads of the broker, Flink, Kafka clients and the benchmark (not the JVM's own). */
    private static boolean ours(String name) {
        return name.startsWith("bench-")
                || name.contains("kafka")
                || name.contains("flink")
                || name.contains("Flink")
                || name.contains("pekko")
                || name.contains("Source")
                || name.contains("vote")
                || name.contains("reduce")
                || name.contains("raft")
                || name.contains("producer");
    }
}
