package org.hotpate.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.hotpate.bench.BenchWorkload;
import org.hotpate.bench.JfrSummary;
import org.hotpate.bench.PipelineBenchmark;
import org.hotpate.bench.RecordsWorkload;

/**
 * {@code ./hotpate bench}: {@code bench pipeline} measures the whole streaming pipeline against the
 * raw Kafka ceiling ({@link PipelineBenchmark}); {@code bench jfr FILE} summarises a JFR recording
 * of it; anything else runs the JMH benchmarks packaged in the jar ({@code org.hotpate.bench}) with
 * the arguments passed to JMH unchanged (e.g. {@code ./hotpate bench VoteKernel -f 1}).
 */
public final class BenchCommand implements Command {
    @Override
    public String name() {
        return "bench";
    }

    @Override
    public String summary() {
        return "benchmarks: the pipeline vs the Kafka ceiling (bench pipeline), or JMH (other arguments)";
    }

    @Override
    public String help() {
        return """
                usage: ./hotpate bench pipeline --payload sparse-1kb|sparse-8kb|model-vote [OPTIONS]
                       ./hotpate bench pipeline --scaling [--payload P] [--scaling-teachers 1000,10000,100000]
                       ./hotpate bench pipeline --payload records --teachers N [--records-file F]
                       ./hotpate bench jfr FILE.jfr [--top N]
                       ./hotpate bench [JMH-ARGS...]

                bench pipeline runs, in one process on one embedded KRaft broker, first the raw
                Kafka ceiling (the payload's real Avro records produced and consumed with the
                pipeline's client settings, no Flink), then the whole pipeline in steady state
                (teacher worker -> job -> committed results). Progress goes to stderr; the last
                line on stdout is one JSON object: payload, kafka_ceiling_per_s, pipeline_per_s,
                ratio, latency_ms_p50, latency_ms_p99, and context (docs/performance.md).

                  --payload P          sparse-1kb (80 pairs), sparse-8kb (740 pairs) or model-vote
                  --seconds S          pipeline measurement window, after warm-up (default 30)
                  --warmup W           minimum pipeline warm-up in seconds (default 15; it also
                                       lasts until the first result is committed and the JIT
                                       compilers are nearly idle)
                  --jit-wait J         at most this much longer for the JIT to quieten (default
                                       120; each ceiling waits at most J/2)
                  --ceiling-seconds C  ceiling measurement after 5 s warm-up (default min(S, 15))
                  --teachers N         ensemble size n (default 10000)
                  --concurrency C      sequences in flight (default ceil(220000 / n) in [2, 64])
                  --checkpoint-ms MS   checkpoint interval of the job (default 1000)
                  --parallelism P      job parallelism = ceiling consumers (default 2)
                  --partitions K       partitions of every topic (default 2)
                  --jfr FILE           record the pipeline's measured window with JFR (profile)
                  --scaling            time per step and state bytes per teacher at several n
                                       (JSON + PNG into --out, default target/bench)

                --payload records: records teachers against simulated ones at one n, in one run
                (no ceiling): first the model-vote pipeline, then a records job whose n users'
                n-gram teachers are built inside Flink from their records; both rates are votes
                per second in committed results. JSON: records_votes_per_s,
                simulated_votes_per_s, ratio, load_s (the driver reads and sends the records,
                submits the job), first_result_s (from the start: also every teacher built and
                the first step), latency_ms_p50/p99, time_per_step_ms, records_run {...}.
                  --records-file F     JSONL.gz with user and subject (default
                                       data/commits/public-commits.jsonl.gz); its first n users,
                                       or, when it has fewer, n users each dealt
                  --records-per-user K subjects drawn at random from all of it (default 4)
                  --public-file P      the teachers' public backoff (default
                                       data/spamassassin/public.jsonl.gz)

                bench jfr prints the top frames, cost categories, thread roles and allocation of
                a recording made with --jfr.

                Any other arguments go to JMH unchanged; with none it runs every JMH benchmark
                with 1 fork, 3 warm-up and 5 measurement iterations of 1 s each, e.g.
                  ./hotpate bench VoteKernel -p k=1000 -f 1 -wi 2 -i 3
                  ./hotpate bench -l          (list the benchmarks)
                Results are measurements on this machine; quote ratios measured in one run.
                """;
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length > 0 && args[0].equals("pipeline")) {
            return pipeline(Arrays.copyOfRange(args, 1, args.length), out, err);
        }
        if (args.length > 0 && args[0].equals("jfr")) {
            CliArgs a =
                    CliArgs.parse(
                            Arrays.copyOfRange(args, 1, args.length), Set.of("top"), Set.of());
            if (a.positional().size() != 1) {
                throw new UsageException("expected one JFR file (see --help)");
            }
            JfrSummary.print(Path.of(a.positional().get(0)), a.intValue("top", 15), out);
            return 0;
        }
        List<String> jmh = new ArrayList<>(Arrays.asList(args));
        if (jmh.isEmpty()) {
            jmh.addAll(
                    List.of(
                            "org.hotpate.bench",
                            "-f",
                            "1",
                            "-wi",
                            "3",
                            "-i",
                            "5",
                            "-w",
                            "1s",
                            "-r",
                            "1s"));
        }
        org.openjdk.jmh.Main.main(jmh.toArray(String[]::new));
        return 0;
    }

    private static int pipeline(String[] args, PrintStream out, PrintStream err) throws Exception {
        CliArgs a =
                CliArgs.parse(
                        args,
                        Set.of(
                                "payload",
                                "seconds",
                                "warmup",
                                "jit-wait",
                                "ceiling-seconds",
                                "teachers",
                                "concurrency",
                                "checkpoint-ms",
                                "parallelism",
                                "partitions",
                                "jfr",
                                "scaling-teachers",
                                "out",
                                "records-file",
                                "public-file",
                                "records-per-user"),
                        Set.of("scaling"));
        if (!a.positional().isEmpty()) {
            throw new UsageException("unexpected argument '" + a.positional().get(0) + "'");
        }
        boolean scaling = a.flag("scaling");
        String payload = scaling ? a.string("payload", "sparse-1kb") : a.required("payload");
        boolean records = payload.equals(RecordsWorkload.CLI_NAME);
        if (!records
                && (a.has("records-file") || a.has("public-file") || a.has("records-per-user"))) {
            throw new UsageException(
                    "--records-file, --public-file and --records-per-user need --payload records");
        }
        BenchWorkload w;
        RecordsWorkload rw = null;
        try {
            w = records ? BenchWorkload.MODEL_VOTE : BenchWorkload.byName(payload);
            if (records) {
                rw =
                        new RecordsWorkload(
                                Path.of(
                                        a.string(
                                                "records-file",
                                                RecordsWorkload.DEFAULT_CORPUS.toString())),
                                Path.of(
                                        a.string(
                                                "public-file",
                                                RecordsWorkload.DEFAULT_PUBLIC.toString())),
                                a.intValue("records-per-user", 4),
                                42L);
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException(
                    e.getMessage().startsWith("payload") ? "--" + e.getMessage() : e.getMessage());
        }
        double seconds = a.doubleValue("seconds", 30.0);
        PipelineBenchmark.Options o;
        try {
            o =
                    new PipelineBenchmark.Options(
                            w,
                            seconds,
                            a.doubleValue("warmup", 15.0),
                            a.doubleValue("jit-wait", 120.0),
                            a.doubleValue("ceiling-seconds", Math.min(seconds, 15.0)),
                            a.intValue("teachers", 10_000),
                            a.intValue("concurrency", 0),
                            a.longValue("checkpoint-ms", 1000L),
                            a.intValue("parallelism", 2),
                            a.intValue("partitions", 2),
                            scaling,
                            a.intList("scaling-teachers", new int[] {1_000, 10_000, 100_000}),
                            Path.of(a.string("out", "target/bench")),
                            a.has("jfr") ? Path.of(a.string("jfr", null)) : null,
                            rw);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        return PipelineBenchmark.run(o, out, err);
    }
}
