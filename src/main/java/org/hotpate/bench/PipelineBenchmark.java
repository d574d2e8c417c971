package org.hotpate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.hotpate.io.EmbeddedKafka;

/**
 * {@code ./hotpate bench pipeline}: the whole pipeline against the raw Kafka ceiling, in one run on
 * one embedded KRaft broker (docs/performance.md).
 *
 * <ol>
 *   <li>The ceiling ({@link KafkaCeiling}): the payload's real encoded records produced and
 *       consumed with the pipeline's client settings, no Flink.
 *   <li>The pipeline ({@link PipelineRun}): the job started from a job spec, the teacher worker
 *       answering every step for all n teachers, measured in steady state.
 * </ol>
 *
 * The last line on stdout is one JSON object with {@code payload}, {@code kafka_ceiling_per_s},
 * {@code pipeline_per_s}, {@code ratio}, {@code latency_ms_p50}, {@code latency_ms_p99} and context
 * (load average, commit, window, CPU by thread role, state sizes); progress goes to stderr. {@code
 * --scaling} instead runs the pipeline at several ensemble sizes and writes the time per step and
 * state bytes per teacher as JSON and a PNG plot.
 */
public final class PipelineBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PipelineBenchmark() {}

    /**
     * What to run. {@code concurrency} 0 = {@link PipelineRun#defaultConcurrency}; {@code jfr}
     * (nullable) records the pipeline's measured window with JFR's profile settings.
     */
    public record Options(
            BenchWorkload workload,
            double seconds,
            double warmupSeconds,
            double jitWaitSeconds,
            double ceilingSeconds,
            int teachers,
            int concurrency,
            long checkpointMs,
            int parallelism,
            int partitions,
            boolean scaling,
            int[] scalingTeachers,
            Path out,
            Path jfr,
            RecordsWorkload records) {
        public Options {
            if (!(seconds > 0)
                    || !(warmupSeconds >= 0)
                    || !(ceilingSeconds > 0)
                    || !(jitWaitSeconds >= 0)) {
                throw new IllegalArgumentException(
                        "--seconds and --ceiling-seconds must be > 0, --warmup and --jit-wait >= 0;"
                                + " got "
                                + seconds
                                + ", "
                                + ceilingSeconds
                                + ", "
                                + warmupSeconds
                                + ", "
                                + jitWaitSeconds);
            }
            for (int n : scalingTeachers) {
                if (n < 1) {
                    throw new IllegalArgumentException(
                            "--scaling-teachers must all be >= 1; got " + n);
                }
            }
            if (teachers < 1 || concurrency < 0 || checkpointMs < 1) {
                throw new IllegalArgumentException(
                        "--teachers and --checkpoint-ms must be >= 1 and --concurrency >= 0; got "
                                + teachers
                                + ", "
                                + checkpointMs
                                + ", "
                                + concurrency);
            }
            if (records != null && (scaling || workload != BenchWorkload.MODEL_VOTE)) {
                throw new IllegalArgumentException(
                        "--payload records runs at one --teachers n (no --scaling), against the"
                                + " model-vote path");
            }
            if (parallelism < 1 || partitions < 1) {
                throw new IllegalArgumentException(
                        "--parallelism and --partitions must be >= 1; got "
                                + parallelism
                                + ", "
                                + partitions);
            }
        }

        BenchWorkload.Shape shape(int n) {
            return new BenchWorkload.Shape(
                    n,
                    concurrency > 0 ? concurrency : PipelineRun.defaultConcurrency(n),
                    checkpointMs,
                    parallelism,
                    partitions);
        }
    }

    /** Runs the benchmark; returns the exit code. */
    public static int run(Options o, PrintStream out, PrintStream err) throws Exception {
        Path work = Files.createTempDirectory("hotpate-bench-");
        EmbeddedKafka kafka = null;
        try {
            err.println("hotpate bench pipeline: starting an embedded KRaft broker ...");
            kafka = EmbeddedKafka.start(work.resolve("kafka"), false);
            String bootstrap = kafka.bootstrapServers();
            ObjectNode line =
                    o.records() != null
                            ? records(o, bootstrap, work, err)
                            : o.scaling()
                                    ? scaling(o, bootstrap, work, err)
                                    : single(o, bootstrap, work, err);
            out.println(JSON.writeValueAsString(line));
            return 0;
        } finally {
            if (kafka != null) {
                kafka.close();
            }
            org.hotpate.io.LocalFiles.deleteTreeQuietly(work);
        }
    }

    private static ObjectNode single(Options o, String bootstrap, Path work, PrintStream err)
            throws Exception {
        String started = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        double loadStart = ThreadCpu.loadAverage();
        BenchWorkload w = o.workload();
        BenchWorkload.Shape shape = o.shape(o.teachers());

        String ceilingRun = "bench-ceiling-" + w.cliName();
        byte[][][] records =
                w.encodedAnswers(
                        w.config("ceiling", shape, work.toString()),
                        ceilingRun,
                        Math.min(o.teachers(), 2000));
        // First with large producer batches (also warms the broker's JIT), then with exactly the
        // pipeline's client settings: the ceiling of record. The first says what the broker can
        // carry; the gap between the two is the producer's batching.
        KafkaCeiling.Result batched =
                ceiling(
                        w,
                        bootstrap,
                        o,
                        records,
                        "batched",
                        Math.min(5, o.ceilingSeconds()),
                        Map.of("batch.size", Integer.toString(BATCHED_BYTES)),
                        err);
        KafkaCeiling.Result ceiling =
                ceiling(
                        w,
                        bootstrap,
                        o,
                        records,
                        "",
                        Math.min(3, o.ceilingSeconds()),
                        Map.of(),
                        err);

        PipelineRun.Result p =
                PipelineRun.run(
                        bootstrap,
                        PipelineRun.Job.simulated(w, shape, work.resolve("pipeline")),
                        shape,
                        o.warmupSeconds(),
                        o.jitWaitSeconds(),
                        o.seconds(),
                        work.resolve("pipeline"),
                        o.jfr(),
                        err);
        double loadEnd = ThreadCpu.loadAverage();
        err.printf(
                "pipeline %s: %,.0f %s/s consumed by the job (%,.0f aggregated into committed"
                        + " results), ratio %.4f; step latency p50 %.0f ms, p99 %.0f ms%n",
                w.cliName(),
                p.consumedPerS(),
                w == BenchWorkload.MODEL_VOTE ? "votes" : "distributions",
                p.aggregatedPerS(),
                p.consumedPerS() / ceiling.recordsPerS(),
                p.latencyP50(),
                p.latencyP99());
        printCores(err, p.cores());

        ObjectNode j = JSON.createObjectNode();
        j.put("payload", w.cliName());
        j.put("kafka_ceiling_per_s", Math.round(ceiling.recordsPerS()));
        j.put("pipeline_per_s", Math.round(p.consumedPerS()));
        j.put("ratio", round(p.consumedPerS() / ceiling.recordsPerS(), 4));
        j.put("latency_ms_p50", round(p.latencyP50(), 1));
        j.put("latency_ms_p99", round(p.latencyP99(), 1));
        j.put("record_bytes", Math.round(ceiling.meanRecordBytes()));
        j.put("kafka_ceiling_mb_per_s", round(ceiling.megabytesPerS(), 1));
        j.put("kafka_ceiling_window_s", round(ceiling.window().lengthS(), 1));
        j.put("kafka_ceiling_steady", ceiling.window().steady());
        putCores(j.putObject("kafka_ceiling_cpu_cores"), ceiling.cores(), 8);
        j.put("kafka_ceiling_batched_per_s", Math.round(batched.recordsPerS()));
        j.put("kafka_ceiling_batched_steady", batched.window().steady());
        j.put("ratio_to_batched", round(p.consumedPerS() / batched.recordsPerS(), 4));
        pipelineFields(j, p);
        j.put("load_avg_start", loadStart);
        j.put("load_avg_end", loadEnd);
        j.put("started", started);
        j.put("commit", commit());
        return j;
    }

    private static void pipelineFields(ObjectNode j, PipelineRun.Result p) {
        j.put("teachers", p.shape().teachers());
        j.put("concurrency", p.shape().concurrency());
        j.put("checkpoint_ms", p.shape().checkpointMs());
        j.put("parallelism", p.shape().parallelism());
        j.put("aggregated_per_s", Math.round(p.aggregatedPerS()));
        j.put("produced_per_s", Math.round(p.producedPerS()));
        j.put("pipeline_source", p.consumedSource());
        j.put("window_s", round(p.window().lengthS(), 1));
        j.put("window_steady", p.window().steady());
        j.put("window_spread", round(p.window().spread(), 3));
        j.put("warmup_s", round(p.window().startS(), 1));
        j.put("steps", p.steps());
        j.put("partial_steps", p.partialSteps());
        j.put("results_total", p.resultsTotal());
        j.put("time_per_step_ms", round(1000.0 * p.shape().teachers() / p.consumedPerS(), 1));
        j.put("issued_to_closed_ms_p50", round(p.issuedToClosedP50(), 1));
        j.put("closed_to_visible_ms_p50", round(p.closedToVisibleP50(), 1));
        putCores(j.putObject("cpu_cores"), p.cores(), 12);
        ObjectNode state = j.putObject("state_bytes");
        p.state().bytesByOperator().forEach(state::put);
        j.put("state_checkpoint", p.state().checkpointId());
        j.put(
                "state_bytes_per_teacher",
                round(p.state().total() / (double) p.shape().teachers(), 1));
        // The vote operator remembers every step a teacher answered (voted-steps, TTL =
        // retention), so its state grows with the steps run so far: also per teacher and step.
        j.put(
                "state_bytes_per_teacher_step",
                round(
                        p.state().total()
                                / (double) p.shape().teachers()
                                / Math.max(1, p.resultsTotal()),
                        2));
    }

    private static ObjectNode scaling(Options o, String bootstrap, Path work, PrintStream err)
            throws Exception {
        String started = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        double loadStart = ThreadCpu.loadAverage();
        BenchWorkload w = o.workload();
        List<ObjectNode> rows = new ArrayList<>();
        for (int n : o.scalingTeachers()) {
            PipelineRun.Result p =
                    PipelineRun.run(
                            bootstrap,
                            PipelineRun.Job.simulated(w, o.shape(n), work.resolve("pipeline-" + n)),
                            o.shape(n),
                            o.warmupSeconds(),
                            o.jitWaitSeconds(),
                            o.seconds(),
                            work.resolve("pipeline-" + n),
                            null,
                            err);
            ObjectNode row = JSON.createObjectNode();
            row.put("pipeline_per_s", Math.round(p.consumedPerS()));
            row.put("latency_ms_p50", round(p.latencyP50(), 1));
            row.put("latency_ms_p99", round(p.latencyP99(), 1));
            pipelineFields(row, p);
            row.put("load_avg", ThreadCpu.loadAverage());
            err.printf(
                    "scaling n = %,d: %,.0f/s, %.0f ms per step, %.0f state bytes per teacher%n",
                    n,
                    p.consumedPerS(),
                    1000.0 * n / p.consumedPerS(),
                    p.state().total() / (double) n);
            rows.add(row);
        }
        ObjectNode j = JSON.createObjectNode();
        j.put("payload", w.cliName());
        j.put("started", started);
        j.put("commit", commit());
        j.put("load_avg_start", loadStart);
        j.put("load_avg_end", ThreadCpu.loadAverage());
        ArrayNode a = j.putArray("scaling");
        rows.forEach(a::add);
        Files.createDirectories(o.out());
        Path json = o.out().resolve("scaling-" + w.cliName() + ".json");
        JSON.writerWithDefaultPrettyPrinter().writeValue(json.toFile(), j);
        Path png = o.out().resolve("scaling-" + w.cliName() + ".png");
        ScalingChart.write(png, w.cliName(), rows);
        err.println("scaling: wrote " + json + " and " + png);
        return j;
    }

    /**
     * {@code --payload records}: at one n, first the simulated-teacher path (the {@code model-vote}
     * workload: every teacher computes its coordinated vote itself and sends it through Kafka),
     * then the records path (n-gram teachers built inside the job from n users' records, voting
     * inside the job), one after the other on the same broker with the same shape. Both rates are Σ
     * votesCast of the committed results per second in each run's steady window, so they compare
     * like with like; the records run also reports how long the driver took to load the records and
     * submit the job ({@code load_s}) and the time from the start to its first result ({@code
     * first_result_s}: loading, building every teacher, the first step).
     */
    private static ObjectNode records(Options o, String bootstrap, Path work, PrintStream err)
            throws Exception {
        String started = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        double loadStart = ThreadCpu.loadAverage();
        BenchWorkload.Shape shape = o.shape(o.teachers());
        err.printf(
                "records workload: writing %,d users' records from %s ...%n",
                o.teachers(), o.records().corpus());
        RecordsWorkload.Users users = o.records().write(work.resolve("records"), o.teachers());
        err.printf(
                "records workload: %,d users, %,d records (%s)%n",
                users.users(),
                users.records(),
                users.dealt()
                        ? o.records().recordsPerUser() + " subjects each, dealt at random"
                        : "the corpus's first users");
        PipelineRun.Result simulated =
                PipelineRun.run(
                        bootstrap,
                        PipelineRun.Job.simulated(
                                BenchWorkload.MODEL_VOTE, shape, work.resolve("simulated")),
                        shape,
                        o.warmupSeconds(),
                        o.jitWaitSeconds(),
                        o.seconds(),
                        work.resolve("simulated"),
                        null,
                        err);
        err.printf(
                "simulated teachers (model-vote): %,.0f votes/s in committed results%n",
                simulated.aggregatedPerS());
        PipelineRun.Result rec =
                PipelineRun.run(
                        bootstrap,
                        PipelineRun.Job.records(o.records(), users, shape, work.resolve("records")),
                        shape,
                        o.warmupSeconds(),
                        o.jitWaitSeconds(),
                        o.seconds(),
                        work.resolve("records"),
                        o.jfr(),
                        err);
        double ratio = rec.aggregatedPerS() / simulated.aggregatedPerS();
        err.printf(
                "records teachers: %,.0f votes/s in committed results (%.3f of the simulated"
                        + " path); records loaded and the job submitted in %.0f s, first result"
                        + " %.0f s after the start; step p50 %.0f ms, p99 %.0f ms%n",
                rec.aggregatedPerS(),
                ratio,
                rec.sessionStartS(),
                rec.firstResultS(),
                rec.latencyP50(),
                rec.latencyP99());
        printCores(err, rec.cores());

        ObjectNode j = JSON.createObjectNode();
        j.put("payload", RecordsWorkload.CLI_NAME);
        j.put("teachers", users.users());
        j.put("records", users.records());
        j.put("users_dealt", users.dealt());
        j.put("records_file", o.records().corpus().toString());
        j.put("records_votes_per_s", Math.round(rec.aggregatedPerS()));
        j.put("simulated_votes_per_s", Math.round(simulated.aggregatedPerS()));
        j.put("ratio", round(ratio, 4));
        j.put("load_s", round(rec.sessionStartS(), 1));
        j.put("first_result_s", round(rec.firstResultS(), 1));
        j.put("latency_ms_p50", round(rec.latencyP50(), 1));
        j.put("latency_ms_p99", round(rec.latencyP99(), 1));
        j.put("time_per_step_ms", round(1000.0 * users.users() / rec.aggregatedPerS(), 1));
        j.put(
                "simulated_time_per_step_ms",
                round(1000.0 * users.users() / simulated.aggregatedPerS(), 1));
        j.put("simulated_latency_ms_p50", round(simulated.latencyP50(), 1));
        j.put("simulated_window_s", round(simulated.window().lengthS(), 1));
        j.put("simulated_window_steady", simulated.window().steady());
        putCores(j.putObject("simulated_cpu_cores"), simulated.cores(), 8);
        ObjectNode r = j.putObject("records_run");
        pipelineFields(r, rec);
        j.put("load_avg_start", loadStart);
        j.put("load_avg_end", ThreadCpu.loadAverage());
        j.put("started", started);
        j.put("commit", commit());
        return j;
    }

    /** The producer batch of the "batched" ceiling (256 KiB; the worker uses Kafka's 16 KiB). */
    static final int BATCHED_BYTES = 262_144;

    private static KafkaCeiling.Result ceiling(
            BenchWorkload w,
            String bootstrap,
            Options o,
            byte[][][] records,
            String variant,
            double warmup,
            Map<String, String> overrides,
            PrintStream err)
            throws Exception {
        String name = variant.isEmpty() ? "ceiling" : "ceiling (" + variant + ")";
        err.printf(
                "%s %s: %d-byte records (mean), producer %s, %.0f s warm-up + %.0f s, %d"
                        + " partitions, %d consumers ...%n",
                name,
                w.cliName(),
                Math.round(mean(records)),
                overrides.isEmpty() ? "settings of the teacher worker" : overrides.toString(),
                warmup,
                o.ceilingSeconds(),
                o.partitions(),
                o.parallelism());
        KafkaCeiling.Result r =
                KafkaCeiling.run(
                        bootstrap,
                        "bench-ceiling." + w.cliName() + (variant.isEmpty() ? "" : "." + variant),
                        o.partitions(),
                        o.parallelism(),
                        records,
                        warmup,
                        o.jitWaitSeconds() / 2,
                        o.ceilingSeconds(),
                        overrides,
                        err);
        err.printf(
                "%s %s: %,.0f records/s (%.1f MB/s) over %.1f s%s%n",
                name,
                w.cliName(),
                r.recordsPerS(),
                r.megabytesPerS(),
                r.window().lengthS(),
                r.window().steady() ? "" : " (not steady)");
        printCores(err, r.cores());
        return r;
    }

    private static void putCores(ObjectNode node, Map<String, Double> cores, int max) {
        int shown = 0;
        for (Map.Entry<String, Double> e : cores.entrySet()) {
            if (shown++ >= max) {
                break;
            }
            node.put(e.getKey(), round(e.getValue(), 3));
        }
    }

    private static void printCores(PrintStream err, Map<String, Double> cores) {
        err.println("  CPU in the window (cores) by thread role:");
        int shown = 0;
        for (Map.Entry<String, Double> e : cores.entrySet()) {
            if (shown++ >= 12) {
                break;
            }
            err.printf("    %6.3f  %s%n", e.getValue(), e.getKey());
        }
    }

    private static double mean(byte[][][] records) {
        long total = 0;
        for (byte[][] r : records) {
            total += r[1].length;
        }
        return total / (double) records.length;
    }

    static double round(double v, int places) {
        if (!Double.isFinite(v)) {
            return v;
        }
        double f = Math.pow(10, places);
        return Math.round(v * f) / f;
    }

    /** The git commit of the working directory (with -dirty), or "unknown". */
    static String commit() {
        try {
            String rev = git("rev-parse", "--short", "HEAD");
            String dirty = git("status", "--porcelain", "--untracked-files=no");
            return rev.isEmpty() ? "unknown" : rev + (dirty.isEmpty() ? "" : "-dirty");
        } catch (Exception e) {
            return "unknown";
        }
    }

    private static String git(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add("git");
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroy();
            return "";
        }
        return new String(out, StandardCharsets.UTF_8).trim();
    }
}
