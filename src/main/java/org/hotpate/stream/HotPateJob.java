package org.hotpate.stream;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.KafkaOut;
import org.hotpate.model.RawRecord;
import org.hotpate.model.ReleaseCandidate;
import org.hotpate.model.StepResult;
import org.hotpate.model.TeacherRecord;
import org.hotpate.model.Vote;
import org.hotpate.model.VoteBatch;
import org.hotpate.protocol.AccountingMode;
import org.hotpate.protocol.RunShape;
import org.hotpate.protocol.SequenceId;
import org.hotpate.protocol.StepId;
import org.hotpate.stream.config.CoreBindings;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSections;
import org.hotpate.stream.config.Topic;
import org.hotpate.stream.ops.BoundPrometheusReporterFactory;
import org.hotpate.stream.ops.DecodeDistributions;
import org.hotpate.stream.ops.DecodeSteps;
import org.hotpate.stream.ops.DecodeTeacherFeedback;
import org.hotpate.stream.ops.JobMetrics;
import org.hotpate.stream.ops.LedgerSink;
import org.hotpate.stream.ops.RunAccountant;
import org.hotpate.stream.ops.SequenceLoop;
import org.hotpate.stream.ops.StepFactory;
import org.hotpate.stream.ops.StepReducer;
import org.hotpate.stream.ops.Tags;
import org.hotpate.stream.ops.VoteAnswers;
import org.hotpate.stream.ops.VoteCombiner;
import org.hotpate.stream.ops.VoteOperator;

/**
 * Assembles the Hot PATE topology of DESIGN.md from a validated config, its inputs and its sink
 * ({@link JobIo}; the caller builds production Kafka I/O, tests may pass others):
 *
 * <pre>
 * steps ──decode──┬─broadcast─┐
 *                 │           ▼
 * distributions ─decode, vote─ keyBy(teacher) ─ VoteOperator ─ combine ─┐
 *                 │  (no per-teacher rules: votes go direct) ─ combine ─┤
 *                 └────────────── keyBy(step) ─────────────────────── StepReducer
 *   ─ keyBy(run) ─ RunAccountant ─ keyBy(sequence) ─ SequenceLoop ─▶ steps (the loop closes through Kafka)
 * results, records, ledger, rejected, budget-ledger, teacher-feedback ─▶ one exactly-once Kafka sink
 *                                                                        (one subtask: one transaction)
 * </pre>
 *
 * The sequence loop also reads the decoded steps (its watchdog), and the accountant composes the
 * run with the dataset's earlier runs ({@link RunContext}). Under an accounting mode that feeds
 * outcomes back (scheme-a) the accountant (and the reducer, for votes in no release) writes each
 * involved teacher's outcome to {@code teacher-feedback} through the same sink, and a
 * read_committed source reads it back into the vote operator (a second loop through Kafka).
 */
public final class HotPateJob {
    /**
     * Vote pre-aggregation ({@link VoteCombiner}): a step's batch leaves at this many votes, and
     * every batch after this long (besides at each checkpoint barrier) so that a step whose votes
     * are all in closes without waiting for the next checkpoint.
     */
    static final int COMBINER_MAX_BATCH = 4096;

    static final long COMBINER_FLUSH_MS = 20;

    private HotPateJob() {}

    /** How long closed steps, dedupe entries and finished sequences are remembered. */
    public static long retentionMs(JobConfig cfg) {
        return Math.max(Duration.ofMinutes(10).toMillis(), 20 * cfg.generation().stepDeadlineMs());
    }

    /**
     * The topology of run {@code runId}, whose driver drew its noise secret and composed its
     * dataset's earlier runs ({@code run}), whose ledger store's operator side is {@code ledger};
     * {@code voteTap} is applied to each vote stream before it is combined for the reducer — the
     * test seam through which ITCases inject a failure (identity in production).
     */
    public static void build(
            StreamExecutionEnvironment env,
            JobConfig cfg,
            String runId,
            RunContext run,
            LedgerSink ledger,
            JobIo io,
            UnaryOperator<DataStream<Vote>> voteTap) {
        requireAlignedCheckpoints(env);
        new Topology(env, cfg, runId, run, ledger, io, voteTap).build();
    }

