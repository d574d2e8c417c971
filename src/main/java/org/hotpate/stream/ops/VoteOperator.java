package org.hotpate.stream.ops;

import java.io.Serializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.Rejected;
import org.hotpate.model.StepRef;
import org.hotpate.model.TeacherFeedback;
import org.hotpate.model.TeacherSpend;
import org.hotpate.model.Vote;
import org.hotpate.protocol.AccountingMode;
import org.hotpate.protocol.OpenSteps;
import org.hotpate.protocol.StepId;
import org.hotpate.protocol.TeacherAccount;
import org.hotpate.protocol.TeacherIds;

/**
 * The teacher-keyed vote operator (DESIGN.md topology step 2), an adapter over the protocol's
 * {@link OpenSteps} and {@link AccountingMode}. Votes arrive made at the source ({@code
 * protocol.AnswerRule}), steps broadcast. A vote for an open step is deduplicated (one per teacher
 * per step: sensitivity 1, also under redelivery and replay) and passed through the run's
 * accounting mode with the teacher's account ({@link TeacherAccounts}), stored before the vote
 * leaves: a checkpoint never holds a vote without its charge. A vote for a step not open yet pends
 * until it opens or its deadline passes (UNKNOWN_STEP); one for a step its sequence has moved past
 * is LATE_VOTE at once. Scheme A's released outcomes ({@link Input#feedback()}, read back from the
 * job's own exactly-once {@code teacher-feedback} topic) resolve pending involvements; one for a
 * step not pending is ignored, so a replayed release charges no one twice. Charges go to the
 * operator-only ledger and the durable per-dataset ledger ({@code <dataset>/teacher/<id>}).
 *
 * <p>State and clearing: {@code voted-steps} (TTL = retention), {@code pending-answers} (until the
 * step opens or its deadline), the teacher's account (the run's lifetime), broadcast {@code
 * open-steps} ({@link OpenSteps}).
 */
