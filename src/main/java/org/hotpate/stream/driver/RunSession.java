package org.hotpate.stream.driver;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.KafkaIo;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.Rejected;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.model.Vote;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.LocalHold;
import org.hotpate.protocol.TeacherIds;
import org.hotpate.stream.HotPateJob;
import org.hotpate.stream.JobIo;
import org.hotpate.stream.RunContext;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.Topic;

/**
 * One execution of a job spec, driven from this process ({@code ./hotpate run} and the ITCases):
 * reads the dataset's durable budget ledger (and refuses to start when nothing is left), starts
 * Kafka when embedded (with SASL/SCRAM and ACLs when the spec asks for it), creates the topics,
 * starts the built-in teacher worker, draws the run's noise secret, submits the job (MiniCluster or
 * remote cluster), follows {@code results}/{@code records}/{@code ledger}/{@code rejected} as a
 * read_committed consumer (progress bar), and when every requested sequence has its record ({@link
 * RunOutcome#complete}; scheme-a: and every charge its releases owe is applied) cancels the job and
 * writes the public {@code summary.json} and {@code records.jsonl} and the operator-only {@code
 * operator.json} and {@code ledger.jsonl}.
 */
public final class RunSession implements AutoCloseable {
    private JobConfig cfg; // teacher.prior-file is set once the prior is released
    private final RecordsLoader.Batch batch; // records runs only
    private final String runId;
    private final EmbeddedKafka kafka;
    private final String bootstrap;
    private final long startMs;
    private final Properties client; // the job principal's Kafka client settings
    private final UnaryOperator<String> secrets;
    private DatasetLedger datasetLedger;
    private DatasetPrior prior;
    private String account; // the ledger account: the run id, or a resumed fork's
    private String savepoint; // where stopWithSavepoint left the run (null: not stopped so)
    private final Resume resume;
    private FixedNoise fixedNoise; // the golden-run test only
    private PriorRelease.Released priorRelease; // null: the run has no population prior
    private volatile boolean stopRequested;
    private boolean closed;
    private TeacherWorker worker;
    private Thread workerThread;
    private volatile JobClient job; // volatile: a lost lease cancels it from the lease thread
    private volatile long submittedMs;
    private long distributionsAtStart;
    private Path flinkTmp;

    private final RunOutcome outcome;
    private final RunFollower follower;
    private TeacherSilence silence; // external teachers only: says when none answers

    private RunSession(
            JobConfig cfg,
            RecordsLoader.Batch batch,
            String runId,
            EmbeddedKafka kafka,
            String bootstrap,
            UnaryOperator<String> secrets,
            Resume resume) {
        this.cfg = cfg;
        this.batch = batch;
        this.runId = runId;
        this.kafka = kafka;
        this.bootstrap = bootstrap;
        this.resume = resume;
        this.startMs = resume != null ? resume.metadata().startMs() : System.currentTimeMillis();
        this.secrets = secrets;
        this.client = KafkaClients.job(cfg, bootstrap, secrets);
        this.outcome =
                new RunOutcome(
                        cfg.generation().sequences(),
                        cfg.generation().concurrency(),
                        cfg.plan().accounting().feedsOutcomesBack());
        this.follower = new RunFollower(cfg, runId, startMs, client, outcome);
    }

    /**
     * Continues a run stopped with a savepoint (or lost, from a retained checkpoint): the job
     * restores its state from {@code savepoint} and keeps the run id, and the driver follows the
     * outputs from the run's original start.
     */
    public record Resume(RunMetadata metadata, String savepoint) {}

    /**
     * A fresh run id: {@code <name>-<UTC yyyyMMdd-HHmmss>-<32 hex>}, the hex 128 bits from {@link
     * SecureRandom} (two runs started in the same second must not collide: the run id keys the
     * dataset's ledger entry and seeds the public step randomness).
     */
    public static String newRunId(JobConfig cfg) {
        return RunInfra.newRunId(cfg.name(), ZonedDateTime.now(ZoneOffset.UTC));
    }

