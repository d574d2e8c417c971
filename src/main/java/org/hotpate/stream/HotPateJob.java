package org.hotpate.stream;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.datastream.BroadcastStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.hotpate.io.AvroWire;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.KafkaOut;
import org.hotpate.model.RawRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.ReleaseCandidate;
import org.hotpate.model.StepResult;
import org.hotpate.model.TeacherRecord;
import org.hotpate.model.Vote;
import org.hotpate.model.VoteBatch;
import org.hotpate.stream.ops.DecodeDistributions;
import org.hotpate.stream.ops.DecodeSteps;
import org.hotpate.stream.ops.DecodeTeacherFeedback;
import org.hotpate.stream.ops.JobMetrics;
import org.hotpate.stream.ops.RunAccountant;
import org.hotpate.stream.ops.SequenceLoop;
import org.hotpate.stream.ops.StepReducer;
import org.hotpate.stream.ops.Tags;
import org.hotpate.stream.ops.VoteCombiner;
import org.hotpate.stream.ops.VoteOperator;
import org.hotpate.teachers.records.UserDirectory;

/**
 * Assembles the Hot PATE topology of DESIGN.md from a validated config, its sources and its sink
 * (the caller builds production Kafka I/O; tests may pass others):
 *
 * <pre>
 * steps ──decode──┬─broadcast─┐
 *                 │           ▼
 * distributions ─decode─ keyBy(teacher) ─ VoteOperator ─ keyBy(step) ─┐
 *                 └────────────── keyBy(step) ───────────────────── StepReducer
 *   ─ keyBy(run) ─ RunAccountant ─ keyBy(sequence) ─ SequenceLoop ─▶ steps (the loop closes through Kafka)
 * results, records, ledger, rejected, budget-ledger ─▶ one exactly-once Kafka sink
 * </pre>
 *
 * The sequence loop also reads the decoded steps (its watchdog), and the accountant composes the
 * run with the dataset's earlier runs ({@link RunContext}). With {@code mechanism.name: scheme-a}
 * the accountant (and the reducer, for votes in no release) also writes each involved teacher's
 * outcome to {@code teacher-feedback} through the same sink, and a read_committed source reads it
 * back into the vote operator's teacher-keyed input (a second loop through Kafka).
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

    public static void build(
            StreamExecutionEnvironment env,
            JobConfig cfg,
            String runId,
            Source<RawRecord, ?, ?> stepsSource,
            Source<RawRecord, ?, ?> distributionsSource,
            Sink<KafkaOut> sink) {
        build(
                env,
                cfg,
                runId,
                RunContext.fresh(cfg),
                stepsSource,
                distributionsSource,
                null,
                sink,
                UnaryOperator.identity());
    }

    /**
     * As above, with {@code voteTap} applied to each vote stream (the vote operator's and the votes
     * made at the source) before it is combined for the reducer — the test seam through which
     * ITCases inject a failure (identity in production).
     */
    public static void build(
            StreamExecutionEnvironment env,
            JobConfig cfg,
            String runId,
            Source<RawRecord, ?, ?> stepsSource,
            Source<RawRecord, ?, ?> distributionsSource,
            Sink<KafkaOut> sink,
            UnaryOperator<DataStream<Vote>> voteTap) {
        build(
                env,
                cfg,
                runId,
                RunContext.fresh(cfg),
                stepsSource,
                distributionsSource,
                null,
                sink,
                voteTap);
    }

    /**
     * The private records of a records run: a bounded source of the batch and the users → teachers
     * directory the driver built from it.
     */
    public record RecordsInput(Source<RawRecord, ?, ?> source, UserDirectory directory) {}

    /**
     * The topology of a run whose driver drew its noise secret and composed its dataset's earlier
     * runs ({@code run}); with {@code records} non-null, teachers are built in the job from the
     * records.
     */
    public static void build(
            StreamExecutionEnvironment env,
            JobConfig cfg,
            String runId,
            RunContext run,
            Source<RawRecord, ?, ?> stepsSource,
            Source<RawRecord, ?, ?> distributionsSource,
            RecordsInput records,
            Sink<KafkaOut> sink,
            UnaryOperator<DataStream<Vote>> voteTap) {
        build(env, cfg, runId, run, stepsSource, distributionsSource, null, records, sink, voteTap);
    }

    /**
     * As above with the read_committed source of the job's own {@code teacher-feedback} topic,
     * required for {@code mechanism.name: scheme-a} (the accountant's released outcomes back to the
     * teacher-keyed charges) and unused otherwise.
     */
    public static void build(
            StreamExecutionEnvironment env,
            JobConfig cfg,
            String runId,
            RunContext run,
            Source<RawRecord, ?, ?> stepsSource,
            Source<RawRecord, ?, ?> distributionsSource,
            Source<RawRecord, ?, ?> teacherFeedbackSource,
            RecordsInput records,
            Sink<KafkaOut> sink,
            UnaryOperator<DataStream<Vote>> voteTap) {
        IndividualAccounting accounting = IndividualAccounting.of(cfg);
        boolean feedback = accounting != null && accounting.chargesOnOutcome();
        if (feedback && teacherFeedbackSource == null) {
            throw new IllegalArgumentException(
                    "mechanism.name scheme-a needs the teacher-feedback source"
                            + " (kafka.topics.teacher-feedback)");
        }
        JobConfig.Topics topics = cfg.kafka().topics();
        long retention = retentionMs(cfg);
        StepFactory factory = StepFactory.of(cfg, runId);
        int n = cfg.ensemble().teachers();
        JobConfig.Generation gen = cfg.generation();

        SingleOutputStreamOperator<GenerationStep> steps =
                env.fromSource(stepsSource, WatermarkStrategy.noWatermarks(), "steps-source")
                        .uid("steps-source")
                        .process(
                                new DecodeSteps(
                                        new DecodeSteps.Settings(
                                                factory,
                                                gen.sequences(),
                                                gen.maxSteps(),
                                                gen.maxAttempts() * (gen.maxReissues() + 1))))
                        .uid("decode-steps")
                        .name("decode-steps");
        double perVote = cfg.ensemble().heterogeneous() ? CoreBindings.perVoteCharge(cfg) : 0;
        double perTeacher = cfg.ensemble().heterogeneous() ? cfg.budget().perTeacherVotes() : 0;
        VoteOperator.Individual individual = individual(cfg, run);
        // Without per-teacher rules no vote needs the teacher-keyed state: votes made at the source
        // go straight to the combiner and the reducer (issue 12, "vote where the payload lands").
        boolean votesDirect = individual == null && perTeacher == 0;
        SingleOutputStreamOperator<Distribution> decodedDistributions =
                env.fromSource(
                                distributionsSource,
                                WatermarkStrategy.noWatermarks(),
                                "distributions-source")
                        .uid("distributions-source")
                        .process(
                                new DecodeDistributions(
                                        new DecodeDistributions.Settings(
                                                topics.distributions(),
                                                n,
                                                factory,
                                                gen.sequences(),
                                                gen.maxSteps(),
                                                gen.maxAttempts() * (gen.maxReissues() + 1),
                                                cfg.sampler(),
                                                votesDirect)))
                        .uid("decode-distributions")
                        .name("decode-distributions");

        DataStream<Distribution> distributions = decodedDistributions;
        SingleOutputStreamOperator<TeacherRecord> teacherRecords = null;
        if (records != null) {
            teacherRecords = RecordsBranch.decode(env, cfg, runId, records);
            distributions =
                    decodedDistributions.union(
                            RecordsBranch.teachers(cfg, teacherRecords, steps, retention));
        }

        DataStream<VoteOperator.Input> teacherInput =
                distributions
                        .map(VoteOperator.Input::of)
                        .returns(Types.POJO(VoteOperator.Input.class))
                        .uid("vote-input")
                        .name("vote-input");
        DataStream<Rejected> feedbackRejected = null;
        if (feedback) {
            // Scheme A: the accountant's outcomes come back through Kafka (exactly-once sink,
            // read_committed source) to the same teacher-keyed state that holds the charges.
            SingleOutputStreamOperator<VoteOperator.Input> decodedFeedback =
                    env.fromSource(
                                    teacherFeedbackSource,
                                    WatermarkStrategy.noWatermarks(),
                                    "teacher-feedback-source")
                            .uid("teacher-feedback-source")
                            .process(new DecodeTeacherFeedback(runId))
                            .returns(Types.POJO(VoteOperator.Input.class))
                            .uid("decode-teacher-feedback")
                            .name("decode-teacher-feedback");
            teacherInput = teacherInput.union(decodedFeedback);
            feedbackRejected = decodedFeedback.getSideOutput(Tags.REJECTED);
        }

        BroadcastStream<GenerationStep> broadcastSteps = steps.broadcast(VoteOperator.OPEN_STEPS);
        SingleOutputStreamOperator<Vote> votes =
                teacherInput
                        .keyBy(VoteOperator.Input::teacherId, Types.LONG)
                        .connect(broadcastSteps)
                        .process(
                                new VoteOperator(
                                        new VoteOperator.Settings(
                                                topics.distributions(),
                                                n,
                                                cfg.generation().stepDeadlineMs(),
                                                retention,
                                                perTeacher,
                                                perVote,
                                                cfg.sampler(),
                                                individual)))
                        .uid("vote")
                        .name("vote");

        // Each vote stream gets its own combiner, chained with the operator that makes its votes
        // (a combiner behind a union would have two inputs and could not be chained); a test tap
        // is applied to each vote stream.
        DataStream<Vote> sourceVotes = decodedDistributions.getSideOutput(Tags.SOURCE_VOTES);
        DataStream<VoteBatch> batches =
                combine(voteTap.apply(votes), "combine-votes")
                        .union(combine(voteTap.apply(sourceVotes), "combine-source-votes"));

        SingleOutputStreamOperator<ReleaseCandidate> candidates =
                batches.keyBy(VoteBatch::stepKey, Types.STRING)
                        .connect(steps.keyBy(GenerationStep::stepKey, Types.STRING))
                        .process(
                                new StepReducer(
                                        new StepReducer.Settings(
                                                topics.distributions(),
                                                n,
                                                cfg.ensemble().effectiveVocabulary(),
                                                cfg.generation().stepDeadlineMs(),
                                                retention,
                                                cfg.mechanism(),
                                                cfg.minTeachers(),
                                                run.noiseSecret(),
                                                accounting,
                                                cfg.sampler().seed())))
                        .uid("reduce")
                        .name("reduce");

        SingleOutputStreamOperator<StepResult> results =
                candidates
                        .keyBy(ReleaseCandidate::runId, Types.STRING)
                        .process(
                                new RunAccountant(
                                        new RunAccountant.Settings(
                                                cfg.budget(),
                                                run.prior(),
                                                cfg.isPrivate(),
                                                cfg.mechanism().name(),
                                                cfg.ledgerMode() == JobConfig.LedgerMode.LOCAL
                                                        ? cfg.ledgerDir().toString()
                                                        : null,
                                                feedback)))
                        .uid("accountant")
                        .name("accountant");

        SingleOutputStreamOperator<GenerationStep> next =
                results.keyBy(StepResult::sequenceKey, Types.STRING)
                        .connect(steps.keyBy(GenerationStep::sequenceKey, Types.STRING))
                        .process(
                                new SequenceLoop(
                                        cfg.generation(),
                                        cfg.ensemble(),
                                        factory,
                                        retention,
                                        cfg.watchdogMs(),
                                        SequenceText.of(cfg)))
                        .uid("sequence-loop")
                        .name("sequence-loop");

        int first = Math.min(cfg.generation().concurrency(), cfg.generation().sequences());
        DataStream<GenerationStep> starts =
                env.fromSequence(0, first - 1)
                        .uid("start-sequences")
                        .name("start-sequences")
                        .map(id -> factory.step(id, 0, 0, new int[0], System.currentTimeMillis()))
                        .returns(Types.POJO(GenerationStep.class))
                        .uid("first-steps")
                        .name("first-steps");

        DataStream<KafkaOut> out =
                next.union(starts)
                        .map(
                                s ->
                                        new KafkaOut(
                                                topics.steps(),
                                                utf8(s.sequenceKey()),
                                                AvroWire.encode(s)))
                        .returns(Types.POJO(KafkaOut.class))
                        .uid("encode-steps")
                        .name("encode-steps")
                        .union(
                                results.map(
                                                r ->
                                                        new KafkaOut(
                                                                topics.results(),
                                                                utf8(r.sequenceKey()),
                                                                AvroWire.encode(r)))
                                        .returns(Types.POJO(KafkaOut.class))
                                        .uid("encode-results")
                                        .name("encode-results"),
                                next.getSideOutput(Tags.RECORDS)
                                        .map(
                                                r ->
                                                        new KafkaOut(
                                                                topics.records(),
                                                                utf8(r.runId()),
                                                                AvroWire.encode(r)))
                                        .returns(Types.POJO(KafkaOut.class))
                                        .uid("encode-records")
                                        .name("encode-records"),
                                results.getSideOutput(Tags.LEDGER)
                                        .union(
                                                votes.getSideOutput(Tags.LEDGER),
                                                candidates.getSideOutput(Tags.LEDGER))
                                        .map(
                                                e ->
                                                        new KafkaOut(
                                                                topics.ledger(),
                                                                utf8(e.runId()),
                                                                AvroWire.encode(e)))
                                        .returns(Types.POJO(KafkaOut.class))
                                        .uid("encode-ledger")
                                        .name("encode-ledger"),
                                withFeedbackRejected(
                                                RecordsBranch.rejected(
                                                        teacherRecords,
                                                        steps.getSideOutput(Tags.REJECTED)),
                                                feedbackRejected)
                                        .union(
                                                decodedDistributions.getSideOutput(Tags.REJECTED),
                                                votes.getSideOutput(Tags.REJECTED),
                                                candidates.getSideOutput(Tags.REJECTED),
                                                results.getSideOutput(Tags.REJECTED))
                                        .map(new JobMetrics.EncodeRejected(topics.rejected()))
                                        .returns(Types.POJO(KafkaOut.class))
                                        .uid("encode-rejected")
                                        .name("encode-rejected"));
        if (cfg.ledgerMode() == JobConfig.LedgerMode.KAFKA) {
            // Same sink, same transaction as the releases the entry covers (write-ahead).
            out =
                    out.union(
                            results.getSideOutput(Tags.BUDGET_LEDGER)
                                    .map(
                                            r ->
                                                    new KafkaOut(
                                                            topics.budgetLedger(),
                                                            utf8(r.key()),
                                                            AvroWire.encode(r)))
                                    .returns(Types.POJO(KafkaOut.class))
                                    .uid("encode-budget-ledger")
                                    .name("encode-budget-ledger"),
                            votes.getSideOutput(Tags.TEACHER_LEDGER)
                                    .map(
                                            t ->
                                                    new KafkaOut(
                                                            topics.budgetLedger(),
                                                            utf8(t.key()),
                                                            AvroWire.encode(t)))
                                    .returns(Types.POJO(KafkaOut.class))
                                    .uid("encode-teacher-ledger")
                                    .name("encode-teacher-ledger"));
        }
        if (feedback) {
            // Same sink, same transaction as the release the outcome belongs to (the reducer adds
            // the uncharged resolutions of votes that are in no release).
            out =
                    out.union(
                            results.getSideOutput(Tags.TEACHER_FEEDBACK)
                                    .union(candidates.getSideOutput(Tags.TEACHER_FEEDBACK))
                                    .map(
                                            f ->
                                                    new KafkaOut(
                                                            topics.teacherFeedback(),
                                                            utf8(Long.toString(f.teacherId())),
                                                            AvroWire.encode(f)))
                                    .returns(Types.POJO(KafkaOut.class))
                                    .uid("encode-teacher-feedback")
                                    .name("encode-teacher-feedback"));
        }
        out.sinkTo(sink).uid("kafka-sink").name("kafka-sink");
    }

    private static DataStream<Rejected> withFeedbackRejected(
            DataStream<Rejected> rejected, DataStream<Rejected> feedbackRejected) {
        return feedbackRejected == null ? rejected : rejected.union(feedbackRejected);
    }

    private static DataStream<VoteBatch> combine(DataStream<Vote> votes, String uid) {
        return votes.transform(
                        uid,
                        TypeInformation.of(VoteBatch.class),
                        new VoteCombiner(COMBINER_MAX_BATCH, COMBINER_FLUSH_MS))
                .uid(uid)
                .name(uid);
    }

    /** The vote operator's per-teacher accounting (scheme-a/scheme-b), or null. */
    private static VoteOperator.Individual individual(JobConfig cfg, RunContext run) {
        IndividualAccounting acc = IndividualAccounting.of(cfg);
        if (acc == null) {
            return null;
        }
        return new VoteOperator.Individual(
                acc,
                run.teacherCharges(),
                cfg.datasetId(),
                cfg.ledgerMode() == JobConfig.LedgerMode.LOCAL ? cfg.ledgerDir().toString() : null);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The Flink configuration a run gives its job: RocksDB, checkpoints every {@code
     * flink.checkpoint-interval-ms} to {@code checkpointDir}, max parallelism {@code
     * flink.max-parallelism}, no Kryo fallback, object reuse between chained operators.
     *
     * <p>With a {@code tmpDir} the job runs on the embedded MiniCluster this process owns, which
     * also gets fixed-delay restarts, its temp dirs, and the Prometheus reporter when {@code
     * flink.metrics-port} is set. Without one ({@code null}: a remote session cluster, {@code
     * ./hotpate run --cluster}, application mode) the cluster's restart strategy applies — the job
     * sets none — and checkpoints are retained on cancellation, so a run can be resumed from its
     * last checkpoint as from a savepoint.
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
        if (cfg.flink().metricsPort() > 0) {
            c.setString(
                    "metrics.reporter.prom.factory.class",
                    "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
            c.setString("metrics.reporter.prom.port", Integer.toString(cfg.flink().metricsPort()));
        }
        return c;
    }
}
