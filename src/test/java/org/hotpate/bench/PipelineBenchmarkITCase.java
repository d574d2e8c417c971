package org.hotpate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.hotpate.cli.Main;
import org.junit.jupiter.api.Test;

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
