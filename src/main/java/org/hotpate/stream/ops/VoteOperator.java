package org.hotpate.stream.ops;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
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
import org.hotpate.core.accounting.ChargeLimit;
import org.hotpate.core.accounting.TeacherCharges;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.Keys;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.PayloadKind;
import org.hotpate.model.Rejected;
import org.hotpate.model.TeacherSpend;
import org.hotpate.model.Vote;
import org.hotpate.stream.CoreBindings;
import org.hotpate.stream.IndividualAccounting;

/**
 * The teacher-keyed vote operator (DESIGN.md topology step 2). Steps arrive broadcast; each
 * teacher's distribution is validated, deduplicated (one vote per teacher per sequence/step/attempt
 * — sensitivity 1, also under redelivery and replay), skipped if the teacher is retired, and turned
 * into a coordinated or independent vote from the step's public seed. Individual charges live in
 * this teacher's keyed state and are applied before the vote is emitted, so a checkpoint never
 * holds a vote without its charge. The rule is the vote cap {@code budget.per-teacher-votes} (core
 * {@link ChargeLimit}: one unit per token vote, a vote cap — not Scheme A/B individual accounting);
 * the vote that reaches the cap is the teacher's last, and an operator-only {@code TEACHER_RETIRED}
 * ledger entry says so once.
 *
 * <p><b>Per-teacher accounting</b> ({@code mechanism.name: scheme-b}; {@link Individual}): the
 * teacher's charge count under the core plan lives in {@code teacher-charges} (starting from its
 * spending on the dataset in earlier runs). A teacher whose next involvement would pass its budget
 * (Scheme B: K charges used) abstains for good. Otherwise, if it is involved in the step — its own
 * vote is the tested token and its public coin is 1 (core {@code IndividualSchemes.involved}) — it
 * is charged one unit before the vote leaves: Scheme B charges every involvement whatever the
 * outcome, so the charge needs nothing from the reducer. Each charge goes to the operator-only
 * ledger ({@code TEACHER_CHARGE}) and to the durable per-dataset ledger ({@code
 * <dataset>/teacher/<id>}).
 *
 * <p>State and clearing: {@code voted-steps} (TTL = retention), {@code pending-distributions}
 * (answers that arrived before their step; retried by timer, dead-lettered as UNKNOWN_STEP after
 * the step deadline — an answer for a step its sequence has already moved past is LATE_VOTE at once
 * and never pends), {@code teacher-charge} / {@code teacher-charges} (the run's lifetime: a spent
 * teacher never votes again, across restarts), broadcast {@code open-steps} (a step leaves when a
 * later step of its sequence arrives, or when it is older than the retention by the issue times in
 * the data).
 */