    /**
     * Aligned checkpoints only (issue 39 item 4): the accountant emits a release and its charge
     * before the same barrier, and only an aligned barrier reaches the sinks after both, so they
     * commit in one transaction. An unaligned barrier overtakes records in flight, so the charge
     * could land in a later transaction than its release. Refuses an override (the cluster's {@code
     * execution.checkpointing.unaligned.enabled} or {@code .forced}).
     */
    static void requireAlignedCheckpoints(StreamExecutionEnvironment env) {
        var conf = env.getConfiguration();
        if (conf.get(CheckpointingOptions.ENABLE_UNALIGNED)
                || conf.get(CheckpointingOptions.FORCE_UNALIGNED)
                || env.getCheckpointConfig().isUnalignedCheckpointsEnabled()
                || env.getCheckpointConfig().isForceUnalignedCheckpoints()) {
            throw new org.hotpate.stream.config.JobSpec.SpecException(
                    "execution.checkpointing.unaligned.enabled must be false: a release and its"
                            + " budget charge must commit in the same checkpoint, which only"
                            + " aligned checkpoints guarantee");
        }
    }

    /** The topology's streams, built in order. */
    private static final class Topology {
        private final StreamExecutionEnvironment env;
        private final JobConfig cfg;
        private final String runId;
        private final RunContext run;
        private final LedgerSink ledger;
        private final JobIo io;
        private final UnaryOperator<DataStream<Vote>> voteTap;
        private final JobConfig.Topics topics;
        private final RunShape shape;
        private final AccountingMode mode;
        private final long retention;
        private final Outputs outputs;

        Topology(
                StreamExecutionEnvironment env,
                JobConfig cfg,
                String runId,
                RunContext run,
                LedgerSink ledger,
                JobIo io,
                UnaryOperator<DataStream<Vote>> voteTap) {
            this.env = env;
            this.cfg = cfg;
            this.runId = runId;
            this.run = run;
            this.ledger = ledger;
            this.io = io;
            this.voteTap = voteTap;
            this.topics = cfg.kafka().topics();
            this.shape = OperatorValues.runShape(cfg, runId);
            this.mode = cfg.plan().accounting();
            this.retention = retentionMs(cfg);
            this.outputs = new Outputs(topics, ledger.onJobOutput(), mode.feedsOutcomesBack());
        }

        void build() {
            SingleOutputStreamOperator<GenerationStep> steps =
                    source(io.steps(), "steps-source")
                            .process(new DecodeSteps(shape))
                            .uid("decode-steps")
                            .name("decode-steps");
            outputs.add(Topic.REJECTED, steps.getSideOutput(Tags.REJECTED));
            DataStream<VoteBatch> batches = votes(steps);
            SingleOutputStreamOperator<ReleaseCandidate> candidates = reduce(batches, steps);
            SingleOutputStreamOperator<StepResult> results = account(candidates);
            loop(results, steps);
            outputs.sinkTo(io.sink());
        }

        private DataStream<RawRecord> source(Source<RawRecord, ?, ?> source, String uid) {
            return env.fromSource(source, WatermarkStrategy.noWatermarks(), uid).uid(uid);
        }

        /**
         * Answers → votes: decoded and voted at the source; through the teacher-keyed vote operator
         * (open-step check, dedupe, per-teacher accounting) or — without per-teacher rules —
         * straight on (issue 12, "vote where the payload lands"); each vote stream gets its own
         * combiner, chained with the operator that makes its votes.
         */
        private DataStream<VoteBatch> votes(SingleOutputStreamOperator<GenerationStep> steps) {
            DecodeDistributions.Settings answers =
                    new DecodeDistributions.Settings(
                            topics.name(Topic.DISTRIBUTIONS),
                            cfg.ensemble().teachers(),
                            shape,
                            cfg.sampler().name(),
                            !mode.keepsAccounts());
            SingleOutputStreamOperator<Vote> decoded =
                    source(io.distributions(), "distributions-source")
                            .process(new DecodeDistributions(answers))
                            .uid("decode-distributions")
                            .name("decode-distributions");
            outputs.add(Topic.REJECTED, decoded.getSideOutput(Tags.REJECTED));
            DataStream<Vote> answered =
                    io.records().isEmpty()
                            ? decoded
                            : decoded.union(recordsTeacherVotes(steps, answers));
            DataStream<VoteOperator.Input> teacherInput =
                    answered.map(VoteOperator.Input::of)
                            .returns(Types.POJO(VoteOperator.Input.class))
                            .uid("vote-input")
                            .name("vote-input");
            if (mode.feedsOutcomesBack()) {
                SingleOutputStreamOperator<VoteOperator.Input> feedback =
                        source(io.teacherFeedback(), "teacher-feedback-source")
                                .process(new DecodeTeacherFeedback(runId))
                                .returns(Types.POJO(VoteOperator.Input.class))
                                .uid("decode-teacher-feedback")
                                .name("decode-teacher-feedback");
                outputs.add(Topic.REJECTED, feedback.getSideOutput(Tags.REJECTED));
                teacherInput = teacherInput.union(feedback);
            }
            SingleOutputStreamOperator<Vote> votes =
                    teacherInput
                            .keyBy(VoteOperator.Input::teacherId, Types.LONG)
                            .connect(steps.broadcast(VoteOperator.OPEN_STEPS))
                            .process(new VoteOperator(voteSettings()))
                            .uid("vote")
                            .name("vote");
            outputs.add(Topic.LEDGER, votes.getSideOutput(Tags.LEDGER));
            outputs.add(Topic.REJECTED, votes.getSideOutput(Tags.REJECTED));
            outputs.add(Topic.TEACHER_SPENDING, votes.getSideOutput(Tags.TEACHER_LEDGER));
            return combine(votes, "combine-votes")
                    .union(
                            combine(
                                    decoded.getSideOutput(Tags.SOURCE_VOTES),
                                    "combine-source-votes"));
        }

