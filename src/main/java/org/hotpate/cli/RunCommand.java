package org.hotpate.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.hotpate.cluster.ClusterHealth;
import org.hotpate.cluster.ClusterInfo;
import org.hotpate.cluster.ClusterLib;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobOptions;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.RecordsSpec;
import org.hotpate.stream.driver.RunMetadata;
import org.hotpate.stream.driver.RunRefusedException;
import org.hotpate.stream.driver.RunSession;

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
                usage: ./hotpate run SPEC.yaml [--out DIR] [--quiet] [--cluster D]
                                              [--from-savepoint PATH [--run-id RUN-ID]]

                Runs the Hot PATE streaming job described by SPEC (YAML). With kafka: embedded
                and flink: embedded (the defaults) it starts a KRaft broker and a Flink
                MiniCluster (RocksDB, checkpoints) in this process; otherwise it uses the
                external Kafka (kafka.bootstrap) and submits the job to flink.host:flink.port
                with the jar in flink.jar. Outputs: <output.dir>/<run-id>/summary.json,
                records.jsonl (public: released values only), operator.json, ledger.jsonl
                (operator-only). Progress (sequences, tokens, ⊥ rate, ε spent, ETA) goes to stderr.
                Every requested sequence ends in one record (text, or empty with its finish
                reason: NOT_STARTED when the budget ran out before it could start); the run
                exits 0 only then, and 1 on a stall or a timeout, naming the sequences without a record.
                The spec is validated before anything starts: unknown keys or bad values exit
                with code 2 naming the key; so does a non-private mechanism under a finite
                budget.epsilon, and a dataset (budget.dataset) whose durable budget
                (budget.dataset-epsilon, over all runs) is spent.

                  --out DIR             override output.dir
                  --quiet               no progress bar
                  --cluster D           run on the local cluster in D (./hotpate cluster start
                                        --dir D): its Kafka and its Flink, whatever the spec's
                                        kafka/flink modes say; the slim cluster jar is submitted,
                                        checkpoints go to D/checkpoints
                  --from-savepoint PATH resume a run from a savepoint or a retained checkpoint
                                        (.../<job-id>/chk-N) of it: same run id, state restored,
                                        outputs cover the whole run. Needs the run's Kafka
                                        (external or --cluster).
                  --run-id RUN-ID       the run to resume, when PATH has no hotpate-run.json

                On a cluster (flink.mode: remote or --cluster), SIGTERM or Ctrl-C stops the job
                with a savepoint (in D/savepoints, or the cluster's default savepoint directory),
                writes the outputs so far and prints the command that resumes the run; the
                process then exits with 143 (SIGTERM) or 130 (Ctrl-C).

                Job spec keys (docs/job-spec.md has examples):
                """
                + JobSpec.describeKeys();
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        CliArgs a =
                CliArgs.parse(
                        args,
                        Set.of("out", "cluster", "from-savepoint", "run-id"),
                        Set.of("quiet"));
        List<String> pos = a.positional();
        if (pos.size() != 1) {
            throw new UsageException(
                    "expected one job spec file (see --help); got " + pos.size() + " arguments");
        }
        JobConfig cfg = load(Path.of(pos.get(0)), a.string("out", null));
        String savepointDir = null;
        if (a.has("cluster")) {
            Path dir = Path.of(a.string("cluster", null));
            ClusterInfo info;
            try {
                info = ClusterHealth.requireRunning(dir, err);
            } catch (IllegalStateException e) {
                err.println("hotpate run: " + e.getMessage());
                return 1;
            }
            cfg = onCluster(cfg, info, ClusterLib.locate().requireClusterJar(), dir);
            savepointDir =
                    dir.toAbsolutePath().normalize().resolve("savepoints").toUri().toString();
        }
        RunSession.Resume resume = resumeFrom(a, cfg);
        StopOnSignal stop = cfg.flink().embedded() ? null : StopOnSignal.install();
        RunSession started;
        try {
            started = resume == null ? RunSession.start(cfg, null) : RunSession.resume(cfg, resume);
        } catch (RunRefusedException | JobSpec.SpecException e) {
            if (stop != null) {
                stop.release();
            }
            throw new UsageException(e.getMessage()); // exit 2 before the job starts
        }
        try (RunSession run = started) {
            cfg = run.config();
            if (stop != null) {
                stop.watch(run);
            }
            if (run.recordsBatch() != null) { // public values only (issue 30 item 8)
                err.println(RunTexts.recordsLine(cfg, run.recordsBatch(), run.outputDir()));
            }
            err.println(
                    "hotpate run: "
                            + (resume == null ? "" : "resuming ")
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
                            + " sequences"
                            + (resume == null ? "" : ", from " + resume.savepoint())
                            + ")");
            cfg.mechanismPlan()
                    .ifPresent(p -> err.println("hotpate run: mechanism auto: " + p.explanation()));
            boolean done =
                    run.await(
                            cfg.output().timeoutSeconds() == 0
                                    ? Duration.ofDays(3650) // no wall-clock limit
                                    : Duration.ofSeconds(cfg.output().timeoutSeconds()),
                            a.flag("quiet") ? null : err);
            if (run.stopRequested() && !done) {
                return stopWithSavepoint(run, savepointDir, args, out, err);
            }
            double firstResult = run.secondsToFirstResult();
            ObjectNode summary = run.finish();
            out.println(
                    new ObjectMapper()
                            .writerWithDefaultPrettyPrinter()
                            .writeValueAsString(summary));
            if (run.recordsBatch() != null) { // operator-only: follows the private records
                RunTexts.writeRecordsFigures(run.outputDir(), run.recordsBatch(), firstResult);
            }
            RunTexts.report(cfg, run.outputDir(), err);
            err.println("hotpate run: outputs in " + run.outputDir());
            if (!done && run.stalled()) {
                err.println(
                        "hotpate run: stalled: nothing new from the run for "
                                + cfg.stallWindowMs() / 1000
                                + " s (output.stall-checkpoints "
                                + cfg.output().stallCheckpoints()
                                + " x flink.checkpoint-interval-ms "
                                + cfg.flink().checkpointIntervalMs()
                                + (cfg.inJobNgramTeachers()
                                        ? ", at least generation.watchdog-ms for n-gram teachers)"
                                        : ")"));
            } else if (!done) {
                err.println(
                        "hotpate run: timed out after "
                                + cfg.output().timeoutSeconds()
                                + " s (output.timeout-s)");
            }
            if (!done && run.teacherDiagnosis() != null && run.outcome().resultCount() == 0) {
                err.println(run.teacherDiagnosis()); // external teachers that never answered
            }
            List<Long> unaccounted = run.unaccounted();
            if (!unaccounted.isEmpty()) {
                // Never a success with a sequence unaccounted for (DESIGN.md invariant 11).
                err.println(
                        "hotpate run: "
                                + unaccounted.size()
                                + " of "
                                + cfg.generation().sequences()
                                + " sequences have no record: "
                                + (unaccounted.size() <= 20
                                        ? unaccounted.toString()
                                        : unaccounted.subList(0, 20) + " …"));
                long orphans = summary.path("privateTokensWithoutRecord").asLong();
                if (orphans > 0) {
                    err.println(
                            "hotpate run: "
                                    + orphans
                                    + " charged tokens of those sequences are in no record"
                                    + " (summary.json privateTokensWithoutRecord)");
                }
                return 1;
            }
            return done ? 0 : 1;
        } finally {
            if (stop != null) {
                stop.release();
            }
        }
    }

    /**
     * The spec pointed at the local cluster in {@code dir}: its broker and its JobManager, the slim
     * job jar, checkpoints under {@code dir/checkpoints}, the local budget ledger unless the spec
     * names one (the cluster runs on this machine); everything else as the spec says.
     */
    public static JobConfig onCluster(JobConfig cfg, ClusterInfo info, Path clusterJar, Path dir) {
        URI rest = URI.create(info.rest());
        return JobConfig.of(
                cfg.values()
                        // `run spec` and `run spec --cluster D` spend one dataset's one ledger
                        // (issue 30 item 3): the spec's own ledger — local for a spec without a
                        // Kafka (the cluster's TaskManagers share this machine's directory), the
                        // spec's Kafka topic for a spec that names an external Kafka, which then
                        // stays the run's Kafka.
                        .with(JobOptions.BUDGET_LEDGER, cfg.ledgerMode().label())
                        .with(JobOptions.FLINK_FILESYSTEM, "shared")
                        .with(JobOptions.KAFKA_MODE, "external")
                        .with(
                                JobOptions.KAFKA_BOOTSTRAP,
                                cfg.kafka().embedded() ? info.bootstrap() : cfg.kafka().bootstrap())
                        .with(JobOptions.FLINK_MODE, "remote")
                        .with(JobOptions.FLINK_HOST, rest.getHost())
                        .with(JobOptions.FLINK_PORT, rest.getPort())
                        .with(JobOptions.FLINK_JAR, clusterJar.toString())
                        .with(
                                JobOptions.FLINK_STATE_DIR,
                                dir.toAbsolutePath()
                                        .normalize()
                                        .resolve("checkpoints")
                                        .toUri()
                                        .toString()));
    }

    private static RunSession.Resume resumeFrom(CliArgs a, JobConfig cfg) {
        if (!a.has("from-savepoint")) {
            if (a.has("run-id")) {
                throw new UsageException("--run-id only goes with --from-savepoint");
            }
            return null;
        }
        String path = a.string("from-savepoint", null);
        Optional<Path> local = RunMetadata.localPath(path);
        if (local.isPresent() && !Files.isDirectory(local.get())) {
            throw new UsageException("--from-savepoint: no savepoint or checkpoint at " + path);
        }
        String uri = local.map(p -> p.toUri().toString()).orElse(path);
        Optional<RunMetadata> found = RunMetadata.find(path);
        RunMetadata md;
        if (a.has("run-id")) {
            md =
                    new RunMetadata(
                            a.string("run-id", null),
                            found.map(RunMetadata::startMs).orElse(0L),
                            found.map(RunMetadata::distributionsAtStart).orElse(0L));
        } else {
            md =
                    found.orElseThrow(
                            () ->
                                    new UsageException(
                                            "--from-savepoint: "
                                                    + path
                                                    + " has no hotpate-run.json (made by ./hotpate"
                                                    + " run with its savepoints and checkpoints):"
                                                    + " name the run with --run-id RUN-ID"));
        }
        if (cfg.kafka().embedded()) {
            throw new UsageException(
                    "--from-savepoint needs the Kafka the run used (kafka.mode: external or"
                            + " --cluster D): an embedded broker starts empty");
        }
        return new RunSession.Resume(md, uri);
    }

    private static int stopWithSavepoint(
            RunSession run, String savepointDir, String[] args, PrintStream out, PrintStream err)
            throws Exception {
        err.println("hotpate run: stopping " + run.runId() + " with a savepoint ...");
        String savepoint;
        try {
            savepoint = run.stopWithSavepoint(savepointDir, Duration.ofMinutes(2));
        } catch (Exception e) {
            err.println(
                    "hotpate run: stop-with-savepoint failed ("
                            + e
                            + "); cancelling the job. Its retained checkpoints can resume it:"
                            + " --from-savepoint <state-dir>/<job-id>/chk-N");
            run.close();
            return 1;
        }
        ObjectNode summary = run.finish();
        out.println(
                new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(summary));
        List<String> again = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--from-savepoint") || args[i].equals("--run-id")) {
                i++; // and its value
            } else if (!args[i].startsWith("--from-savepoint=")
                    && !args[i].startsWith("--run-id=")) {
                again.add(args[i]);
            }
        }
        String resume =
                "./hotpate run " + String.join(" ", again) + " --from-savepoint " + savepoint;
        ObjectNode stopped = new ObjectMapper().createObjectNode();
        stopped.put("runId", run.runId());
        stopped.put("savepoint", savepoint);
        stopped.put("resume", resume);
        new ObjectMapper()
                .writerWithDefaultPrettyPrinter()
                .writeValue(run.outputDir().resolve("stopped.json").toFile(), stopped);
        err.println("hotpate run: stopped " + run.runId() + " with savepoint " + savepoint);
        err.println("hotpate run: outputs so far in " + run.outputDir() + "; resume with:");
        err.println("  " + resume);
        return 3;
    }

    /**
     * SIGTERM or Ctrl-C while a run is on a cluster: the job must not be left running without its
     * driver. The shutdown hook asks the run to stop and waits while the main thread takes the
     * savepoint and writes the outputs ({@link #release()} lets it go; at most three minutes).
     */
    private static final class StopOnSignal {
        private final CountDownLatch released = new CountDownLatch(1);
        private final AtomicReference<RunSession> run = new AtomicReference<>();
        private volatile boolean signalled;
        private final Thread hook;

        private StopOnSignal() {
            hook =
                    new Thread(
                            () -> {
                                signalled = true;
                                RunSession r = run.get();
                                if (r != null) {
                                    r.requestStop();
                                }
                                try {
                                    released.await(3, TimeUnit.MINUTES);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            },
                            "hotpate-stop-with-savepoint");
        }

        static StopOnSignal install() {
            StopOnSignal s = new StopOnSignal();
            Runtime.getRuntime().addShutdownHook(s.hook);
            return s;
        }

        void watch(RunSession r) {
            run.set(r);
            if (signalled) {
                r.requestStop();
            }
        }

        void release() {
            released.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it returns now that it is released
            }
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
        if (outOverride != null) {
            cfg = cfg.with(JobOptions.OUTPUT_DIR, outOverride);
        }
        return cfg;
    }
}
