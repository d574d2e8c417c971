package org.hotpate.stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.hotpate.core.accounting.IndividualSchemes;
import org.hotpate.core.accounting.SchemeAStep;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.io.AvroWire;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.KafkaAcls;
import org.hotpate.io.KafkaIo;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.Outcome;
import org.hotpate.model.Rejected;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.model.Vote;
import org.hotpate.teachers.TeacherAnswers;

/**
 * One execution of a job spec, driven from this process ({@code ./hotpate run} and the ITCases):
 * reads the dataset's durable budget ledger (and refuses to start when nothing is left), starts
 * Kafka when embedded (with SASL/SCRAM and ACLs when the spec asks for it), creates the topics,
 * starts the built-in teacher worker, draws the run's noise secret, submits the job (MiniCluster or
 * remote cluster), follows {@code results}/{@code records}/{@code ledger}/{@code rejected} as a
 * read_committed consumer (progress bar), and when every sequence is accounted for (scheme-a: and
 * every charge its releases owe is applied) cancels the job and writes the public {@code
 * summary.json} and {@code records.jsonl} and the operator-only {@code operator.json} and {@code
 * ledger.jsonl}.
 */
public final class RunSession implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final JobConfig cfg;
    private final RecordsLoader.Batch batch; // records runs only
    private final String runId;
    private final EmbeddedKafka kafka;
    private final String bootstrap;
    private final long startMs;
    private final Properties client; // the job principal's Kafka client settings
    private final UnaryOperator<String> secrets;
    private DatasetLedger datasetLedger;
    private Budgets.Prior prior;
    private final Resume resume;
    private volatile boolean stopRequested;
    private boolean closed;
    private TeacherWorker worker;
    private Thread workerThread;
    private JobClient job;
    private volatile long submittedMs;
    private volatile long firstResultMs;
    private long distributionsAtStart;
    private Path flinkTmp;

    // What the read_committed follower has seen.
    private final Map<String, StepResult> results = new TreeMap<>();
    private final List<StepResult> duplicateResults = new ArrayList<>();
    private final Map<Long, SyntheticRecord> records = new TreeMap<>();
    private final List<LedgerEntry> ledger = new ArrayList<>();
    private final List<Rejected> rejected = new ArrayList<>();
    private final Set<String> seen = new HashSet<>();

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
    }

    /**
     * Continues a run stopped with a savepoint (or lost, from a retained checkpoint): the job
     * restores its state from {@code savepoint} and keeps the run id, and the driver follows the
     * outputs from the run's original start.
     */
    public record Resume(RunMetadata metadata, String savepoint) {}

    /** A fresh run id: {@code <name>-<UTC yyyyMMdd-HHmmss>-<4 hex>}. */
    public static String newRunId(JobConfig cfg) {
        return cfg.name()
                + "-"
                + ZonedDateTime.now(ZoneOffset.UTC)
                        .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + "-"
                + String.format("%04x", ThreadLocalRandom.current().nextInt(0x10000));
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
        return start(cfg, null, UnaryOperator.identity(), KafkaClients.ENV, resume);
    }

    /**
     * As above; {@code secrets} resolves the password variables named by {@code kafka.sasl.*}
     * (default {@link KafkaClients#ENV}: environment, then system properties). Throws {@link
     * DatasetLedger.NoBudgetLeftException} before the job starts when the dataset has no budget
     * left.
     */
    public static RunSession start(
            JobConfig cfg,
            String bootstrapOverride,
            UnaryOperator<DataStream<Vote>> voteTap,
            UnaryOperator<String> secrets)
            throws Exception {
        return start(cfg, bootstrapOverride, voteTap, secrets, null);
    }

    private static RunSession start(
            JobConfig cfg,
            String bootstrapOverride,
            UnaryOperator<DataStream<Vote>> voteTap,
            UnaryOperator<String> secrets,
            Resume resume)
            throws Exception {
        String runId = resume != null ? resume.metadata().runId() : newRunId(cfg);
        DatasetLedger local = null;
        Budgets.Prior localPrior = null;
        if (cfg.ledgerMode() == JobConfig.LedgerMode.LOCAL) {
            // Before anything starts: a run with no room left exits here.
            local = DatasetLedger.open(cfg, null);
            try {
                localPrior = local.prior(runId);
                local.requireRoom(localPrior);
            } catch (RuntimeException e) {
                local.close();
                throw e;
            }
        }
        EmbeddedKafka kafka = null;
        String bootstrap = bootstrapOverride;
        UnaryOperator<String> resolved = secrets;
        RunSession s = null;
        try {
            if (bootstrap == null) {
                if (cfg.kafka().embedded()) {
                    JobConfig.Security sec = cfg.kafka().security();
                    if (sec.sasl()) {
                        kafka = EmbeddedKafka.startSecured();
                        resolved = embeddedPrincipals(cfg, kafka, secrets);
                    } else {
                        kafka = EmbeddedKafka.start();
                    }
                    bootstrap = kafka.bootstrapServers();
                } else {
                    bootstrap = cfg.kafka().bootstrap();
                }
            }
            RecordsLoader.Batch batch = null;
            if (cfg.ensemble().fromRecords()) {
                // n (the number of teachers) is known only once the batch has been read.
                batch = RecordsLoader.prepare(cfg, bootstrap, runId, null);
                cfg = cfg.withTeachers(batch.directory().teachers());
            }
            s = new RunSession(cfg, batch, runId, kafka, bootstrap, resolved, resume);
            s.datasetLedger = local;
            s.prior = localPrior;
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
     * On an embedded SASL broker: the spec's job and teacher principals as SCRAM users (passwords
     * from {@code secrets}, or fresh random ones that never leave this process) and the ACL layout
     * of {@link KafkaAcls}.
     */
    private static UnaryOperator<String> embeddedPrincipals(
            JobConfig cfg, EmbeddedKafka kafka, UnaryOperator<String> secrets) {
        JobConfig.Security sec = cfg.kafka().security();
        Map<String, String> generated = new HashMap<>();
        UnaryOperator<String> resolved =
                name -> {
                    String v = secrets.apply(name);
                    return v != null ? v : generated.get(name);
                };
        String teacher =
                sec.teacherUsername().isBlank() ? "hotpate-teachers" : sec.teacherUsername();
        for (String[] user :
                new String[][] {
                    {sec.username(), sec.passwordEnv()}, {teacher, sec.teacherPasswordEnv()}
                }) {
            if (secrets.apply(user[1]) == null) {
                byte[] b = new byte[18];
                new java.security.SecureRandom().nextBytes(b);
                generated.put(user[1], java.util.HexFormat.of().formatHex(b));
            }
            kafka.createScramUser(user[0], resolved.apply(user[1]));
        }
        KafkaAcls.grant(
                kafka.adminProperties(), KafkaClients.aclTopics(cfg), sec.username(), teacher);
        return resolved;
    }

    private void launch(UnaryOperator<DataStream<Vote>> voteTap) throws Exception {
        JobConfig.Topics t = cfg.kafka().topics();
        if (datasetLedger == null) {
            datasetLedger = DatasetLedger.open(cfg, client);
            prior = datasetLedger.prior(runId);
            datasetLedger.requireRoom(prior);
        }
        KafkaIo.createTopics(
                client,
                List.of(
                        t.steps(),
                        t.distributions(),
                        t.results(),
                        t.records(),
                        t.ledger(),
                        t.rejected(),
                        t.teacherFeedback()),
                cfg.kafka().partitions(),
                Map.of());
        distributionsAtStart =
                resume != null && resume.metadata().distributionsAtStart() > 0
                        ? resume.metadata().distributionsAtStart()
                        : endOffsets(t.distributions());
        if (cfg.ensemble().source() == JobConfig.TeacherSource.PLANET_Z
                || cfg.ensemble().source() == JobConfig.TeacherSource.ALPHA_MIXTURE) {
            worker =
                    new TeacherWorker(
                            workerSettings(
                                    cfg, bootstrap, runId, 0, cfg.ensemble().teachers(), secrets),
                            answers(cfg, cfg.ensemble()));
            workerThread = new Thread(worker, "teacher-worker");
            workerThread.setDaemon(true);
            workerThread.start();
        }
        StreamExecutionEnvironment env = environment();
        HotPateJob.build(
                env,
                cfg,
                runId,
                RunContext.of(prior).withTeacherCharges(datasetLedger.teacherCharges()),
                KafkaIo.rawSource(
                        bootstrap, t.steps(), "hotpate-job-" + runId, startMs - 1000, client),
                KafkaIo.rawSource(
                        bootstrap,
                        t.distributions(),
                        "hotpate-job-" + runId,
                        startMs - 1000,
                        client),
                KafkaIo.rawSource(
                        bootstrap,
                        t.teacherFeedback(),
                        "hotpate-job-" + runId,
                        startMs - 1000,
                        client),
                batch == null
                        ? null
                        : new HotPateJob.RecordsInput(
                                KafkaIo.boundedSource(
                                        bootstrap,
                                        cfg.records().topic(),
                                        "hotpate-job-records-" + runId,
                                        batch.stopOffsets(),
                                        batch.sourceId()),
                                batch.directory()),
                KafkaIo.exactlyOnceSink(
                        bootstrap, "hotpate-" + runId, cfg.kafka().transactionTimeoutMs(), client),
                voteTap);
        submittedMs = System.currentTimeMillis();
        job = env.executeAsync("hotpate " + runId);
        // Next to the job's retained checkpoints: --from-savepoint <state-dir>/<job-id>/chk-N
        // finds the run it belongs to.
        metadata().writeInto(checkpointDir().replaceAll("/+$", "") + "/" + job.getJobID());
    }

    private RunMetadata metadata() {
        return new RunMetadata(runId, startMs, distributionsAtStart);
    }

    private String checkpointDir() {
        return cfg.flink().stateDir().isEmpty()
                ? outputDir().resolve("checkpoints").toAbsolutePath().toUri().toString()
                : cfg.flink().stateDir();
    }

    /**
     * Asks {@link #follow} to return at its next poll (a signal handler calls this; the caller then
     * stops the job with {@link #stopWithSavepoint}).
     */
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
        String path =
                job.stopWithSavepoint(
                                false,
                                targetDir,
                                org.apache.flink.core.execution.SavepointFormatType.CANONICAL)
                        .get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        metadata().writeInto(path);
        return path;
    }

    /** The teacher-worker settings a spec implies, without client security (tests). */
    public static TeacherWorker.Settings workerSettings(
            JobConfig cfg, String bootstrap, String runId, int from, int to) {
        JobConfig.Topics t = cfg.kafka().topics();
        return new TeacherWorker.Settings(
                bootstrap, t.steps(), t.distributions(), cfg.ensemble().id(), runId, from, to);
    }

    /**
     * The teacher-worker settings a spec implies, as the teacher principal (also used by ./hotpate
     * teachers).
     */
    public static TeacherWorker.Settings workerSettings(
            JobConfig cfg,
            String bootstrap,
            String runId,
            int from,
            int to,
            UnaryOperator<String> secrets) {
        JobConfig.Topics t = cfg.kafka().topics();
        Map<String, String> client = new HashMap<>();
        KafkaClients.teacher(cfg, bootstrap, secrets)
                .forEach((k, v) -> client.put(k.toString(), v.toString()));
        return new TeacherWorker.Settings(
                bootstrap,
                t.steps(),
                t.distributions(),
                cfg.ensemble().id(),
                runId,
                from,
                to,
                client);
    }

    /** How the simulated teachers of {@code ensemble} answer, in the spec's payload form. */
    public static TeacherAnswers answers(JobConfig cfg, JobConfig.Ensemble ensemble) {
        return new TeacherAnswers(
                ensemble.simulated(),
                TeacherAnswers.Form.valueOf(ensemble.payload().name()),
                ensemble.topK(),
                ensemble.samples(),
                Samplers.byName(cfg.sampler().name()));
    }

    private StreamExecutionEnvironment environment() throws IOException {
        Path out = outputDir();
        Files.createDirectories(out);
        String checkpoints = checkpointDir();
        if (cfg.flink().embedded()) {
            // Inside the run's output dir (BUILD-NOTES: a killed MiniCluster leaves files behind in
            // /tmp);
            // deleted when the run closes.
            flinkTmp = Files.createDirectories(out.resolve("flink-tmp")).toAbsolutePath();
            Configuration conf =
                    HotPateJob.flinkConfiguration(cfg, checkpoints, flinkTmp.toString());
            restoreFrom(conf);
            return StreamExecutionEnvironment.createLocalEnvironment(
                    cfg.flink().parallelism(), conf);
        }
        Configuration conf = HotPateJob.flinkConfiguration(cfg, checkpoints, null);
        restoreFrom(conf);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment(
                        cfg.flink().host(), cfg.flink().port(), conf, cfg.flink().jar());
        env.setParallelism(cfg.flink().parallelism());
        return env;
    }

    private void restoreFrom(Configuration conf) {
        if (resume != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, resume.savepoint());
        }
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
        return firstResultMs == 0 ? Double.NaN : (firstResultMs - submittedMs) / 1000.0;
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

    /** Whether every sequence is finished or can no longer start (budget exhausted). */
    public synchronized boolean complete() {
        int c = cfg.generation().concurrency();
        long accounted = records.size();
        for (SyntheticRecord r : records.values()) {
            if (r.finishReason().equals("BUDGET_EXHAUSTED")) {
                for (long j = r.sequenceId() + c; j < cfg.generation().sequences(); j += c) {
                    accounted++;
                }
            }
        }
        return accounted >= cfg.generation().sequences();
    }

    /**
     * Scheme A: whether every charge the run's admitted releases owe is applied — for each
     * TEACHER_FEEDBACK entry of the accountant (a release and how many teachers its outcome
     * charges) the vote operator's TEACHER_CHARGE entries for that step are visible. The run is
     * finished only then, so it never ends with a BETWEEN outcome still in flight to a teacher's
     * charges (docs/privacy-accounting.md). Always true for other mechanisms.
     */
    public synchronized boolean teacherFeedbackApplied() {
        if (!cfg.mechanism().name().equals(SchemeAStep.NAME)) {
            return true;
        }
        Map<String, Long> owed = new HashMap<>();
        Map<String, Set<Long>> applied = new HashMap<>();
        for (LedgerEntry e : ledger) {
            String k = e.sequenceId() + "/" + e.step() + "/" + e.attempt();
            if (e.kind().equals(LedgerEntry.TEACHER_FEEDBACK)) {
                owed.put(k, e.releases());
            } else if (e.kind().equals(LedgerEntry.TEACHER_CHARGE)) {
                applied.computeIfAbsent(k, x -> new HashSet<>()).add(e.teacherId());
            }
        }
        for (Map.Entry<String, Long> o : owed.entrySet()) {
            if (applied.getOrDefault(o.getKey(), Set.of()).size() < o.getValue()) {
                return false;
            }
        }
        return true;
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
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        JobConfig.Topics t = cfg.kafka().topics();
        Properties p = new Properties();
        p.putAll(client);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(
                ConsumerConfig.GROUP_ID_CONFIG,
                "hotpate-follower-" + runId + "-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(t.results(), t.records(), t.ledger(), t.rejected()));
            long lastPrint = 0;
            long completeSince = 0;
            long settleMs = Math.max(2000, 3 * cfg.flink().checkpointIntervalMs());
            while (System.currentTimeMillis() < deadline && !stopRequested) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(250))) {
                    if (r.timestamp() >= startMs - 1000) {
                        accept(r);
                    }
                }
                if (afterPoll != null) {
                    afterPoll.accept(this);
                }
                if (progress != null && System.currentTimeMillis() - lastPrint > 500) {
                    progress.print("\r" + progressLine());
                    progress.flush();
                    lastPrint = System.currentTimeMillis();
                }
                if (complete() && teacherFeedbackApplied()) {
                    // Sink subtasks commit their transactions independently: let the other
                    // subtasks' commits of the same checkpoint become visible before returning.
                    if (completeSince == 0) {
                        completeSince = System.currentTimeMillis();
                    } else if (System.currentTimeMillis() - completeSince > settleMs) {
                        if (progress != null) {
                            progress.println("\r" + progressLine());
                        }
                        return true;
                    }
                    continue;
                }
                JobStatus st = job.getJobStatus().get();
                if (st.isGloballyTerminalState() && !stopRequested) {
                    throw new IllegalStateException(
                            "the Flink job ended early with status "
                                    + st
                                    + (st == JobStatus.FAILED ? " (see the log)" : ""));
                }
            }
        }
        if (progress != null) {
            progress.println();
        }
        return false;
    }

    private synchronized void accept(ConsumerRecord<byte[], byte[]> r) {
        if (!seen.add(r.topic() + "/" + r.partition() + "/" + r.offset())) {
            return; // read again by a later follow(): not a new record
        }
        JobConfig.Topics t = cfg.kafka().topics();
        try {
            if (r.topic().equals(t.results())) {
                StepResult s = AvroWire.decodeResult(r.value());
                if (s.runId().equals(runId)) {
                    if (firstResultMs == 0) {
                        firstResultMs = System.currentTimeMillis();
                    }
                    String k = s.sequenceId() + "/" + s.step() + "/" + s.attempt();
                    if (results.putIfAbsent(k, s) != null) {
                        duplicateResults.add(s);
                    }
                }
            } else if (r.topic().equals(t.records())) {
                SyntheticRecord s = AvroWire.decodeRecord(r.value());
                if (s.runId().equals(runId)) {
                    records.put(s.sequenceId(), s);
                }
            } else if (r.topic().equals(t.ledger())) {
                LedgerEntry e = AvroWire.decodeLedger(r.value());
                if (e.runId().equals(runId)) {
                    ledger.add(e);
                }
            } else {
                Rejected x = AvroWire.decodeRejected(r.value());
                if (x.runId() == null || x.runId().equals(runId)) {
                    rejected.add(x);
                }
            }
        } catch (AvroWire.UndecodableException e) {
            // Someone else's bytes on a shared topic: not this run's output.
        }
    }

    public synchronized String progressLine() {
        int width = 24;
        int n = cfg.generation().sequences();
        int done = records.size();
        int bar = (int) Math.round(width * Math.min(1.0, done / (double) n));
        long tokens = tokens();
        long fails = fails();
        double failRate = results.isEmpty() ? 0 : fails / (double) results.size();
        double secs = Math.max(1e-3, (System.currentTimeMillis() - startMs) / 1000.0);
        return String.format(
                "[%s%s] %d/%d sequences | %d tokens | ⊥ %.1f%% | %s | %.1f tok/s ",
                "#".repeat(bar),
                ".".repeat(width - bar),
                done,
                n,
                tokens,
                100 * failRate,
                cfg.isPrivate()
                        ? String.format("ε %.3f/%.3f", epsilon(), cfg.budget().epsilon())
                        : "NOT PRIVATE",
                tokens / secs);
    }

    public synchronized long tokens() {
        return results.values().stream().filter(r -> r.outcome() == Outcome.TOKEN).count();
    }

    public synchronized long fails() {
        return results.values().stream().filter(r -> r.outcome() == Outcome.FAIL).count();
    }

    public synchronized double epsilon() {
        return ledger.stream()
                .filter(e -> e.kind().equals("CHARGE"))
                .mapToDouble(LedgerEntry::epsilonAfter)
                .max()
                .orElse(0);
    }

    public synchronized List<StepResult> results() {
        return List.copyOf(results.values());
    }

    public synchronized List<StepResult> duplicateResults() {
        return List.copyOf(duplicateResults);
    }

    public synchronized List<SyntheticRecord> records() {
        return List.copyOf(records.values());
    }

    public synchronized List<LedgerEntry> ledger() {
        return List.copyOf(ledger);
    }

    public synchronized List<Rejected> rejected() {
        return List.copyOf(rejected);
    }

    /**
     * Stops the job and writes the outputs: the public {@code summary.json} and {@code
     * records.jsonl} (released or public values only) and the operator-only {@code operator.json}
     * and {@code ledger.jsonl}. Returns the public summary.
     */
    public ObjectNode finish() throws Exception {
        double secs = (System.currentTimeMillis() - startMs) / 1000.0;
        long distributions =
                endOffsets(cfg.kafka().topics().distributions()) - distributionsAtStart;
        cancelJob();
        Path out = outputDir();
        Files.createDirectories(out);
        double datasetEpsilon = datasetEpsilon(); // this run's curve included
        ObjectNode summary = summary(secs, datasetEpsilon);
        JSON.writerWithDefaultPrettyPrinter()
                .writeValue(out.resolve("summary.json").toFile(), summary);
        JSON.writerWithDefaultPrettyPrinter()
                .writeValue(
                        out.resolve("operator.json").toFile(),
                        operatorSummary(secs, distributions));
        try (BufferedWriter w = Files.newBufferedWriter(out.resolve("records.jsonl"))) {
            for (SyntheticRecord r : records()) {
                ObjectNode o = JSON.createObjectNode();
                o.put("sequence", r.sequenceId());
                ArrayNode toks = o.putArray("tokens");
                for (int tk : r.tokens()) {
                    toks.add(tk);
                }
                if (batch != null) {
                    o.put("prompt", r.prompt());
                    if (!r.label().isEmpty()) {
                        o.put("label", r.label());
                    }
                }
                o.put("text", r.text());
                o.put("steps", r.steps());
                o.put("fails", r.fails());
                o.put("fallbacks", r.fallbacks());
                o.put("finishReason", r.finishReason());
                w.write(JSON.writeValueAsString(o));
                w.newLine();
            }
        }
        if (IndividualSchemes.isIndividual(cfg.mechanism().name())) {
            writeTeachers(out.resolve("teachers.jsonl"));
        }
        try (BufferedWriter w = Files.newBufferedWriter(out.resolve("ledger.jsonl"))) {
            for (LedgerEntry e : ledger()) {
                ObjectNode o = JSON.createObjectNode();
                o.put("kind", e.kind());
                o.put("sequence", e.sequenceId());
                o.put("step", e.step());
                o.put("attempt", e.attempt());
                if (e.teacherId() >= 0) {
                    o.put("teacher", e.teacherId());
                }
                o.put("mechanism", e.mechanism());
                if (!e.privacyEvent().isEmpty()) {
                    o.set("event", JSON.readTree(e.privacyEvent()));
                }
                if (e.kind().equals(LedgerEntry.TEACHER_FEEDBACK)) {
                    o.put("involved", e.votesCast());
                    o.put("charged", e.releases());
                } else {
                    putNumber(o, "epsilon", e.epsilonAfter());
                    putNumber(o, "delta", e.delta());
                    o.put("releases", e.releases());
                    if (e.votesCast() >= 0) {
                        o.put("votesCast", e.votesCast());
                    }
                }
                putNumber(o, "datasetEpsilon", e.datasetEpsilonAfter());
                o.put("atMs", e.atMs());
                w.write(JSON.writeValueAsString(o));
                w.newLine();
            }
        }
        return summary;
    }

    /**
     * The operator-only {@code teachers.jsonl} of a per-teacher run: one row per teacher charged in
     * this run — {@code teacher}, {@code epsilon} (its individual ε at the per-teacher target δ,
     * over every run on the dataset), {@code charges} (on the dataset), {@code chargesThisRun},
     * {@code retired}. Data-dependent: never public.
     */
    private void writeTeachers(Path file) throws IOException {
        Map<Long, ObjectNode> rows = new TreeMap<>();
        for (LedgerEntry e : ledger()) {
            if (e.kind().equals(LedgerEntry.TEACHER_CHARGE)) {
                ObjectNode o =
                        rows.computeIfAbsent(
                                e.teacherId(),
                                id -> {
                                    ObjectNode n = JSON.createObjectNode();
                                    n.put("teacher", id);
                                    n.put("epsilon", 0.0);
                                    n.put("charges", 0L);
                                    n.put("chargesThisRun", 0L);
                                    n.put("retired", false);
                                    return n;
                                });
                if (e.releases() >= o.get("charges").asLong()) {
                    o.put("charges", e.releases());
                    o.put("epsilon", e.epsilonAfter());
                }
                o.put("chargesThisRun", o.get("chargesThisRun").asLong() + 1);
            }
        }
        for (LedgerEntry e : ledger()) {
            if (e.kind().equals(LedgerEntry.TEACHER_RETIRED) && rows.containsKey(e.teacherId())) {
                rows.get(e.teacherId()).put("retired", true);
            }
        }
        try (BufferedWriter w = Files.newBufferedWriter(file)) {
            for (ObjectNode o : rows.values()) {
                w.write(JSON.writeValueAsString(o));
                w.newLine();
            }
        }
    }

    /**
     * The dataset's ε over every run in the durable ledger, read again now that the job is stopped;
     * if the ledger cannot be read, the last value the accountant reported (earlier runs plus this
     * one, from the operator-only ledger entries).
     */
    private double datasetEpsilon() {
        try {
            return datasetLedger.datasetEpsilon();
        } catch (RuntimeException e) {
            double fromEntries =
                    ledger().stream()
                            .filter(x -> x.kind().equals("CHARGE"))
                            .mapToDouble(LedgerEntry::datasetEpsilonAfter)
                            .max()
                            .orElse(Budgets.epsilon(prior, cfg.budget().delta()));
            System.err.println(
                    "hotpate run: could not re-read the budget ledger ("
                            + e.getMessage()
                            + "); dataset_epsilon from the run's ledger entries");
            return fromEntries;
        }
    }

    /** A finite number, or null (∞: no guarantee; NaN: not applicable). */
    private static void putNumber(ObjectNode o, String key, double v) {
        if (Double.isFinite(v)) {
            o.put(key, v);
        } else {
            o.putNull(key);
        }
    }

    /**
     * The public summary: only released or public values (DESIGN.md invariant 8) — counts of
     * released tokens and ⊥, ε spent (data-independent), the budgets, n, the dataset and its ε over
     * all runs. Nothing about votes, retired teachers, rejected input or distributions received:
     * those are in {@link #operatorSummary}.
     */
    private synchronized ObjectNode summary(double secs, double datasetEpsilon) {
        boolean isPrivate = cfg.isPrivate();
        ObjectNode s = JSON.createObjectNode();
        s.put("runId", runId);
        s.put("private", isPrivate);
        s.put("sequences", records.size());
        s.put("sequencesRequested", cfg.generation().sequences());
        s.put("tokens", records.values().stream().mapToLong(r -> r.tokens().length).sum());
        s.put("privateTokens", tokens());
        s.put("fails", fails());
        s.put("fallbacks", records.values().stream().mapToLong(SyntheticRecord::fallbacks).sum());
        putNumber(s, "epsilon", isPrivate ? epsilon() : Double.POSITIVE_INFINITY);
        s.put("delta", cfg.budget().delta());
        putNumber(s, "budgetEpsilon", cfg.budget().epsilon());
        s.put("budgetExhausted", ledger.stream().anyMatch(e -> e.kind().equals("REFUSED")));
        s.put("dataset", cfg.datasetId());
        putNumber(s, "dataset_epsilon", isPrivate ? datasetEpsilon : Double.POSITIVE_INFINITY);
        putNumber(s, "datasetBudgetEpsilon", cfg.budget().datasetEpsilon());
        s.put("mechanism", cfg.mechanism().name());
        if (IndividualSchemes.isIndividual(cfg.mechanism().name())) {
            // The per-teacher target is public; what each teacher spent is not (teachers.jsonl).
            s.put("perTeacherEpsilon", cfg.budget().perTeacherEpsilon());
            s.put("perTeacherDelta", cfg.budget().targetTeacherDelta());
        }
        s.put("sampler", cfg.sampler().name());
        s.put("teachers", cfg.ensemble().teachers());
        if (cfg.ensemble().fromRecords()) {
            s.put("tokenizer", cfg.records().tokenizer());
        }
        s.put("teacherSource", cfg.ensemble().source().name().toLowerCase().replace('_', '-'));
        s.put("releases", ledger.stream().filter(e -> e.kind().equals("CHARGE")).count());
        s.put("elapsedSeconds", round(secs));
        s.put(
                "tokensPerSecond",
                round(records.values().stream().mapToLong(r -> r.tokens().length).sum() / secs));
        Map<String, Integer> reasons = new HashMap<>();
        records.values().forEach(r -> reasons.merge(r.finishReason(), 1, Integer::sum));
        s.set("finishReasons", JSON.valueToTree(new TreeMap<>(reasons)));
        return s;
    }

    /**
     * The operator-only summary ({@code operator.json}): data-dependent and liveness figures that
     * must not be published — votes cast, steps abandoned below the quorum, retired teachers,
     * rejected input and its reasons, distributions received.
     */
    private synchronized ObjectNode operatorSummary(double secs, long distributions) {
        ObjectNode s = JSON.createObjectNode();
        s.put("runId", runId);
        s.put("dataset", cfg.datasetId());
        s.put("earlierRunsOnDataset", prior == null ? 0 : prior.runs());
        s.put(
                "votesCast",
                ledger.stream()
                        .filter(
                                e ->
                                        !e.kind().equals("TEACHER_RETIRED")
                                                && !e.kind().equals(LedgerEntry.TEACHER_FEEDBACK)
                                                && e.votesCast() > 0)
                        .mapToLong(LedgerEntry::votesCast)
                        .sum());
        s.put("abandonedSteps", ledger.stream().filter(e -> e.kind().equals("ABANDONED")).count());
        List<Long> retired =
                ledger.stream()
                        .filter(e -> e.kind().equals("TEACHER_RETIRED"))
                        .map(LedgerEntry::teacherId)
                        .sorted()
                        .toList();
        s.put("retiredTeachers", retired.size());
        s.put(
                "chargedTeachers",
                ledger.stream()
                        .filter(e -> e.kind().equals(LedgerEntry.TEACHER_CHARGE))
                        .map(LedgerEntry::teacherId)
                        .distinct()
                        .count());
        s.set("retiredTeacherIds", JSON.valueToTree(retired));
        s.put("rejected", rejected.size());
        Map<String, Integer> why = new TreeMap<>();
        rejected.forEach(r -> why.merge(r.reason(), 1, Integer::sum));
        s.set("rejectedReasons", JSON.valueToTree(why));
        s.put("distributions", distributions);
        s.put("distributionsPerSecond", round(distributions / secs));
        return s;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private long endOffsets(String topic) {
        try (Admin admin = Admin.create(client)) {
            Set<TopicPartition> parts = new HashSet<>();
            admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get()
                    .get(topic)
                    .partitions()
                    .forEach(pi -> parts.add(new TopicPartition(topic, pi.partition())));
            Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            parts.forEach(tp -> q.put(tp, OffsetSpec.latest()));
            return admin.listOffsets(q).all().get().values().stream()
                    .mapToLong(o -> o.offset())
                    .sum();
        } catch (Exception e) {
            return 0;
        }
    }

    private void cancelJob() {
        if (job != null) {
            try {
                if (!job.getJobStatus().get().isGloballyTerminalState()) {
                    job.cancel().get();
                }
            } catch (Exception ignored) {
                // already gone
            }
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        cancelJob();
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
            deleteQuietly(flinkTmp);
        }
    }

    /**
     * Best-effort recursive delete. RocksDB may still be removing its own files while the cancelled
     * job shuts down, so entries vanishing under the walk are expected and skipped.
     */
    static void deleteQuietly(Path root) {
        try {
            Files.walkFileTree(
                    root,
                    new java.nio.file.SimpleFileVisitor<>() {
                        @Override
                        public java.nio.file.FileVisitResult visitFile(
                                Path file, java.nio.file.attribute.BasicFileAttributes attrs) {
                            file.toFile().delete();
                            return java.nio.file.FileVisitResult.CONTINUE;
                        }

                        @Override
                        public java.nio.file.FileVisitResult visitFileFailed(
                                Path file, IOException e) {
                            return java.nio.file.FileVisitResult.CONTINUE;
                        }

                        @Override
                        public java.nio.file.FileVisitResult postVisitDirectory(
                                Path dir, IOException e) {
                            dir.toFile().delete();
                            return java.nio.file.FileVisitResult.CONTINUE;
                        }
                    });
        } catch (IOException | RuntimeException ignored) {
            // best effort: a leftover temp directory is harmless
        }
    }
}