        /** Records runs: the teachers built from private records answer in the job. */
        private DataStream<Vote> recordsTeacherVotes(
                DataStream<GenerationStep> steps, DecodeDistributions.Settings answers) {
            SingleOutputStreamOperator<TeacherRecord> records =
                    RecordsBranch.decode(env, cfg, runId, io.records().get());
            outputs.add(Topic.REJECTED, records.getSideOutput(Tags.REJECTED));
            SingleOutputStreamOperator<Vote> votes =
                    RecordsBranch.teachers(cfg, records, steps, retention)
                            .process(new VoteAnswers(answers))
                            .uid("vote-answers")
                            .name("vote-answers");
            outputs.add(Topic.REJECTED, votes.getSideOutput(Tags.REJECTED));
            return votes;
        }

        private VoteOperator.Settings voteSettings() {
            return new VoteOperator.Settings(
                    topics.name(Topic.DISTRIBUTIONS),
                    cfg.generation().stepDeadlineMs(),
                    retention,
                    mode,
                    cfg.datasetId(),
                    run.teacherCharges(),
                    ledger,
                    run.teacherVersions(),
                    run.teacherIds());
        }

        private DataStream<VoteBatch> combine(DataStream<Vote> votes, String uid) {
            return voteTap.apply(votes)
                    .transform(
                            uid,
                            TypeInformation.of(VoteBatch.class),
                            new VoteCombiner(COMBINER_MAX_BATCH, COMBINER_FLUSH_MS))
                    .uid(uid)
                    .name(uid);
        }

        /** Votes and steps keyed by step → release candidates (or abandoned steps). */
        private SingleOutputStreamOperator<ReleaseCandidate> reduce(
                DataStream<VoteBatch> batches, DataStream<GenerationStep> steps) {
            SingleOutputStreamOperator<ReleaseCandidate> candidates =
                    batches.keyBy((VoteBatch b) -> StepId.keyOf(b), Types.STRING)
                            .connect(
                                    steps.keyBy(
                                            (GenerationStep s) -> StepId.keyOf(s), Types.STRING))
                            .process(
                                    new StepReducer(
                                            new StepReducer.Settings(
                                                    topics.name(Topic.DISTRIBUTIONS),
                                                    shape,
                                                    cfg.ensemble().teachers(),
                                                    cfg.minTeachers(),
                                                    retention,
                                                    cfg.plan().mechanism(),
                                                    mode,
                                                    run.noiseSecret(),
                                                    run.ledgerAccount(),
                                                    cfg.inJobNgramTeachers())))
                            .uid("reduce")
                            .name("reduce");
            outputs.add(Topic.LEDGER, candidates.getSideOutput(Tags.LEDGER));
            outputs.add(Topic.REJECTED, candidates.getSideOutput(Tags.REJECTED));
            outputs.add(Topic.TEACHER_FEEDBACK, candidates.getSideOutput(Tags.TEACHER_FEEDBACK));
            return candidates;
        }