    /**
     * Starts the run. {@code bootstrapOverride} (tests) uses an existing broker whatever {@code
     * kafka.mode} says.
     */
    public static RunSession start(JobConfig cfg, String bootstrapOverride) throws Exception {
        return start(cfg, bootstrapOverride, UnaryOperator.identity());
    }

    /**
     * As {@link #start(JobConfig, String)} with a vote tap (the ITCases' failure-injection seam).
     */
    public static RunSession start(
            JobConfig cfg, String bootstrapOverride, UnaryOperator<DataStream<Vote>> voteTap)
            throws Exception {
        return start(cfg, bootstrapOverride, voteTap, KafkaClients.ENV);
    }

    /** Resumes a run from a savepoint or retained checkpoint ({@link Resume}). */
    public static RunSession resume(JobConfig cfg, Resume resume) throws Exception {
        return start(cfg, null, UnaryOperator.identity(), KafkaClients.ENV, resume, null);
    }

    /**
     * As above; {@code secrets} resolves the password variables named by {@code kafka.sasl.*}
     * (default {@link KafkaClients#ENV}: environment, then system properties). Throws {@link
     * NoBudgetLeftException} before the job starts when the dataset has no budget left.
     */
    public static RunSession start(
            JobConfig cfg,
            String bootstrapOverride,
            UnaryOperator<DataStream<Vote>> voteTap,
            UnaryOperator<String> secrets)
            throws Exception {
        return start(cfg, bootstrapOverride, voteTap, secrets, null, null);
    }

    /** TEST SEAM ONLY (GoldenRunITCase): a fixed run id and noise secret; predictable noise. */
    record FixedNoise(String runId, byte[] secret) {}

    static RunSession startWithFixedNoiseForTestsOnly(JobConfig cfg, FixedNoise fixed)
            throws Exception {
        return start(cfg, null, UnaryOperator.identity(), KafkaClients.ENV, null, fixed);
    }

    private static RunSession start(
            JobConfig cfg,
            String bootstrapOverride,
            UnaryOperator<DataStream<Vote>> voteTap,
            UnaryOperator<String> secrets,
            Resume resume,
            FixedNoise fixed)
            throws Exception {
        String runId =
                resume != null
                        ? resume.metadata().runId()
                        : fixed != null ? fixed.runId() : newRunId(cfg);
        DatasetLedger local = null;
        if (!LedgerStores.of(cfg, null).onRunBroker()) {
            // Before anything starts: a run with no room left exits here.
            local = DatasetLedger.open(cfg, null);
        }
        EmbeddedKafka kafka = null;
        String bootstrap = bootstrapOverride;
        UnaryOperator<String> resolved = secrets;
        RunSession s = null;
        try {
            if (bootstrap == null) {
                RunInfra.Broker broker = RunInfra.broker(cfg, secrets);
                kafka = broker.embedded();
                bootstrap = broker.bootstrap();
                resolved = broker.secrets();
            }
            RecordsLoader.Batch batch = null;
            if (cfg.ensemble().fromRecords()) {
                // n (the number of teachers) is known only once the batch has been read.
                batch = RecordsLoader.prepare(cfg, bootstrap, runId, null);
                cfg = cfg.withTeachers(batch.directory().teachers());
            }
            s = new RunSession(cfg, batch, runId, kafka, bootstrap, resolved, resume);
            s.fixedNoise = fixed;
            s.datasetLedger = local;
            if (local != null) {
                s.composePrior();
            }
            s.launch(voteTap);
        } catch (Exception | Error e) {
            if (s != null) {
                s.close();
            } else {
                if (kafka != null) {
                    kafka.close();
                }
                if (local != null) {
                    local.close();
                }
            }
            throw e;
        }
        return s;
    }

    /**
     * The admission ({@link RunAdmission#admit}, the sequence {@link ClusterJob} runs too): holds
     * the dataset (its lease on the Kafka ledger; the local ledger's lock is already held), aborts
     * the previous run's leftover transactions, decides the ledger account (a resume whose entry
     * went on after its snapshot forks), composes the earlier runs and refuses a run without room.
     */
    private void composePrior() {
        RunAdmission.Admitted a =
                RunAdmission.cli(
                        datasetLedger,
                        runId,
                        resume,
                        cfg.kafka().embedded() ? null : client,
                        () ->
                                RunAdmission.abortLeftoverTransactions(
                                        cfg, client, datasetLedger, runId));
        account = a.account();
        prior = a.prior();
    }

