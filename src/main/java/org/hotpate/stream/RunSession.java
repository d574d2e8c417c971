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
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.io.AvroWire;
import org.hotpate.io.EmbeddedKafka;
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
 * starts Kafka when embedded, creates the topics, starts the built-in teacher worker, submits the
 * job (MiniCluster or remote cluster), follows {@code results}/{@code records}/{@code
 * ledger}/{@code rejected} as a read_committed consumer (progress bar), and when every sequence is
 * accounted for cancels the job and writes {@code summary.json}, {@code records.jsonl} and {@code
 * ledger.jsonl}.
 */
public final class RunSession implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final JobConfig cfg;
    private final String runId;
    private final EmbeddedKafka kafka;
    private final String bootstrap;
    private final long startMs;
    private final Resume resume;
    private volatile boolean stopRequested;
    private boolean closed;
    private TeacherWorker worker;
    private Thread workerThread;
    private JobClient job;
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
            JobConfig cfg, String runId, EmbeddedKafka kafka, String bootstrap, Resume resume) {
        this.cfg = cfg;
        this.runId = runId;
        this.kafka = kafka;
        this.bootstrap = bootstrap;
        this.resume = resume;
        this.startMs = resume != null ? resume.metadata().startMs() : System.currentTimeMillis();
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
        return start(cfg, bootstrapOverride, voteTap, null);
    }

    /** Resumes a run from a savepoint or retained checkpoint ({@link Resume}). */
    public static RunSession resume(JobConfig cfg, Resume resume) throws Exception {
        return start(cfg, null, UnaryOperator.identity(), resume);
    }

    private static RunSession start(
            JobConfig cfg,
            String bootstrapOverride,
            UnaryOperator<DataStream<Vote>> voteTap,
            Resume resume)
            throws Exception {
        String runId = resume != null ? resume.metadata().runId() : newRunId(cfg);
        EmbeddedKafka kafka = null;
        String bootstrap = bootstrapOverride;
        if (bootstrap == null) {
            if (cfg.kafka().embedded()) {
                kafka = EmbeddedKafka.start();
                bootstrap = kafka.bootstrapServers();
            } else {
                bootstrap = cfg.kafka().bootstrap();
            }
        }
        RunSession s = new RunSession(cfg, runId, kafka, bootstrap, resume);
        try {
            s.launch(voteTap);
        } catch (Exception e) {
            s.close();
            throw e;
        }
        return s;
    }

    private void launch(UnaryOperator<DataStream<Vote>> voteTap) throws Exception {
        JobConfig.Topics t = cfg.kafka().topics();
        KafkaIo.createTopics(
                bootstrap,
                List.of(
                        t.steps(),
                        t.distributions(),
                        t.results(),
                        t.records(),
                        t.ledger(),
                        t.rejected()),
                cfg.kafka().partitions());
        distributionsAtStart =
                resume != null && resume.metadata().distributionsAtStart() > 0
                        ? resume.metadata().distributionsAtStart()
                        : endOffsets(t.distributions());
        if (cfg.ensemble().source() != JobConfig.TeacherSource.EXTERNAL) {
            worker =
                    new TeacherWorker(
                            workerSettings(cfg, bootstrap, runId, 0, cfg.ensemble().teachers()),
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
                KafkaIo.rawSource(bootstrap, t.steps(), "hotpate-job-" + runId, startMs - 1000),
                KafkaIo.rawSource(
                        bootstrap, t.distributions(), "hotpate-job-" + runId, startMs - 1000),
                KafkaIo.exactlyOnceSink(
                        bootstrap, "hotpate-" + runId, cfg.kafka().transactionTimeoutMs()),
                voteTap);
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

    /** The teacher-worker settings a spec implies (also used by ./hotpate teachers). */
    public static TeacherWorker.Settings workerSettings(
            JobConfig cfg, String bootstrap, String runId, int from, int to) {
        JobConfig.Topics t = cfg.kafka().topics();
        return new TeacherWorker.Settings(
                bootstrap, t.steps(), t.distributions(), cfg.ensemble().id(), runId, from, to);
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
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
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
                if (complete()) {
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
                "[%s%s] %d/%d sequences | %d tokens | ⊥ %.1f%% | ε %.3f/%.3f | %.1f tok/s ",
                "#".repeat(bar),
                ".".repeat(width - bar),
                done,
                n,
                tokens,
                100 * failRate,
                epsilon(),
                cfg.budget().epsilon(),
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

    /** Stops the job and writes the outputs; returns the summary. */
    public ObjectNode finish() throws Exception {
        double secs = (System.currentTimeMillis() - startMs) / 1000.0;
        long distributions =
                endOffsets(cfg.kafka().topics().distributions()) - distributionsAtStart;
        cancelJob();
        Path out = outputDir();
        Files.createDirectories(out);
        ObjectNode summary = summary(secs, distributions);
        JSON.writerWithDefaultPrettyPrinter()
                .writeValue(out.resolve("summary.json").toFile(), summary);
        try (BufferedWriter w = Files.newBufferedWriter(out.resolve("records.jsonl"))) {
            for (SyntheticRecord r : records()) {
                ObjectNode o = JSON.createObjectNode();
                o.put("sequence", r.sequenceId());
                ArrayNode toks = o.putArray("tokens");
                for (int tk : r.tokens()) {
                    toks.add(tk);
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
                o.put("epsilon", e.epsilonAfter());
                o.put("delta", e.delta());
                o.put("releases", e.releases());
                o.put("atMs", e.atMs());
                w.write(JSON.writeValueAsString(o));
                w.newLine();
            }
        }
        return summary;
    }

    private synchronized ObjectNode summary(double secs, long distributions) {
        ObjectNode s = JSON.createObjectNode();
        s.put("runId", runId);
        s.put("sequences", records.size());
        s.put("sequencesRequested", cfg.generation().sequences());
        s.put("tokens", records.values().stream().mapToLong(r -> r.tokens().length).sum());
        s.put("privateTokens", tokens());
        s.put("fails", fails());
        s.put("fallbacks", records.values().stream().mapToLong(SyntheticRecord::fallbacks).sum());
        s.put("epsilon", epsilon());
        s.put("delta", cfg.budget().delta());
        s.put("budgetEpsilon", cfg.budget().epsilon());
        s.put("budgetExhausted", ledger.stream().anyMatch(e -> e.kind().equals("REFUSED")));
        s.put("mechanism", cfg.mechanism().name());
        s.put("sampler", cfg.sampler().name());
        s.put("teachers", cfg.ensemble().teachers());
        s.put("teacherSource", cfg.ensemble().source().name().toLowerCase().replace('_', '-'));
        s.put("releases", ledger.stream().filter(e -> e.kind().equals("CHARGE")).count());
        s.put(
                "retiredTeachers",
                ledger.stream().filter(e -> e.kind().equals("TEACHER_RETIRED")).count());
        s.put("rejected", rejected.size());
        Map<String, Integer> why = new TreeMap<>();
        rejected.forEach(r -> why.merge(r.reason(), 1, Integer::sum));
        s.set("rejectedReasons", JSON.valueToTree(why));
        s.put("distributions", distributions);
        s.put("elapsedSeconds", round(secs));
        s.put(
                "tokensPerSecond",
                round(records.values().stream().mapToLong(r -> r.tokens().length).sum() / secs));
        s.put("distributionsPerSecond", round(distributions / secs));
        Map<String, Integer> reasons = new HashMap<>();
        records.values().forEach(r -> reasons.merge(r.finishReason(), 1, Integer::sum));
        s.set("finishReasons", JSON.valueToTree(new TreeMap<>(reasons)));
        return s;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private long endOffsets(String topic) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
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