        /** Candidates keyed by run → charged results (charge before emit). */
        private SingleOutputStreamOperator<StepResult> account(
                DataStream<ReleaseCandidate> candidates) {
            SingleOutputStreamOperator<StepResult> results =
                    candidates
                            .keyBy(ReleaseCandidate::runId, Types.STRING)
                            .process(
                                    new RunAccountant(
                                            new RunAccountant.Settings(
                                                    cfg.plan().budget(),
                                                    run.prior(),
                                                    cfg.plan().isPrivate(),
                                                    mode,
                                                    ledger,
                                                    run.ledgerAccount(),
                                                    CoreBindings.preCharge(cfg))))
                            .uid("accountant")
                            .name("accountant");
            outputs.add(Topic.RESULTS, results);
            outputs.add(Topic.LEDGER, results.getSideOutput(Tags.LEDGER));
            outputs.add(Topic.REJECTED, results.getSideOutput(Tags.REJECTED));
            outputs.add(Topic.BUDGET_LEDGER, results.getSideOutput(Tags.BUDGET_LEDGER));
            outputs.add(Topic.TEACHER_FEEDBACK, results.getSideOutput(Tags.TEACHER_FEEDBACK));
            return results;
        }

        /** Results keyed by sequence → the next steps; the first steps of the run start it. */
        private void loop(DataStream<StepResult> results, DataStream<GenerationStep> steps) {
            StepFactory factory = OperatorValues.stepFactory(cfg, runId);
            JobSections.Generation gen = cfg.generation();
            SingleOutputStreamOperator<GenerationStep> next =
                    results.keyBy(r -> SequenceId.keyOf(r.runId(), r.sequenceId()), Types.STRING)
                            .connect(
                                    steps.keyBy(
                                            s -> SequenceId.keyOf(s.runId(), s.sequenceId()),
                                            Types.STRING))
                            .process(
                                    new SequenceLoop(
                                            new SequenceLoop.Settings(
                                                    factory,
                                                    cfg.sequencePolicy(),
                                                    retention,
                                                    cfg.watchdogMs(),
                                                    OperatorValues.sequenceText(cfg),
                                                    gen.stopToken(),
                                                    CoreBindings.publicModel(cfg.ensemble()),
                                                    // records runs: no finish times in public
                                                    !cfg.ensemble().fromRecords())))
                            .uid("sequence-loop")
                            .name("sequence-loop");
            int first = cfg.sequencePolicy().schedule().firstWave();
            DataStream<GenerationStep> starts =
                    env.fromSequence(0, first - 1)
                            .uid("start-sequences")
                            .name("start-sequences")
                            .map(
                                    id ->
                                            factory.step(
                                                    id,
                                                    0,
                                                    0,
                                                    new int[0],
                                                    System.currentTimeMillis()))
                            .returns(Types.POJO(GenerationStep.class))
                            .uid("first-steps")
                            .name("first-steps");
            outputs.add(Topic.STEPS, next.union(starts));
            outputs.add(Topic.RECORDS, next.getSideOutput(Tags.RECORDS));
        }
    }

    /**
     * Every output of the job, gathered per topic and encoded to the one exactly-once sink ({@link
     * Topic#out}): outputs of one checkpoint commit in one transaction, so a release, its charge,
     * its durable ledger entry and its scheme-a feedback are visible together or not at all.
     */
    private static final class Outputs {
        private final JobConfig.Topics topics;
        private final boolean kafkaLedger;
        private final boolean feedback;
        private final Map<Topic<?>, DataStream<?>> streams = new LinkedHashMap<>();

        /**
         * {@code kafkaLedger}: the durable ledger is the Kafka topic (not local files); {@code
         * feedback}: the accounting mode feeds outcomes back to the teachers.
         */
        Outputs(JobConfig.Topics topics, boolean kafkaLedger, boolean feedback) {
            this.topics = topics;
            this.kafkaLedger = kafkaLedger;
            this.feedback = feedback;
        }

        /** {@code s} goes to {@code topic} (with whatever else goes there). */
        @SuppressWarnings("unchecked")
        <T> void add(Topic<T> topic, DataStream<T> s) {
            streams.merge(topic, s, (a, b) -> ((DataStream<T>) a).union((DataStream<T>) b));
        }