    /**
     * {@code teacher.prior: dp-ngram}: releases the population prior once the dataset admitted the
     * run (so a refused run never draws one); the accountant charges it before the first step.
     */
    private void releasePrior() throws java.io.IOException {
        priorRelease =
                PriorRelease.release(cfg, runId, resume != null, datasetLedger, account, prior);
        if (priorRelease == null) {
            return;
        }
        cfg = priorRelease.config();
        var x = priorRelease.extraction();
        System.err.printf(
                java.util.Locale.ROOT,
                "hotpate run: population prior (teacher.prior dp-ngram): %d n-grams of up to %d"
                        + " tokens released, k %d per user, sigma %.1f, threshold %d, %.0f%% of"
                        + " the run's Renyi budget -> %s%n",
                priorRelease.ngrams(),
                x.maxLength(),
                x.perUser(),
                x.sigma(),
                x.threshold(),
                100 * cfg.records().teacher().priorShare(),
                priorRelease.file());
    }

    /** The run's population prior release, or null. */
    public PriorRelease.Released priorRelease() {
        return priorRelease;
    }

    private void launch(UnaryOperator<DataStream<Vote>> voteTap) throws Exception {
        JobConfig.Topics t = cfg.kafka().topics();
        if (datasetLedger == null) {
            datasetLedger = DatasetLedger.open(cfg, client);
            composePrior();
        }
        releasePrior();
        KafkaIo.createTopics(
                client, t.names(Topic.CREATED_WITH_RUN), cfg.kafka().partitions(), Map.of());
        distributionsAtStart =
                resume != null && resume.metadata().distributionsAtStart() > 0
                        ? resume.metadata().distributionsAtStart()
                        : endOffsets(t.name(Topic.DISTRIBUTIONS));
        if (cfg.ensemble().source() == JobConfig.TeacherSource.EXTERNAL) {
            silence =
                    new TeacherSilence(
                            cfg,
                            bootstrap,
                            () -> endOffsets(t.name(Topic.DISTRIBUTIONS)) - distributionsAtStart);
        }
        if (cfg.ensemble().source() == JobConfig.TeacherSource.PLANET_Z
                || cfg.ensemble().source() == JobConfig.TeacherSource.ALPHA_MIXTURE) {
            worker =
                    new TeacherWorker(
                            TeacherWorker.settings(
                                    cfg, bootstrap, runId, 0, cfg.ensemble().teachers(), secrets),
                            TeacherWorker.answers(cfg, cfg.ensemble()));
            workerThread = new Thread(worker, "teacher-worker");
            workerThread.setDaemon(true);
            workerThread.start();
        }
        StreamExecutionEnvironment env = environment();
        HotPateJob.build(
                env,
                cfg,
                runId,
                teacherContext(),
                datasetLedger.store().sink(),
                JobIo.kafka(
                        cfg,
                        bootstrap,
                        runId,
                        startMs - 1000,
                        client,
                        Optional.ofNullable(batch)
                                .map(
                                        b ->
                                                new JobIo.RecordsInput(
                                                        KafkaIo.boundedSource(
                                                                bootstrap,
                                                                cfg.records().topic(),
                                                                "hotpate-job-records-" + runId,
                                                                b.stopOffsets(),
                                                                b.sourceId()),
                                                        b.directory()))),
                voteTap);
        String rest = "http://" + cfg.flink().host() + ":" + cfg.flink().port();
        if (!cfg.flink().embedded()) {
            // A cluster job outlives this driver: the dataset's hold names it before it exists,
            // and a lost lease cancels it (an embedded job's accountant checks the lease itself).
            datasetLedger.jobSubmitting(rest, RunInfra.fixJobId(env));
            datasetLedger.onLeaseLost(this::cancelJob);
        }
        submittedMs = System.currentTimeMillis();
        job = env.executeAsync(LocalHold.jobName(runId));
        if (!cfg.flink().embedded()) {
            datasetLedger.jobSubmitted(rest, job.getJobID().toString());
        }
        // Next to the job's retained checkpoints: --from-savepoint <state-dir>/<job-id>/chk-N
        // finds the run it belongs to.
        metadata().writeInto(checkpointDir().replaceAll("/+$", "") + "/" + job.getJobID());
    }

