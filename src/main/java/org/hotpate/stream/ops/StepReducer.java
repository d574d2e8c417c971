package org.hotpate.stream.ops;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.core.accounting.SchemeBStep;
import org.hotpate.core.accounting.TeacherCharges;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.Release;
import org.hotpate.core.vote.VoteHistogram;
import org.hotpate.io.PrivacyEventJson;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.Rejected;
import org.hotpate.model.ReleaseCandidate;
import org.hotpate.model.TeacherFeedback;
import org.hotpate.model.Vote;
import org.hotpate.model.VoteBatch;
import org.hotpate.stream.CoreBindings;
import org.hotpate.stream.IndividualAccounting;
import org.hotpate.stream.JobConfig;

/**
 * The step reducer (DESIGN.md topology step 3), keyed by run/sequence/step/attempt. Collects at
 * most one vote per teacher; closes when all n teachers voted or {@code step-deadline-ms} after it
 * first saw the step or a vote (missing teachers abstain).
 *
 * <p><b>Quorum.</b> A step that closes with fewer than {@code generation.min-teachers} answers is
 * <em>abandoned</em>: not aggregated, nothing released, nothing charged (an operator-only ABANDONED
 * ledger entry says so); the sequence watchdog re-issues the position as a new attempt. So a
 * teacher-service outage does not burn ε on steps where the missing teachers would count as
 * abstentions. Whether enough teachers answered is liveness, treated as public (threat model).
 *
 * <p><b>Replay-stable noise.</b> The mechanism draws its DP noise from a secret-keyed DRBG labelled
 * by the step key ({@link CoreBindings#stepNoise}), so a step closed again after a failure and a
 * restore — with the same votes — releases the same answer, never a second one. The secret comes
 * from the driver (it lives in the job graph) and is kept in union operator state {@code
 * noise-secret}, which wins on restore: a job resubmitted from a checkpoint or savepoint with a
 * freshly drawn secret still re-derives the same noise. Both are operator-only.
 *
 * <p><b>Batches.</b> Votes arrive pre-aggregated per step ({@link VoteCombiner}); a batch is one
 * append to {@code step-vote-batches} and one update of the count, so the state is touched per
 * batch, not per vote. The step closes when n votes arrived <em>and</em> the step itself was seen
 * (it comes on the steps input), or at the deadline; votes for a step that never arrives answer a
 * step this run never issued and are dead-lettered as UNKNOWN_STEP at the deadline, with nothing
 * released. A teacher's second vote in a step is dead-lettered as DUPLICATE_VOTE when the step
 * closes; it counts towards n, so such a step may close before the teacher it displaced voted (that
 * teacher then abstains). Votes made at the source (runs without per-teacher rules) reach this
 * operator without the vote operator's step check and deduplication: these rules are theirs.
 *
 * <p>State and clearing: {@code step-vote-batches}, {@code step-vote-count}, {@code step-seen} and
 * {@code step-deadline} are cleared when the step closes; {@code step-release} (the candidate) or
 * {@code step-abandoned} are kept until a cleanup timer ({@code retention}): late or replayed votes
 * are dead-lettered as LATE_VOTE and never cause a second release. After the retention the run's
 * accountant still refuses a second release of the same step key.
 */