        void sinkTo(Sink<KafkaOut> sink) {
            DataStream<KafkaOut> out =
                    encode(Topic.STEPS, "encode-steps")
                            .union(
                                    encode(Topic.RESULTS, "encode-results"),
                                    encode(Topic.RECORDS, "encode-records"),
                                    encode(Topic.LEDGER, "encode-ledger"),
                                    stream(Topic.REJECTED)
                                            .map(
                                                    new JobMetrics.EncodeRejected(
                                                            topics.name(Topic.REJECTED)))
                                            .returns(Types.POJO(KafkaOut.class))
                                            .uid("encode-rejected")
                                            .name("encode-rejected"));
            if (kafkaLedger) {
                // Same transaction as the releases the entry covers (write-ahead).
                out =
                        out.union(
                                encode(Topic.BUDGET_LEDGER, "encode-budget-ledger"),
                                encode(Topic.TEACHER_SPENDING, "encode-teacher-ledger"));
            }
            if (feedback) {
                // Same transaction as the release the outcome belongs to (the reducer adds the
                // uncharged resolutions of votes that are in no release).
                out = out.union(encode(Topic.TEACHER_FEEDBACK, "encode-teacher-feedback"));
            }
            // One sink subtask (issue 30 item 5): a teacher's charge (the vote operator, at its
            // vote), the release (the accountant) and the next step (the sequence loop) are in
            // one transaction, or the charge in an earlier one of the same producer — committed
            // in checkpoint order. Two subtasks committed two transactions one after the other,
            // and a kill between them, with no restore, showed a release without its charge.
            out.sinkTo(sink).uid("kafka-sink").name("kafka-sink").setParallelism(1);
        }

        @SuppressWarnings("unchecked")
        private <T> DataStream<T> stream(Topic<T> topic) {
            return (DataStream<T>) streams.get(topic);
        }

        private <T> DataStream<KafkaOut> encode(Topic<T> topic, String uid) {
            String name = topics.name(topic);
            return stream(topic)
                    .map(r -> topic.out(name, r))
                    .returns(Types.POJO(KafkaOut.class))
                    .uid(uid)
                    .name(uid);
        }
    }

    /**
     * The Flink configuration a run gives its job: RocksDB, checkpoints every {@code
     * flink.checkpoint-interval-ms} to {@code checkpointDir}, max parallelism {@code
     * flink.max-parallelism}, no Kryo fallback, object reuse between chained operators.
     *
     * <p>With a {@code tmpDir} the job runs on the embedded MiniCluster this process owns, which
     * also gets fixed-delay restarts, its temp dirs, and the Prometheus reporter when {@code
     * flink.metrics-port} is set (bound to {@code flink.metrics-host}, loopback by default).
     * Without one ({@code null}: a remote session cluster, {@code ./hotpate run --cluster},
     * application mode) the cluster's restart strategy applies — the job sets none — and
     * checkpoints are retained on cancellation, so a run can be resumed from its last checkpoint as
     * from a savepoint.
     */
    public static Configuration flinkConfiguration(
            JobConfig cfg, String checkpointDir, String tmpDir) {
        Configuration c = new Configuration();
        c.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        c.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir);
        c.set(
                CheckpointingOptions.CHECKPOINTING_INTERVAL,
                Duration.ofMillis(cfg.flink().checkpointIntervalMs()));
        // Short intervals make exactly-once output visible quickly; incremental RocksDB snapshots
        // keep them cheap.
        c.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        // a release and its charge commit together only with aligned checkpoints
        c.set(CheckpointingOptions.ENABLE_UNALIGNED, false);
        c.set(PipelineOptions.MAX_PARALLELISM, cfg.flink().maxParallelism());
        c.set(PipelineOptions.GENERIC_TYPES, false);
        // Chained operators hand each other the same object instead of a serializer copy (the copy
        // was ~40% of the source thread's samples in bench pipeline model-vote). Safe here: every
        // record type is an immutable model record, no operator mutates an input or an emitted
        // object, and network inputs and sources always deserialize fresh objects.
        c.set(PipelineOptions.OBJECT_REUSE, true);
        if (tmpDir == null) {
            c.set(
                    CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                    ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
            return c;
        }
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(1));
        c.set(CoreOptions.TMP_DIRS, tmpDir);
        c.set(RocksDBOptions.LOCAL_DIRECTORIES, tmpDir);
        // RocksDB's block cache and write buffers come from managed memory; Flink's local
        // default (128 MiB) is outgrown by 10^5 users' teacher tables (docs/performance.md)
        c.set(
                TaskManagerOptions.MANAGED_MEMORY_SIZE,
                MemorySize.ofMebiBytes(cfg.flink().managedMemoryMb()));
        if (cfg.flink().metricsPort() > 0) {
            // Flink's own PrometheusReporter binds every interface; this one binds
            // flink.metrics-host (loopback by default: the metrics are operator-only).
            c.setString(
                    "metrics.reporter.prom.factory.class",
                    BoundPrometheusReporterFactory.class.getName());
            c.setString("metrics.reporter.prom.host", cfg.flink().metricsHost());
            c.setString("metrics.reporter.prom.port", Integer.toString(cfg.flink().metricsPort()));
        }
        return c;
    }
}