    /**
     * What the job starts each teacher from; a records run with one teacher per user keys its
     * durable entries by the users' pseudonyms (ranks shift between batches).
     */
    private RunContext teacherContext() {
        TeacherIds ids = datasetLedger.teacherIds(batch == null ? null : batch.directory());
        RunContext context = datasetLedger.teacherPriors(ids).context(prior, ids, account);
        return fixedNoise == null ? context : withNoiseSecret(context, fixedNoise.secret());
    }

    /** The golden-run test's seam ({@link FixedNoise}): this context, another secret. */
    private static RunContext withNoiseSecret(RunContext c, byte[] secret) {
        return new RunContext(
                secret,
                c.prior(),
                c.teacherCharges(),
                c.teacherVersions(),
                c.teacherIds(),
                c.ledgerAccount());
    }

    private RunMetadata metadata() {
        return new RunMetadata(runId, startMs, distributionsAtStart, account, -1, null);
    }

    /** The ledger account this run charges: its run id, or a fork's. */
    public String account() {
        return account;
    }

    private String checkpointDir() {
        return RunInfra.checkpointDir(cfg, outputDir());
    }

    /** Asks {@link #follow} to return at its next poll (then {@link #stopWithSavepoint}). */
    public void requestStop() {
        stopRequested = true;
    }

    public boolean stopRequested() {
        return stopRequested;
    }

    /**
     * Stops the job with a savepoint in {@code targetDir} (null: the cluster's default savepoint
     * directory) and returns its path; the run can go on with {@link #resume} from it.
     */
    public String stopWithSavepoint(String targetDir, Duration timeout) throws Exception {
        String path = RunInfra.stopWithSavepoint(job, targetDir, timeout);
        // The ledger entry as the stopped job left it: a resume that finds more forks.
        metadata().atSavepoint(account, datasetLedger.entry(account)).writeInto(path);
        savepoint = path;
        return path;
    }

    private StreamExecutionEnvironment environment() throws IOException {
        Path out = outputDir();
        Files.createDirectories(out);
        if (cfg.flink().embedded()) {
            // Inside the run's output dir (BUILD-NOTES: a killed MiniCluster leaves files behind in
            // /tmp); deleted when the run closes.
            flinkTmp = Files.createDirectories(out.resolve("flink-tmp")).toAbsolutePath();
        }
        return RunInfra.environment(
                cfg, checkpointDir(), flinkTmp, resume == null ? null : resume.savepoint());
    }

    public String runId() {
        return runId;
    }

    /** The config the job runs with (records runs: n = the number of teachers built). */
    public JobConfig config() {
        return cfg;
    }

    /**
     * Seconds from job submission to the first visible result (records runs: an upper bound on the
     * time to build every teacher, which answer only once all records are counted); NaN before.
     */
    public double secondsToFirstResult() {
        long first = follower.firstResultMs();
        return first == 0 ? Double.NaN : (first - submittedMs) / 1000.0;
    }

    /** Records runs: what the driver loaded and read (null otherwise). */
    public RecordsLoader.Batch recordsBatch() {
        return batch;
    }

    public String bootstrap() {
        return bootstrap;
    }

    public JobClient job() {
        return job;
    }

    public Path outputDir() {
        return Path.of(cfg.output().dir()).resolve(runId);
    }

    /** What the driver has seen of the run so far (its read_committed outputs). */
    public RunOutcome outcome() {
        return outcome;
    }

    /** Whether every requested sequence has its record ({@link RunOutcome#complete}). */
    public boolean complete() {
        return outcome.complete();
    }

    /** The requested sequences without a record so far, in order ({@link RunOutcome}). */
    public List<Long> unaccounted() {
        return outcome.unaccounted();
    }