public final class VoteOperator
        extends KeyedBroadcastProcessFunction<Long, Distribution, GenerationStep, Vote>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private static final long RETRY_MS = 200;

    public static final MapStateDescriptor<String, GenerationStep> OPEN_STEPS =
            new MapStateDescriptor<>("open-steps", Types.STRING, Types.POJO(GenerationStep.class));

    /** What the operator needs from the job config. */
    public record Settings(
            String topic,
            int teachers,
            long stepDeadlineMs,
            long retentionMs,
            double perTeacherBudget,
            double perVoteCharge,
            org.hotpate.stream.JobConfig.Sampler sampler,
            Individual individual)
            implements java.io.Serializable {
        /** Without per-teacher accounting (a vote cap at most). */
        public Settings(
                String topic,
                int teachers,
                long stepDeadlineMs,
                long retentionMs,
                double perTeacherBudget,
                double perVoteCharge,
                org.hotpate.stream.JobConfig.Sampler sampler) {
            this(
                    topic,
                    teachers,
                    stepDeadlineMs,
                    retentionMs,
                    perTeacherBudget,
                    perVoteCharge,
                    sampler,
                    null);
        }
    }

    /**
     * Per-teacher accounting (scheme-a/scheme-b): the binding to core, each teacher's charges on
     * the dataset before this run (from the durable ledger), the dataset, and the local ledger
     * directory (null: the ledger is the Kafka topic, written through {@link Tags#TEACHER_LEDGER}).
     */
    public record Individual(
            IndividualAccounting accounting,
            Map<Long, Long> priorCharges,
            String dataset,
            String ledgerDir)
            implements java.io.Serializable {
        public Individual {
            priorCharges = new java.util.HashMap<>(priorCharges);
        }
    }

    /** A distribution waiting for its step to arrive on the broadcast side. */
    public record Pending(Distribution distribution, long since) {}

    private final Settings settings;
    private transient MapState<String, Boolean> voted;
    private transient MapState<String, Pending> pending;
    private transient ValueState<Double> charge;
    private transient CoreBindings.Voter voter;
    private transient Counter rejected;
    private transient Counter skippedRetired;
    private transient Counter teachersRetired; // hotpate_teachersRetired (operator-only)
    private transient ChargeLimit limit; // null: no per-teacher vote cap
    private transient ValueState<Long> teacherCharges; // per-teacher schemes
    private transient Map<Long, TeacherSpend> unsaved; // local ledger: written at checkpoints

    public VoteOperator(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) {
        unsaved = new LinkedHashMap<>();
    }

    /**
     * Local ledger: the teachers charged since the last checkpoint are written before it completes,
     * hence before the Kafka transaction holding the votes' releases commits (write-ahead, as the
     * accountant does for the run's curve). A failed write fails the checkpoint.
     */
    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        Individual ind = settings.individual();
        if (ind == null || ind.ledgerDir() == null) {
            unsaved.clear();
            return;
        }
        for (TeacherSpend t : unsaved.values()) {
            BudgetLedgerIo.writeTeacherLocal(Path.of(ind.ledgerDir()), t);
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
                                        "pending-distributions",
                                        Types.STRING,
                                        Types.POJO(Pending.class)));
        charge =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("teacher-charge", Types.DOUBLE));
        voter = CoreBindings.voter(settings.sampler());
        limit =
                settings.perTeacherBudget() > 0
                        ? new ChargeLimit(settings.perTeacherBudget())
                        : null;
        teacherCharges =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("teacher-charges", Types.LONG));
        rejected = getRuntimeContext().getMetricGroup().counter("rejected");
        skippedRetired = getRuntimeContext().getMetricGroup().counter("skippedRetired");
        teachersRetired = JobMetrics.teachersRetired(getRuntimeContext());
    }

    @Override
    public void processElement(Distribution d, ReadOnlyContext ctx, Collector<Vote> out)
            throws Exception {
        if (d.teacherId() < 0 || d.teacherId() >= settings.teachers()) {
            reject(
                    ctx,
                    d,
                    Rejected.UNKNOWN_TEACHER,
                    "teacher " + d.teacherId() + " is not in 0.." + (settings.teachers() - 1));
            return;
        }
        TeacherDistribution dist = null;
        try {
            if (d.kind() != PayloadKind.MODEL_VOTE) {
                dist = d.toCore(); // structural validation needs no step: reject bad
                // payloads at once
            }
        } catch (IllegalArgumentException e) {
            reject(ctx, d, Rejected.INVALID_DISTRIBUTION, e.getMessage());
            return;
        }
        GenerationStep step = ctx.getBroadcastState(OPEN_STEPS).get(d.stepKey());
        if (step != null) {
            handle(d, dist, step, ctx, out);
        } else if (voted.contains(d.stepKey()) || pending.contains(d.stepKey())) {
            reject(
                    ctx,
                    d,
                    Rejected.DUPLICATE_VOTE,
                    "teacher " + d.teacherId() + " already answered " + d.stepKey());
        } else if (supersededBy(ctx.getBroadcastState(OPEN_STEPS), d) != null) {
            reject(
                    ctx,
                    d,
                    Rejected.LATE_VOTE,
                    d.stepKey()
                            + " is closed: its sequence is at "
                            + supersededBy(ctx.getBroadcastState(OPEN_STEPS), d).stepKey());
        } else {
            pending.put(d.stepKey(), new Pending(d, ctx.timerService().currentProcessingTime()));
            ctx.timerService()
                    .registerProcessingTimeTimer(
                            ctx.timerService().currentProcessingTime() + RETRY_MS);
        }
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<Vote> out) throws Exception {
        ReadOnlyBroadcastState<String, GenerationStep> steps = ctx.getBroadcastState(OPEN_STEPS);
        List<String> done = new ArrayList<>();
        boolean waiting = false;
        for (Map.Entry<String, Pending> e : pending.entries()) {
            GenerationStep step = steps.get(e.getKey());
            if (step != null) {
                Distribution d = e.getValue().distribution();
                handle(d, d.kind() == PayloadKind.MODEL_VOTE ? null : d.toCore(), step, ctx, out);
                done.add(e.getKey());
            } else if (ts - e.getValue().since() >= settings.stepDeadlineMs()) {
                reject(
                        ctx,
                        e.getValue().distribution(),
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

    private void handle(
            Distribution d,
            TeacherDistribution dist,
            GenerationStep step,
            ReadOnlyContext ctx,
            Collector<Vote> out)
            throws Exception {
        String key = d.stepKey();
        if (voted.contains(key)) {
            reject(
                    ctx,
                    d,
                    Rejected.DUPLICATE_VOTE,
                    "teacher " + d.teacherId() + " already voted at " + key);
            return;
        }
        int token;
        try {
            token = computeVote(d, dist, step);
        } catch (IllegalArgumentException e) {
            reject(
                    ctx,
                    d,
                    e instanceof AnswerVote.VersionMismatch
                            ? Rejected.RANDOMNESS_VERSION
                            : Rejected.INVALID_DISTRIBUTION,
                    e.getMessage());
            return;
        }
        voted.put(key, Boolean.TRUE);
        Individual ind = settings.individual();
        if (ind != null) {
            IndividualAccounting acc = ind.accounting();
            TeacherCharges t = chargesOf(d.teacherId(), ind);
            if (t.retired(acc.plan())) {
                skippedRetired.inc(); // never votes again: an abstention closes the step early
                out.collect(
                        new Vote(
                                d.runId(),
                                d.sequenceId(),
                                d.step(),
                                d.attempt(),
                                d.teacherId(),
                                Vote.ABSTAIN));
                return;
            }
            // Scheme B charges every involvement, whatever the outcome: the charge is decided by
            // the teacher's own vote and the public randomness, so it is applied here, in the same
            // keyed state and checkpoint as the vote (a replayed vote is a DUPLICATE_VOTE above).
            if (acc.chargesAtVote() && acc.involved(token, d.teacherId(), step.publicSeed(), t)) {
                charge(d, t.charge(acc.plan()), ind, ctx);
            }
        } else if (limit != null) {
            double spent = charge.value() == null ? 0.0 : charge.value();
            if (limit.isRetired(spent)) {
                // Retired: counted as an abstention so the step can still close early.
                skippedRetired.inc();
                out.collect(
                        new Vote(
                                d.runId(),
                                d.sequenceId(),
                                d.step(),
                                d.attempt(),
                                d.teacherId(),
                                Vote.ABSTAIN));
                return;
            }
            if (token != Vote.ABSTAIN) {
                double next = limit.charge(spent, settings.perVoteCharge());
                charge.update(next); // the charge is in state before the vote leaves
                if (limit.isRetired(next)) {
                    teachersRetired.inc();
                    ctx.output(
                            Tags.LEDGER,
                            teacherEntry(
                                    d,
                                    LedgerEntry.TEACHER_RETIRED,
                                    "",
                                    0,
                                    0,
                                    0,
                                    System.currentTimeMillis()));
                }
            }
        }
        out.collect(
                new Vote(d.runId(), d.sequenceId(), d.step(), d.attempt(), d.teacherId(), token));
    }

    private TeacherCharges chargesOf(long teacher, Individual ind) throws Exception {
        Long stored = teacherCharges.value();
        return TeacherCharges.of(
                stored != null ? stored : ind.priorCharges().getOrDefault(teacher, 0L));
    }

    /** Stores a teacher's new charge count and reports it (ledger entry, durable spending). */
    private void charge(Distribution d, TeacherCharges next, Individual ind, ReadOnlyContext ctx)
            throws Exception {
        IndividualAccounting acc = ind.accounting();
        teacherCharges.update(next.charges()); // in state before the vote leaves
        boolean retired = next.retired(acc.plan());
        double eps = acc.epsilon(next);
        long now = System.currentTimeMillis();
        ctx.output(
                Tags.LEDGER,
                teacherEntry(
                        d,
                        LedgerEntry.TEACHER_CHARGE,
                        acc.plan().scheme(),
                        eps,
                        acc.targetDelta(),
                        next.charges(),
                        now));
        TeacherSpend spend =
                new TeacherSpend(
                        ind.dataset(),
                        d.teacherId(),
                        acc.planId(),
                        next.charges(),
                        eps,
                        acc.targetDelta(),
                        retired,
                        d.runId(),
                        now);
        if (ind.ledgerDir() == null) {
            ctx.output(Tags.TEACHER_LEDGER, spend);
        } else {
            unsaved.put(d.teacherId(), spend);
        }
        if (retired) {
            teachersRetired.inc();
            ctx.output(
                    Tags.LEDGER,
                    teacherEntry(
                            d,
                            LedgerEntry.TEACHER_RETIRED,
                            acc.plan().scheme(),
                            eps,
                            acc.targetDelta(),
                            next.charges(),
                            now));
        }
    }

    /** An operator-only ledger entry about the teacher that sent {@code d}, at its step. */
    private static LedgerEntry teacherEntry(
            Distribution d,
            String kind,
            String scheme,
            double epsilon,
            double delta,
            long charges,
            long atMs) {
        return new LedgerEntry(
                d.runId(),
                kind,
                d.sequenceId(),
                d.step(),
                d.attempt(),
                scheme,
                "",
                epsilon,
                delta,
                charges,
                d.teacherId(),
                atMs);
    }

    /**
     * An open step of the same run and sequence at a later position or attempt than {@code d}
     * answers, or null. Such an answer is for a closed step: its result is out and the sequence has
     * moved on, so it is dead-lettered at once rather than held until the deadline. Only called
     * when {@code d}'s own step is not open (a scan of the open steps, off the common path).
     */
    private static GenerationStep supersededBy(
            ReadOnlyBroadcastState<String, GenerationStep> steps, Distribution d) throws Exception {
        for (Map.Entry<String, GenerationStep> e : steps.immutableEntries()) {
            GenerationStep s = e.getValue();
            if (s.runId().equals(d.runId())
                    && s.sequenceId() == d.sequenceId()
                    && (s.step() > d.step()
                            || (s.step() == d.step() && s.attempt() > d.attempt()))) {
                return s;
            }
        }
        return null;
    }

    private int computeVote(Distribution d, TeacherDistribution dist, GenerationStep step) {
        return AnswerVote.of(
                d, dist, step.publicSeed(), step.randomnessVersion(), step.vocabularySize(), voter);
    }

    @Override
    public void processBroadcastElement(GenerationStep step, Context ctx, Collector<Vote> out)
            throws Exception {
        BroadcastState<String, GenerationStep> steps = ctx.getBroadcastState(OPEN_STEPS);
        Iterator<Map.Entry<String, GenerationStep>> it = steps.iterator();
        while (it.hasNext()) {
            GenerationStep s = it.next().getValue();
            boolean superseded =
                    s.runId().equals(step.runId())
                            && s.sequenceId() == step.sequenceId()
                            && (s.step() < step.step()
                                    || (s.step() == step.step() && s.attempt() < step.attempt()));
            if (superseded || s.issuedAtMs() < step.issuedAtMs() - settings.retentionMs()) {
                it.remove();
            }
        }
        steps.put(step.stepKey(), step);
    }

    private void reject(ReadOnlyContext ctx, Distribution d, String reason, String detail) {
        rejected.inc();
        ctx.output(Tags.REJECTED, Rejected.of(settings.topic(), reason, detail, d));
    }

    /** For tests: the step key a distribution answers. */
    static String keyOf(Distribution d) {
        return Keys.step(d.runId(), d.sequenceId(), d.step(), d.attempt());
    }
}
