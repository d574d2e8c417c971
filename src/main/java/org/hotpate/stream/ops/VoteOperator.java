package org.hotpate.stream.ops;

import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.io.BudgetLedgerIo;
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

/**
 * The teacher-keyed vote operator (DESIGN.md topology step 2): an adapter over the protocol's
 * {@link OpenSteps} and {@link AccountingMode}. Votes arrive already made at the source ({@code
 * protocol.AnswerRule}); steps arrive broadcast. A vote for an open step is deduplicated (one per
 * teacher per step — sensitivity 1, also under redelivery and replay) and passed through the run's
 * accounting mode with the teacher's {@link TeacherAccount}; the new account is in state before the
 * vote leaves, so a checkpoint never holds a vote without its charge. A vote for a step not open
 * yet pends until the step arrives or its deadline passes (UNKNOWN_STEP); one for a step its
 * sequence has moved past is LATE_VOTE at once.
 *
 * <p>Scheme A's outcomes ({@link Input#feedback()}, read back read_committed from the job's own
 * exactly-once {@code teacher-feedback} topic) resolve a pending involvement, charging it on
 * BETWEEN; feedback for a step that is not pending is ignored, so a replayed release charges no one
 * twice. Charges go to the operator-only ledger (TEACHER_CHARGE, TEACHER_RETIRED once) and to the
 * durable per-dataset ledger ({@code <dataset>/teacher/<id>}).
 *
 * <p>State and clearing: {@code voted-steps} (TTL = retention), {@code pending-answers} (cleared
 * when the step arrives or at its deadline), {@code teacher-charges} (the run's lifetime: a spent
 * teacher never votes again, across restarts), {@code pending-involvements} (scheme-a: an entry
 * leaves when its outcome comes back — from the accountant for a released step, from the reducer,
 * uncharged, for a vote in no release; one in a refused step stays and only makes the teacher
 * abstain sooner), broadcast {@code open-steps} ({@link OpenSteps}).
 */