    /** Scheme A: every charge the releases owe is applied ({@link RunOutcome}). */
    public boolean teacherFeedbackApplied() {
        return outcome.teacherFeedbackApplied();
    }

    /**
     * Follows the output topics until the run is complete (or {@code timeout}), printing a progress
     * line to {@code progress} (null: quiet). Returns whether it completed.
     */
    public boolean await(Duration timeout, PrintStream progress) throws Exception {
        return follow(timeout, progress, null);
    }

    /**
     * Follows the outputs until {@code condition} holds (or {@code timeout}); for tests that wait
     * for an effect after the run completed. Returns whether it held.
     */
    public boolean awaitCondition(
            java.util.function.Predicate<RunSession> condition, Duration timeout) throws Exception {
        boolean[] held = {false};
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (!held[0] && System.currentTimeMillis() < deadline) {
            follow(
                    Duration.ofMillis(
                            Math.min(1000, Math.max(1, deadline - System.currentTimeMillis()))),
                    null,
                    r -> held[0] |= condition.test(r));
            held[0] |= condition.test(this);
        }
        return held[0];
    }

    /** Like {@link #await} with a hook called after each poll (tests inject faults here). */
    public boolean follow(Duration timeout, PrintStream progress, Consumer<RunSession> afterPoll)
            throws Exception {
        return follower.follow(
                timeout,
                progress,
                () -> {
                    if (silence != null) {
                        silence.check(submittedMs, follower.firstResultMs(), progress);
                    }
                    if (afterPoll != null) {
                        afterPoll.accept(this);
                    }
                },
                () -> stopRequested,
                () -> {
                    JobStatus st = job.getJobStatus().get();
                    return !st.isGloballyTerminalState()
                            ? null
                            : "the Flink job ended early with status "
                                    + st
                                    + (st == JobStatus.FAILED ? " (see the log)" : "");
                });
    }

    /** Whether the last await gave up on the stall detector ({@code output.stall-checkpoints}). */
    public boolean stalled() {
        return follower.stalled();
    }

    /** External teachers: the last warning that they are not answering (null: none). */
    public String teacherDiagnosis() {
        return silence == null ? null : silence.last();
    }

    public String progressLine() {
        return follower.progressLine();
    }

    public long tokens() {
        return outcome.tokens();
    }

    public double epsilon() {
        return outcome.epsilon();
    }

    public List<StepResult> results() {
        return outcome.results();
    }

    public List<StepResult> duplicateResults() {
        return outcome.duplicateResults();
    }

    public List<SyntheticRecord> records() {
        return outcome.records();
    }

    public List<LedgerEntry> ledger() {
        return outcome.ledger();
    }

    public List<Rejected> rejected() {
        return outcome.rejected();
    }

    /**
     * Stops the job and writes the outputs ({@link RunReport}): the public {@code summary.json} and
     * {@code records.jsonl} (released or public values only) and the operator-only {@code
     * operator.json} and {@code ledger.jsonl}. Returns the public summary.
     */
    public ObjectNode finish() throws Exception {
        double secs = (System.currentTimeMillis() - startMs) / 1000.0;
        long distributions =
                endOffsets(cfg.kafka().topics().name(Topic.DISTRIBUTIONS)) - distributionsAtStart;
        cancelJob();
        return new RunSummary(cfg, runId, outcome, datasetLedger, account, prior, savepoint)
                .write(secs, distributions, outputDir());
    }

    private long endOffsets(String topic) {
        return RunInfra.endOffsets(client, topic);
    }

    private void cancelJob() {
        RunInfra.cancelJob(job);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        cancelJob();
        if (datasetLedger != null
                && job != null
                && !cfg.flink().embedded()
                && RunInfra.jobEnded(job)) {
            datasetLedger.jobEnded(); // else the hold keeps asking the JobManager about the job
        }
        if (worker != null) {
            worker.close();
            try {
                workerThread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (kafka != null) {
            kafka.close();
        }
        if (datasetLedger != null) {
            datasetLedger.close();
        }
        if (flinkTmp != null) {
            org.hotpate.io.LocalFiles.deleteTreeQuietly(flinkTmp);
        }
    }
}
