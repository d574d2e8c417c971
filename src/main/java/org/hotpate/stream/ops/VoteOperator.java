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
import org.hotpate.model.TeacherFeedback;
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
 * <p><b>Scheme A</b> ({@code mechanism.name: scheme-a}; rests on the derived proof, PRIVACY.md
 * Appendix A): only a BETWEEN outcome charges, and the outcome is known only after the release. An
 * involvement is therefore recorded as pending ({@code pending-involvements}, the step key) before
 * the vote leaves, and resolved by the accountant's feedback ({@link Input#feedback()}, read back
 * read_committed from the job's own exactly-once {@code teacher-feedback} topic): the step leaves
 * the pending set and, if the outcome was BETWEEN, the teacher is charged one unit exactly as under
 * Scheme B (same {@code teacher-charges}, TEACHER_CHARGE / TEACHER_RETIRED, durable spending).
 * Feedback for a step that is not pending — read again after a restore whose state already holds
 * its effect — is ignored, so a replayed release charges no one twice. A teacher that would be
 * involved while {@code charges + pending >= τ} abstains instead (conservative: even if every
 * outcome in flight is BETWEEN it never passes τ); it votes again once outcomes come back without a
 * charge, and never again once its charges reach τ.
 *
 * <p><b>Why abstaining on pending involvements is sound.</b> Scheme A's guarantee (Theorem 2) holds
 * for any involvement rule that is a function of the teacher's own data and of the history (the
 * step outcomes BELOW/BETWEEN/ABOVE — the proof treats them as released; the public sees only token
 * or ⊥, which is post-processing — and the public seeds): the rule already looks at the teacher's
 * own vote and its charges, which are such functions. The pending set is one too: it is the
 * teacher's own involvements (own votes, public coins) whose outcomes are not yet applied, and the
 * charges are those outcomes. Abstaining is also what a teacher absent from the data does: an
 * abstention adds nothing to the count. So "abstain while charges + pending ≥ τ" is just another
 * data-dependent involvement rule, the count a teacher can enter in BETWEEN outcomes stays ≤ τ, and
 * Theorem 2 applies unchanged. When feedback is applied depends on the pipeline's timing, which the
 * threat model treats as public (liveness), never on the noise or the count.
 *
 * <p>State and clearing: {@code voted-steps} (TTL = retention), {@code pending-distributions}
 * (answers that arrived before their step; retried by timer, dead-lettered as UNKNOWN_STEP after
 * the step deadline — an answer for a step its sequence has already moved past is LATE_VOTE at once
 * and never pends), {@code teacher-charge} / {@code teacher-charges} (the run's lifetime: a spent
 * teacher never votes again, across restarts), {@code pending-involvements} (scheme-a: an entry
 * leaves when feedback on its step arrives — from the accountant for a released step, from the
 * reducer, uncharged, for a vote in no release (step abandoned below the quorum, vote late at the
 * reducer); one in a step refused by the budget gets none and stays for the run's lifetime, where
 * it only makes the teacher abstain sooner), broadcast {@code open-steps} (a step leaves when a
 * later step of its sequence arrives, or when it is older than the retention by the issue times in
 * the data).
 */