public final class VoteOperator
        extends KeyedBroadcastProcessFunction<Long, VoteOperator.Input, GenerationStep, Vote>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private static final long RETRY_MS = 200;

    public static final MapStateDescriptor<String, GenerationStep> OPEN_STEPS =
            new MapStateDescriptor<>("open-steps", Types.STRING, Types.POJO(GenerationStep.class));

    /**
     * The dead-letter topic, the step deadline and retention, the run's accounting mode, and where
     * per-teacher spending goes: each teacher's charges on the dataset before this run, and the
     * local ledger directory (null: the Kafka ledger, through {@link Tags#TEACHER_LEDGER}).
     */
    public record Settings(
            String topic,
            long stepDeadlineMs,
            long retentionMs,
            AccountingMode mode,
            String dataset,
            Map<Long, Long> priorCharges,
            String ledgerDir)
            implements Serializable {
        public Settings {
            priorCharges = new HashMap<>(priorCharges);
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

    /** A vote waiting for its step to arrive on the broadcast side. */
    public record Pending(Vote vote, long since) {}

    private final Settings settings;
    private transient MapState<String, Boolean> voted;
    private transient MapState<String, Pending> pending;
    private transient ValueState<Long> charges;
    private transient MapState<String, Boolean> involvements;
    private transient Map<Long, TeacherSpend> unsaved; // local ledger: written at checkpoints
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
        unsaved = new LinkedHashMap<>();
    }

    /**
     * Local ledger: the teachers charged since the last checkpoint are written before it completes,
     * hence before the Kafka transaction holding the votes' releases commits (write-ahead). A
     * failed write fails the checkpoint.
     */
    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        for (TeacherSpend t : unsaved.values()) {
            BudgetLedgerIo.writeTeacherLocal(Path.of(settings.ledgerDir()), t);
        }
        unsaved.clear();
    }

    @Override
    public void open(OpenContext ctx) {
        MapStateDescriptor<String, Boolean> votedDesc =
                new MapStateDescriptor<>("voted-steps", Types.STRING, Types.BOOLEAN);
        votedDesc.enableTimeToLive(
                StateTtlConfig.newBuilder(Duration.ofMillis(settings.retentionMs())).build());
        voted = getRuntimeContext().getMapState(votedDesc);
        pending =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>(
                                        "pending-answers",
                                        Types.STRING,
                                        Types.POJO(Pending.class)));
        charges =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("teacher-charges", Types.LONG));
        involvements =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>(
                                        "pending-involvements", Types.STRING, Types.BOOLEAN));
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
        if (step != null) {
            handle(v, key, step, ctx, out);
        } else if (voted.contains(key) || pending.contains(key)) {
            reject(
                    ctx,
                    v,
                    Rejected.DUPLICATE_VOTE,
                    "teacher " + v.teacherId() + " already answered " + key);
        } else {
            GenerationStep later = OpenSteps.supersedingStep(open.immutableEntries(), v);
            if (later != null) {
                reject(
                        ctx,
                        v,
                        Rejected.LATE_VOTE,
                        key + " is closed: its sequence is at " + StepId.keyOf(later));
            } else {
                long now = ctx.timerService().currentProcessingTime();
                pending.put(key, new Pending(v, now));
                ctx.timerService().registerProcessingTimeTimer(now + RETRY_MS);
            }
        }
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<Vote> out) throws Exception {
        ReadOnlyBroadcastState<String, GenerationStep> open = ctx.getBroadcastState(OPEN_STEPS);
        List<String> done = new ArrayList<>();
        boolean waiting = false;
        for (Map.Entry<String, Pending> e : pending.entries()) {
            GenerationStep step = open.get(e.getKey());
            if (step != null) {
                handle(e.getValue().vote(), e.getKey(), step, ctx, out);
                done.add(e.getKey());
            } else if (ts - e.getValue().since() >= settings.stepDeadlineMs()) {
                reject(
                        ctx,
                        e.getValue().vote(),
                        Rejected.UNKNOWN_STEP,
                        "no open step " + e.getKey());
                done.add(e.getKey());
            } else {
                waiting = true;
            }
        }
        for (String k : done) {
            pending.remove(k);
        }
        if (waiting) {
            ctx.timerService().registerProcessingTimeTimer(ts + RETRY_MS);
        }
    }

    /** A vote for an open step: dedupe, then the accounting mode on the teacher's account. */
    private void handle(
            Vote v, String key, GenerationStep step, ReadOnlyContext ctx, Collector<Vote> out)
            throws Exception {
        if (voted.contains(key)) {
            reject(
                    ctx,
                    v,
                    Rejected.DUPLICATE_VOTE,
                    "teacher " + v.teacherId() + " already voted at " + key);
            return;
        }
        voted.put(key, Boolean.TRUE);
        AccountingMode mode = settings.mode();
        if (!mode.keepsAccounts()) {
            out.collect(v);
            return;
        }
        TeacherAccount before = account(v.teacherId());
        AccountingMode.Effect e = mode.onVote(before, v.token(), v.teacherId(), step.publicSeed());
        if (e.pending()) {
            involvements.put(key, Boolean.TRUE); // in state before the vote leaves
        }
        apply(before, e, v, ctx);
        if (e.abstention() == AccountingMode.Abstention.RETIRED) {
            skippedRetired.inc(); // never votes again: an abstention closes the step early
        } else if (e.abstention() == AccountingMode.Abstention.NO_ROOM) {
            skippedInFlight.inc();
        }
        out.collect(
                e.vote() == v.token()
                        ? v
                        : new Vote(
                                v.runId(),
                                v.sequenceId(),
                                v.step(),
                                v.attempt(),
                                v.teacherId(),
                                e.vote()));
    }

    /** Scheme A: a released outcome resolves the teacher's pending involvement in its step. */
    private void resolve(TeacherFeedback f, ReadOnlyContext ctx) throws Exception {
        String key = StepId.keyOf(f);
        boolean isPending = involvements.contains(key);
        TeacherAccount before = account(f.teacherId());
        AccountingMode.Effect e = settings.mode().onOutcome(before, isPending, f.charged());
        if (e == null) {
            feedbackIgnored.inc();
            return;
        }
        involvements.remove(key);
        apply(before, e, f, ctx);
    }

    /** The teacher's account: its stored charges (else its charges before this run) and pending. */
    private TeacherAccount account(long teacher) throws Exception {
        Long stored = charges.value();
        long c = stored != null ? stored : settings.priorCharges().getOrDefault(teacher, 0L);
        int inFlight = 0;
        if (settings.mode().feedsOutcomesBack()) {
            for (String ignored : involvements.keys()) {
                inFlight++;
            }
        }
        return new TeacherAccount(c, inFlight);
    }

    /** Stores the account and reports a charge and a retirement (ledger, durable spending). */
    private void apply(
            TeacherAccount before, AccountingMode.Effect e, StepRef step, ReadOnlyContext ctx)
            throws Exception {
        long teacher = ctx.getCurrentKey();
        TeacherAccount a = e.account();
        if (a.charges() != before.charges()) {
            charges.update(a.charges()); // in state before the vote leaves
        }
        long now = System.currentTimeMillis();
        if (e.charged()) {
            ctx.output(
                    Tags.LEDGER,
                    settings.mode().teacherEntry(LedgerKind.TEACHER_CHARGE, step, teacher, a, now));
            TeacherSpend spend =
                    settings.mode()
                            .scheme()
                            .spend(settings.dataset(), teacher, a, step.runId(), now);
            if (settings.ledgerDir() == null) {
                ctx.output(Tags.TEACHER_LEDGER, spend);
            } else {
                unsaved.put(teacher, spend);
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