public final class StepReducer
        extends KeyedCoProcessFunction<String, VoteBatch, GenerationStep, ReleaseCandidate>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    /** What the reducer needs from the job config (and the run's noise secret). */
    public record Settings(
            String topic,
            int teachers,
            int vocabularySize,
            long stepDeadlineMs,
            long retentionMs,
            JobConfig.Mechanism mechanism,
            int minTeachers,
            byte[] noiseSecret,
            IndividualAccounting individual,
            long runSeed)
            implements java.io.Serializable {
        /** Without per-teacher accounting. */
        public Settings(
                String topic,
                int teachers,
                int vocabularySize,
                long stepDeadlineMs,
                long retentionMs,
                JobConfig.Mechanism mechanism,
                int minTeachers,
                byte[] noiseSecret) {
            this(
                    topic,
                    teachers,
                    vocabularySize,
                    stepDeadlineMs,
                    retentionMs,
                    mechanism,
                    minTeachers,
                    noiseSecret,
                    null,
                    0);
        }

        @Override
        public String toString() { // never print the secret
            return "StepReducer.Settings[teachers="
                    + teachers
                    + ", mechanism="
                    + mechanism
                    + ", minTeachers="
                    + minTeachers
                    + "]";
        }
    }

    private final Settings settings;
    private transient ListState<long[]> votes;
    private transient ValueState<Boolean> seen;
    private transient ValueState<Integer> voteCount;
    private transient ValueState<Long> deadline;
    private transient ValueState<ReleaseCandidate> released;
    private transient ValueState<Boolean> abandoned;
    private transient ListState<byte[]> secretState;
    private transient byte[] secret;
    private transient Counter lateVotes;
    private transient Counter abandonedSteps;
    private transient JobMetrics.LiveKeys openSteps;

    public StepReducer(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) throws Exception {
        secretState =
                ctx.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "noise-secret",
                                        PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        secret = settings.noiseSecret();
        if (ctx.isRestored()) {
            for (byte[] s : secretState.get()) {
                secret = s; // every subtask stored the same secret
                break;
            }
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        secretState.update(List.of(secret));
    }

    @Override
    public void open(OpenContext ctx) {
        votes =
                getRuntimeContext()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "step-vote-batches",
                                        PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        seen = getRuntimeContext().getState(new ValueStateDescriptor<>("step-seen", Types.BOOLEAN));
        voteCount =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("step-vote-count", Types.INT));
        deadline =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("step-deadline", Types.LONG));
        released =
                getRuntimeContext()
                        .getState(
                                new ValueStateDescriptor<>(
                                        "step-release", Types.POJO(ReleaseCandidate.class)));
        abandoned =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("step-abandoned", Types.BOOLEAN));
        // Fail fast on a bad mechanism configuration (the real instances are built per step).
        CoreBindings.mechanism(
                settings.mechanism(),
                settings.vocabularySize(),
                settings.teachers(),
                CoreBindings.stepNoise(secret, "", 0, 0, 0));
        lateVotes = getRuntimeContext().getMetricGroup().counter("lateVotes");
        abandonedSteps = getRuntimeContext().getMetricGroup().counter("abandonedSteps");
        openSteps = JobMetrics.openSteps(getRuntimeContext());
    }

    private boolean closed() throws Exception {
        return released.value() != null || Boolean.TRUE.equals(abandoned.value());
    }

    @Override
    public void processElement1(VoteBatch batch, Context ctx, Collector<ReleaseCandidate> out)
            throws Exception {
        if (closed()) {
            for (int i = 0; i < batch.size(); i++) {
                Vote v = batch.vote(i);
                rejectVote(ctx, v, Rejected.LATE_VOTE, " already closed");
                resolveUncharged(v.runId(), v.sequenceId(), v.step(), v.attempt(), v, ctx);
            }
            return;
        }
        long[] packed = new long[2 * batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            packed[2 * i] = batch.teachers()[i];
            packed[2 * i + 1] = batch.tokens()[i];
        }
        votes.add(packed); // an append: RocksDB merges it without reading the list
        int n = (voteCount.value() == null ? 0 : voteCount.value()) + batch.size();
        voteCount.update(n);
        armDeadline(ctx);
        if (n >= settings.teachers() && Boolean.TRUE.equals(seen.value())) {
            close(ctx, out);
        }
    }

    private void rejectVote(Context ctx, Vote v, String reason, String detail) {
        lateVotes.inc();
        ctx.output(
                Tags.REJECTED,
                new Rejected(
                        settings.topic(),
                        reason,
                        "step " + ctx.getCurrentKey() + detail,
                        v.runId(),
                        v.teacherId(),
                        -1,
                        -1L,
                        null,
                        System.currentTimeMillis()));
    }

    @Override
    public void processElement2(GenerationStep step, Context ctx, Collector<ReleaseCandidate> out)
            throws Exception {
        if (!closed()) {
            seen.update(Boolean.TRUE);
            armDeadline(ctx);
            Integer n = voteCount.value();
            if (n != null && n >= settings.teachers()) {
                close(ctx, out); // every vote came before the step itself
            }
        }
    }

    private void armDeadline(Context ctx) throws Exception {
        if (deadline.value() == null) {
            long t = ctx.timerService().currentProcessingTime() + settings.stepDeadlineMs();
            deadline.update(t);
            ctx.timerService().registerProcessingTimeTimer(t);
            openSteps.add(ctx.getCurrentKey());
        }
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<ReleaseCandidate> out)
            throws Exception {
        if (closed()) {
            released.clear(); // retention over: forget the closed step
            abandoned.clear();
        } else if (deadline.value() != null && ts >= deadline.value()) {
            if (Boolean.TRUE.equals(seen.value())) {
                close(ctx, out);
            } else {
                forgetUnknownStep(ctx); // votes for a step this run never issued
            }
        }
    }

    /**
     * The deadline passed and the step itself never arrived: its votes answer a step this run never
     * issued. They are dead-lettered as UNKNOWN_STEP; nothing is released or charged.
     */
    private void forgetUnknownStep(Context ctx) throws Exception {
        for (Vote v : storedVotes(ctx.getCurrentKey())) {
            rejectVote(ctx, v, Rejected.UNKNOWN_STEP, " was never issued by this run");
        }
        votes.clear();
        voteCount.clear();
        deadline.clear();
        openSteps.remove(ctx.getCurrentKey());
    }

    /**
     * A step key's parts (the run id may itself contain '/'; the last three fields are numbers).
     */
    private record StepKey(String runId, long seq, int step, int attempt) {
        static StepKey parse(String key) {
            String[] k = key.split("/");
            return new StepKey(
                    key.substring(0, key.indexOf('/')),
                    Long.parseLong(k[k.length - 3]),
                    Integer.parseInt(k[k.length - 2]),
                    Integer.parseInt(k[k.length - 1]));
        }
    }

    /** The step's stored votes in arrival order. */
    private List<Vote> storedVotes(String key) throws Exception {
        StepKey s = StepKey.parse(key);
        List<Vote> out = new ArrayList<>();
        Iterable<long[]> stored = votes.get();
        for (long[] packed : stored == null ? List.<long[]>of() : stored) {
            for (int i = 0; i < packed.length; i += 2) {
                out.add(
                        new Vote(
                                s.runId(),
                                s.seq(),
                                s.step(),
                                s.attempt(),
                                packed[i],
                                (int) packed[i + 1]));
            }
        }
        return out;
    }

    private void close(Context ctx, Collector<ReleaseCandidate> out) throws Exception {
        List<Vote> stored = storedVotes(ctx.getCurrentKey());
        StepKey key = StepKey.parse(ctx.getCurrentKey());
        String runId = key.runId();
        long seq = key.seq();
        int step = key.step();
        int attempt = key.attempt();
        VoteHistogram.Builder b = VoteHistogram.builder(settings.teachers());
        int answered = 0;
        List<long[]> entries = new ArrayList<>(); // (teacher, token), for per-teacher schemes
        BitSet voted = new BitSet(settings.teachers());
        for (Vote v : stored) {
            int teacher = (int) v.teacherId();
            if (voted.get(teacher)) {
                // Sensitivity 1 whatever reaches the reducer: votes made at the source come here
                // without the vote operator's deduplication.
                rejectVote(ctx, v, Rejected.DUPLICATE_VOTE, " already has this teacher's vote");
                continue;
            }
            voted.set(teacher);
            b.vote(teacher, v.token());
            entries.add(new long[] {teacher, v.token()});
            answered++;
        }
        ReleaseCandidate c;
        if (deadline.value() != null) {
            ctx.timerService().deleteProcessingTimeTimer(deadline.value());
        }
        votes.clear();
        voteCount.clear();
        deadline.clear();
        seen.clear();
        openSteps.remove(ctx.getCurrentKey());
        ctx.timerService()
                .registerProcessingTimeTimer(
                        ctx.timerService().currentProcessingTime() + settings.retentionMs());
        if (answered < settings.minTeachers()) {
            abandonedSteps.inc();
            abandoned.update(Boolean.TRUE);
            for (long[] e : entries) {
                resolveUncharged(
                        runId,
                        seq,
                        step,
                        attempt,
                        new Vote(runId, seq, step, attempt, e[0], (int) e[1]),
                        ctx);
            }
            ctx.output(
                    Tags.LEDGER,
                    new LedgerEntry(
                            runId,
                            LedgerEntry.ABANDONED,
                            seq,
                            step,
                            attempt,
                            settings.mechanism().name(),
                            "",
                            Double.NaN,
                            Double.NaN,
                            -1,
                            -1,
                            System.currentTimeMillis(),
                            answered,
                            Double.NaN));
            return;
        }
        if (settings.individual() != null) {
            c = individualRelease(runId, seq, step, attempt, answered, entries);
            released.update(c);
            out.collect(c);
            return;
        }
        // The histogram is canonical (sorted tokens and voters), and the noise is keyed by the
        // step: the same votes give the same release, also after a restore.
        AggregationMechanism mechanism =
                CoreBindings.mechanism(
                        settings.mechanism(),
                        settings.vocabularySize(),
                        settings.teachers(),
                        CoreBindings.stepNoise(secret, runId, seq, step, attempt));
        Release r = mechanism.release(b.build());
        c =
                new ReleaseCandidate(
                        runId,
                        seq,
                        step,
                        attempt,
                        r.token().orElse(-1),
                        settings.mechanism().name(),
                        PrivacyEventJson.encode(r.event()),
                        PrivacyEventJson.encode(mechanism.worstCaseEvent()),
                        r.noisyCount().orElse(Double.NaN),
                        r.chargedTeachers().stream().mapToLong(Integer::longValue).toArray(),
                        answered,
                        settings.teachers(),
                        System.currentTimeMillis());
        released.update(c);
        out.collect(c);
    }

    /**
     * Scheme A: a vote that is in no release — its step was abandoned below the quorum, or it came
     * after the step closed — resolves its teacher's pending involvement without a charge (nothing
     * released depends on it). Sent like the accountant's feedback ({@link Tags#TEACHER_FEEDBACK},
     * the exactly-once sink, read back by the vote operator); without it the involvement would only
     * make the teacher abstain sooner for the rest of the run. A vote counted in a release is never
     * resolved here: a closed step's late vote is one the release did not count.
     */
    private void resolveUncharged(
            String runId, long seq, int step, int attempt, Vote v, Context ctx) {
        IndividualAccounting acc = settings.individual();
        if (acc == null || !acc.chargesOnOutcome() || v.token() == Vote.ABSTAIN) {
            return;
        }
        long seed = CoreBindings.stepSeed(settings.runSeed(), runId, seq, step, attempt);
        if (acc.involved(v.token(), v.teacherId(), seed, TeacherCharges.NONE)) {
            ctx.output(
                    Tags.TEACHER_FEEDBACK,
                    new TeacherFeedback(
                            runId,
                            seq,
                            step,
                            attempt,
                            v.teacherId(),
                            false,
                            System.currentTimeMillis()));
        }
    }

    /**
     * A per-teacher scheme's step (scheme-a/scheme-b): count the involved teachers — own vote = the
     * tested token and public coin 1 (core {@code IndividualSchemes.involved}; a teacher without
     * room was already turned into an abstention by the vote operator) — and let core decide on the
     * count with the step's keyed noise. The candidate names the involved teachers and those the
     * outcome charges (scheme-a: the accountant feeds both back to the teachers' state); the noisy
     * count is never returned.
     */
    private ReleaseCandidate individualRelease(
            String runId, long seq, int step, int attempt, int answered, List<long[]> entries) {
        IndividualAccounting acc = settings.individual();
        long seed = CoreBindings.stepSeed(settings.runSeed(), runId, seq, step, attempt);
        List<Long> involved = new ArrayList<>();
        for (long[] e : entries) {
            if (acc.involved((int) e[1], e[0], seed, TeacherCharges.NONE)) {
                involved.add(e[0]);
            }
        }
        involved.sort(null); // canonical: the same votes give the same draw
        SchemeBStep.Decision d =
                acc.decide(
                        involved.size(), CoreBindings.stepNoise(secret, runId, seq, step, attempt));
        String event = PrivacyEventJson.encode(d.event());
        long[] involvedIds = involved.stream().mapToLong(Long::longValue).toArray();
        return new ReleaseCandidate(
                runId,
                seq,
                step,
                attempt,
                d.reported() ? acc.randomness(seed).token() : -1,
                settings.mechanism().name(),
                event,
                event,
                Double.NaN,
                d.chargeInvolved() ? involvedIds : new long[0],
                answered,
                settings.teachers(),
                System.currentTimeMillis(),
                involvedIds);
    }
}