public final class VoteOperator
        extends KeyedBroadcastProcessFunction<Long, VoteOperator.Input, GenerationStep, Vote>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    public static final MapStateDescriptor<String, GenerationStep> OPEN_STEPS =
            new MapStateDescriptor<>("open-steps", Types.STRING, Types.POJO(GenerationStep.class));

    /**
     * The dead-letter topic, step deadline and retention, the run's accounting mode, the dataset,
     * each teacher's charges on it before this run (the durable entry's charges + pending), the
     * run's ledger store ({@link LedgerSink}: the Kafka ledger through {@link Tags#TEACHER_LEDGER},
     * or written at each checkpoint), each teacher's durable entry version before this run, and the
     * durable ids of the teachers (a records run's user pseudonyms; the maps above are keyed by the
     * run's teacher ids).
     */
    public record Settings(
            String topic,
            long stepDeadlineMs,
            long retentionMs,
            AccountingMode mode,
            String dataset,
            Map<Long, Long> priorCharges,
            LedgerSink ledger,
            Map<Long, Long> priorVersions,
            TeacherIds teacherIds)
            implements Serializable {
        public Settings {
            priorCharges = new HashMap<>(priorCharges);
            priorVersions = new HashMap<>(priorVersions);
            teacherIds = teacherIds == null ? TeacherIds.IDENTITY : teacherIds;
        }

        /** Settings for teachers whose durable entries have version 0 (none written yet). */
        public Settings(
                String topic,
                long stepDeadlineMs,
                long retentionMs,
                AccountingMode mode,
                String dataset,
                Map<Long, Long> priorCharges,
                LedgerSink ledger) {
            this(
                    topic,
                    stepDeadlineMs,
                    retentionMs,
                    mode,
                    dataset,
                    priorCharges,
                    ledger,
                    Map.of(),
                    TeacherIds.IDENTITY);
        }
    }

    /** The keyed input, keyed by teacher: a vote, or (scheme-a) a released outcome. */
    public record Input(Vote vote, TeacherFeedback feedback) {
        public static Input of(Vote v) {
            return new Input(v, null);
        }

        public static Input of(TeacherFeedback f) {
            return new Input(null, f);
        }

        public long teacherId() {
            return vote != null ? vote.teacherId() : feedback.teacherId();
        }
    }

    private final Settings settings;
    private transient MapState<String, Boolean> voted;
    private transient PendingAnswers pending;
    private transient TeacherAccounts accounts;
    private transient WriteAhead<Long, TeacherSpend> spending;
    private transient Counter rejected;
    private transient Counter skippedRetired;
    private transient Counter skippedInFlight;
    private transient Counter feedbackIgnored;
    private transient Counter teachersRetired;

    public VoteOperator(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) {
        spending = new WriteAhead<>();
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        LedgerSink ledger = settings.ledger();
        spending.flush(ledger.onJobOutput() ? null : ledger::writeTeacher);
    }

    @Override
    public void open(OpenContext ctx) {
        MapStateDescriptor<String, Boolean> votedDesc =
                new MapStateDescriptor<>("voted-steps", Types.STRING, Types.BOOLEAN);
        votedDesc.enableTimeToLive(
                StateTtlConfig.newBuilder(Duration.ofMillis(settings.retentionMs())).build());
        voted = getRuntimeContext().getMapState(votedDesc);
        pending = new PendingAnswers(settings.stepDeadlineMs());
        pending.open(getRuntimeContext());
        accounts =
                new TeacherAccounts(
                        settings.mode(), settings.priorCharges(), settings.priorVersions());
        accounts.open(getRuntimeContext());
        rejected = getRuntimeContext().getMetricGroup().counter("rejected");
        skippedRetired = getRuntimeContext().getMetricGroup().counter("skippedRetired");
        skippedInFlight = getRuntimeContext().getMetricGroup().counter("skippedInFlight");
        feedbackIgnored = getRuntimeContext().getMetricGroup().counter("feedbackIgnored");
        teachersRetired = JobMetrics.teachersRetired(getRuntimeContext());
    }

    @Override
    public void processElement(Input in, ReadOnlyContext ctx, Collector<Vote> out)
            throws Exception {
        if (in.feedback() != null) {
            resolve(in.feedback(), ctx);
            return;
        }
        Vote v = in.vote();
        String key = StepId.keyOf(v);
        ReadOnlyBroadcastState<String, GenerationStep> open = ctx.getBroadcastState(OPEN_STEPS);
        GenerationStep step = open.get(key);
        GenerationStep later = null;
        if (step != null) {
            handle(v, key, step, ctx, out);
        } else if (voted.contains(key) || pending.contains(key)) {
            reject(
                    ctx,
                    v,
                    Rejected.DUPLICATE_VOTE,
                    "teacher " + v.teacherId() + " already answered " + key);
        } else if ((later = OpenSteps.supersedingStep(open.immutableEntries(), v)) != null) {
            reject(
                    ctx,
                    v,
                    Rejected.LATE_VOTE,
                    key + " is closed: its sequence is at " + StepId.keyOf(later));
        } else {
            pending.hold(key, v, ctx.timerService());
        }
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<Vote> out) throws Exception {
        ReadOnlyBroadcastState<String, GenerationStep> open = ctx.getBroadcastState(OPEN_STEPS);
        pending.retry(
                ts,
                ctx.timerService(),
                (key, v) -> open.contains(key) && handle(v, key, open.get(key), ctx, out),
                (key, v) -> reject(ctx, v, Rejected.UNKNOWN_STEP, "no open step " + key));
    }

    /** A vote for an open step: dedupe, then the accounting mode on the teacher's account. */
    private boolean handle(
            Vote v, String key, GenerationStep step, ReadOnlyContext ctx, Collector<Vote> out)
            throws Exception {
        if (!settings.mode().keepsAccounts()) {
            // No account to protect: the reducer's tally counts a teacher's first vote only and
            // dead-letters the rest (StepTally), so a duplicate cannot reach the histogram.
            // Looking each vote up here cost a RocksDB miss per vote and was the job's bottleneck
            // in long runs (docs/privacy-efficiency.md, "speed").
            out.collect(v);
            return true;
        }
        if (voted.contains(key)) {
            reject(
                    ctx,
                    v,
                    Rejected.DUPLICATE_VOTE,
                    "teacher " + v.teacherId() + " already voted at " + key);
            return true;
        }
        voted.put(key, Boolean.TRUE);
        TeacherAccount before = accounts.load(v.teacherId());
        AccountingMode.Effect e =
                settings.mode().onVote(before, v.token(), v.teacherId(), step.publicSeed());
        if (e.pending()) {
            accounts.involve(key); // in state before the vote leaves
        }
        apply(before, e, v, ctx);
        if (e.abstention() == AccountingMode.Abstention.RETIRED) {
            skippedRetired.inc(); // never votes again: an abstention closes the step early
        } else if (e.abstention() == AccountingMode.Abstention.NO_ROOM) {
            skippedInFlight.inc();
        }
        out.collect(v.withToken(e.vote()));
        return true;
    }

    /** Scheme A: a released outcome resolves the teacher's pending involvement in its step. */
    private void resolve(TeacherFeedback f, ReadOnlyContext ctx) throws Exception {
        String key = StepId.keyOf(f);
        TeacherAccount before = accounts.load(f.teacherId());
        AccountingMode.Effect e =
                settings.mode().onOutcome(before, accounts.isPending(key), f.charged());
        if (e == null) {
            feedbackIgnored.inc();
            return;
        }
        accounts.resolve(key);
        apply(before, e, f, ctx);
    }

    /**
     * Stores the account; writes the durable entry ahead when the account changed (a charge, and —
     * scheme-a — an involvement or a resolved one: pending involvements are provisional charges in
     * the durable ledger before anything that depends on them can be released); reports a charge
     * (ledger) and a retirement.
     */
    private void apply(
            TeacherAccount before, AccountingMode.Effect e, StepRef step, ReadOnlyContext ctx)
            throws Exception {
        long teacher = ctx.getCurrentKey();
        TeacherAccount a = e.account();
        accounts.store(before, a); // in state before the vote leaves
        long now = System.currentTimeMillis();
        if (e.charged()) {
            ctx.output(
                    Tags.LEDGER,
                    settings.mode().teacherEntry(LedgerKind.TEACHER_CHARGE, step, teacher, a, now));
        }
        if (settings.mode().scheme() != null && !a.equals(before)) {
            TeacherSpend spend =
                    settings.mode()
                            .scheme()
                            .spend(
                                    settings.dataset(),
                                    settings.teacherIds().durable(teacher),
                                    a,
                                    accounts.nextVersion(teacher),
                                    step.runId(),
                                    now);
            if (settings.ledger().onJobOutput()) {
                ctx.output(Tags.TEACHER_LEDGER, spend); // same transaction as the vote/release
            } else {
                spending.put(teacher, spend); // written in snapshotState, before the commit
            }
        }
        if (e.retired()) {
            teachersRetired.inc();
            ctx.output(
                    Tags.LEDGER,
                    settings.mode()
                            .teacherEntry(LedgerKind.TEACHER_RETIRED, step, teacher, a, now));
        }
    }

    @Override
    public void processBroadcastElement(GenerationStep step, Context ctx, Collector<Vote> out)
            throws Exception {
        BroadcastState<String, GenerationStep> steps = ctx.getBroadcastState(OPEN_STEPS);
        OpenSteps.open(steps.iterator(), step, settings.retentionMs());
        steps.put(StepId.keyOf(step), step);
    }

    private void reject(ReadOnlyContext ctx, Vote v, String reason, String detail) {
        rejected.inc();
        ctx.output(
                Tags.REJECTED,
                Rejected.of(settings.topic(), reason, detail, v.runId(), v.teacherId()));
    }
}