public final class VoteOperator
        extends KeyedBroadcastProcessFunction<Long, VoteOperator.Input, GenerationStep, Vote>
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

    /**
     * The operator's keyed input, keyed by teacher: a teacher's distribution, or (scheme-a) the
     * accountant's feedback on one of its involvements. Exactly one of the two is set.
     */
    public record Input(Distribution distribution, TeacherFeedback feedback) {
        public static Input of(Distribution d) {
            return new Input(d, null);
        }

        public static Input of(TeacherFeedback f) {
            return new Input(null, f);
        }

        /** The key: the teacher the input is about. */
        public long teacherId() {
            return distribution != null ? distribution.teacherId() : feedback.teacherId();
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
    private transient MapState<String, Boolean> involvements; // scheme-a: outcome not yet known
    private transient Counter skippedInFlight; // scheme-a: no room while outcomes are pending
    private transient Counter feedbackIgnored; // scheme-a: replayed or unexpected feedback
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
        } else {
            processDistribution(in.distribution(), ctx, out);
        }
    }

    private void processDistribution(Distribution d, ReadOnlyContext ctx, Collector<Vote> out)
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
                out.collect(abstention(d));
                return;
            }
            boolean involved = acc.involved(token, d.teacherId(), step.publicSeed(), t);
            if (acc.chargesAtVote() && involved) {
                // Scheme B charges every involvement, whatever the outcome: the charge is decided
                // by the teacher's own vote and the public randomness, so it is applied here, in
                // the same keyed state and checkpoint as the vote (a replayed vote is a
                // DUPLICATE_VOTE above).
                charge(
                        d.runId(),
                        d.sequenceId(),
                        d.step(),
                        d.attempt(),
                        d.teacherId(),
                        t.charge(acc.plan()),
                        ind,
                        ctx);
            } else if (involved) {
                // Scheme A: the charge depends on the released outcome, which comes back later
                // (resolve). Until then the involvement counts as a charge: a teacher with no room
                // left for every outcome in flight to be BETWEEN does not take part.
                if (t.charges() + countInvolvements() >= acc.plan().limit()) {
                    skippedInFlight.inc();
                    out.collect(abstention(d));
                    return;
                }
                involvements.put(key, Boolean.TRUE); // in state before the vote leaves
            }
        } else if (limit != null) {
            double spent = charge.value() == null ? 0.0 : charge.value();
            if (limit.isRetired(spent)) {
                // Retired: counted as an abstention so the step can still close early.
                skippedRetired.inc();
                out.collect(abstention(d));
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
                                    d.runId(),
                                    d.sequenceId(),
                                    d.step(),
                                    d.attempt(),
                                    d.teacherId(),
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

    /** Scheme A: the involvements whose released outcome has not come back yet. */
    private int countInvolvements() throws Exception {
        int n = 0;
        for (String ignored : involvements.keys()) {
            n++;
        }
        return n;
    }

    /**
     * Scheme A: the accountant's feedback on a released step. If the step is still pending for this
     * teacher, it is resolved — and charged one unit when the outcome was BETWEEN, through the same
     * {@link #charge} as Scheme B. If it is not pending (feedback read again after a restore whose
     * state already holds its effect, or a step this teacher was not involved in) it is ignored: a
     * release charges a teacher at most once.
     */
    private void resolve(TeacherFeedback f, ReadOnlyContext ctx) throws Exception {
        Individual ind = settings.individual();
        if (ind == null
                || ind.accounting().chargesAtVote()
                || !involvements.contains(f.stepKey())) {
            feedbackIgnored.inc();
            return;
        }
        involvements.remove(f.stepKey());
        if (f.charged()) {
            TeacherCharges t = chargesOf(f.teacherId(), ind);
            charge(
                    f.runId(),
                    f.sequenceId(),
                    f.step(),
                    f.attempt(),
                    f.teacherId(),
                    t.charge(ind.accounting().plan()),
                    ind,
                    ctx);
        }
    }

    /** Stores a teacher's new charge count and reports it (ledger entry, durable spending). */
    private void charge(
            String runId,
            long sequenceId,
            int step,
            int attempt,
            long teacherId,
            TeacherCharges next,
            Individual ind,
            ReadOnlyContext ctx)
            throws Exception {
        IndividualAccounting acc = ind.accounting();
        teacherCharges.update(next.charges()); // in state before the vote (B) leaves
        boolean retired = next.retired(acc.plan());
        double eps = acc.epsilon(next);
        long now = System.currentTimeMillis();
        java.util.function.Function<String, LedgerEntry> entry =
                kind ->
                        teacherEntry(
                                runId,
                                sequenceId,
                                step,
                                attempt,
                                teacherId,
                                kind,
                                acc.plan().scheme(),
                                eps,
                                acc.targetDelta(),
                                next.charges(),
                                now);
        ctx.output(Tags.LEDGER, entry.apply(LedgerEntry.TEACHER_CHARGE));
        TeacherSpend spend =
                new TeacherSpend(
                        ind.dataset(),
                        teacherId,
                        acc.planId(),
                        next.charges(),
                        eps,
                        acc.targetDelta(),
                        retired,
                        runId,
                        now);
        if (ind.ledgerDir() == null) {
            ctx.output(Tags.TEACHER_LEDGER, spend);
        } else {
            unsaved.put(teacherId, spend);
        }
        if (retired) {
            teachersRetired.inc();
            ctx.output(Tags.LEDGER, entry.apply(LedgerEntry.TEACHER_RETIRED));
        }
    }

    /** The teacher's abstention at the step {@code d} answers (it takes no part in the count). */
    private static Vote abstention(Distribution d) {
        return new Vote(
                d.runId(), d.sequenceId(), d.step(), d.attempt(), d.teacherId(), Vote.ABSTAIN);
    }

    /** An operator-only ledger entry about a teacher at a step. */
    private static LedgerEntry teacherEntry(
            String runId,
            long sequenceId,
            int step,
            int attempt,
            long teacherId,
            String kind,
            String scheme,
            double epsilon,
            double delta,
            long charges,
            long atMs) {
        return new LedgerEntry(
                runId,
                kind,
                sequenceId,
                step,
                attempt,
                scheme,
                "",
                epsilon,
                delta,
                charges,
                teacherId,
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
