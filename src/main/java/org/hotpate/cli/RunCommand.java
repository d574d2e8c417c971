package org.hotpate.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.hotpate.stream.CoreBindings;
import org.hotpate.stream.DatasetLedger;
import org.hotpate.stream.JobConfig;
import org.hotpate.stream.JobSpec;
import org.hotpate.stream.RecordsLoader;
import org.hotpate.stream.RecordsSpec;
import org.hotpate.stream.RunSession;

/**
 * {@code ./hotpate run SPEC}: validates the job spec, starts Kafka and Flink as the spec says
 * (embedded by default), runs the Hot PATE job with a progress bar, and writes {@code
 * out/<run-id>/summary.json}, {@code records.jsonl} and {@code ledger.jsonl}.
 */
public final class RunCommand implements Command {
    @Override
    public String name() {
        return "run";
    }

    @Override
    public String summary() {
        return "run a job spec (jobs/*.yaml): private synthetic text from a teacher ensemble";
    }

    @Override
    public String help() {
        return """
                usage: ./hotpate run SPEC.yaml [--out DIR] [--quiet]

                Runs the Hot PATE streaming job described by SPEC (YAML). With kafka: embedded
                and flink: embedded (the defaults) it starts a KRaft broker and a Flink
                MiniCluster (RocksDB, checkpoints) in this process; otherwise it uses the
                external Kafka (kafka.bootstrap) and submits the job to flink.host:flink.port
                with the jar in flink.jar. Outputs: <output.dir>/<run-id>/summary.json,
                records.jsonl (public: released values only), operator.json, ledger.jsonl
                (operator-only). Progress (sequences, tokens, ⊥ rate, ε spent) goes to stderr.
                The spec is validated before anything starts: unknown keys or bad values exit
                with code 2 naming the key; so does a non-private mechanism under a finite
                budget.epsilon, and a dataset (budget.dataset) whose durable budget
                (budget.dataset-epsilon, over all runs) is spent.

                  --out DIR   override output.dir
                  --quiet     no progress bar

                Job spec keys (docs/job-spec.md has examples):
                """
                + JobSpec.describeKeys();
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        CliArgs a = CliArgs.parse(args, Set.of("out"), Set.of("quiet"));
        List<String> pos = a.positional();
        if (pos.size() != 1) {
            throw new UsageException(
                    "expected one job spec file (see --help); got " + pos.size() + " arguments");
        }
        JobConfig cfg = load(Path.of(pos.get(0)), a.string("out", null));
        RunSession started;
        try {
            started = RunSession.start(cfg, null);
        } catch (DatasetLedger.NoBudgetLeftException | JobSpec.SpecException e) {
            throw new UsageException(e.getMessage()); // exit 2 before the job starts
        }
        try (RunSession run = started) {
            cfg = run.config();
            if (run.recordsBatch() != null) {
                RecordsLoader.Batch b = run.recordsBatch();
                err.println(
                        "hotpate run: records "
                                + (b.sourceId() == null
                                        ? "topic " + cfg.records().topic()
                                        : cfg.records().file()
                                                + " (source "
                                                + b.sourceId()
                                                + (b.loaded()
                                                        ? ", produced now; rejected lines "
                                                                + b.fileRejections()
                                                        : ", already on the topic")
                                                + ")")
                                + ": "
                                + b.records()
                                + " valid records of "
                                + b.users()
                                + " users read in "
                                + String.format("%.1f", b.seconds())
                                + " s (operator-only; n = "
                                + cfg.ensemble().teachers()
                                + " teachers is public)");
            }
            err.println(
                    "hotpate run: "
                            + run.runId()
                            + " (kafka "
                            + (cfg.kafka().embedded() ? "embedded " : "")
                            + run.bootstrap()
                            + ", flink "
                            + (cfg.flink().embedded()
                                    ? "embedded"
                                    : cfg.flink().host() + ":" + cfg.flink().port())
                            + ", "
                            + cfg.ensemble().teachers()
                            + " teachers, "
                            + cfg.generation().sequences()
                            + " sequences)");
            boolean done =
                    run.await(
                            Duration.ofSeconds(cfg.output().timeoutSeconds()),
                            a.flag("quiet") ? null : err);
            if (run.recordsBatch() != null && !Double.isNaN(run.secondsToFirstResult())) {
                double s = run.secondsToFirstResult();
                err.println(
                        String.format(
                                "hotpate run: teachers built and answering %.1f s after submission"
                                        + " (first result; ≥ %.0f records/s into %d teachers)",
                                s, run.recordsBatch().records() / s, cfg.ensemble().teachers()));
            }
            ObjectNode summary = run.finish();
            out.println(
                    new ObjectMapper()
                            .writerWithDefaultPrettyPrinter()
                            .writeValueAsString(summary));
            err.println("hotpate run: outputs in " + run.outputDir());
            if (!done) {
                err.println(
                        "hotpate run: timed out after "
                                + cfg.output().timeoutSeconds()
                                + " s (output.timeout-s)");
                return 1;
            }
            return 0;
        }
    }

    /** Loads and validates a spec; every problem is a UsageException naming the key. */
    static JobConfig load(Path spec, String outOverride) {
        if (!Files.isRegularFile(spec)) {
            throw new UsageException("job spec " + spec + " does not exist");
        }
        JobConfig cfg;
        try {
            cfg = JobSpec.load(spec);
            RecordsSpec.checkFiles(cfg);
        } catch (JobSpec.SpecException e) {
            throw new UsageException(spec + ": " + e.getMessage());
        }
        try {
            CoreBindings.mechanism(
                    cfg.mechanism(),
                    cfg.ensemble().effectiveVocabulary(),
                    cfg.ensemble().teachers());
        } catch (IllegalArgumentException e) {
            throw new UsageException(spec + ": mechanism: " + e.getMessage());
        }
        if (outOverride != null) {
            cfg = cfg.withOutput(new JobConfig.Output(outOverride, cfg.output().timeoutSeconds()));
        }
        return cfg;
    }
}
