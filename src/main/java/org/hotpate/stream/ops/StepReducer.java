package org.hotpate.stream.ops;

import java.io.Serializable;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.core.mechanism.ConfiguredMechanism;
import org.hotpate.io.PrivacyEventJson;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.Rejected;
import org.hotpate.model.ReleaseCandidate;
import org.hotpate.model.TeacherFeedback;
import org.hotpate.model.Vote;
import org.hotpate.model.VoteBatch;
import org.hotpate.protocol.AccountingMode;
import org.hotpate.protocol.LedgerEntries;
import org.hotpate.protocol.RunShape;
import org.hotpate.protocol.StepId;
import org.hotpate.protocol.StepNoise;
import org.hotpate.protocol.StepRelease;
import org.hotpate.protocol.StepTally;

/**
 * The step reducer (DESIGN.md topology step 3), keyed by step: an adapter over the protocol's
 * {@link StepTally} (close, dedupe, quorum) and {@link StepRelease}. Votes arrive in batches
 * ({@link VoteCombiner}; one append to {@code step-vote-batches} and one count update per batch).
 * The step closes when n votes arrived and the step itself was seen, or {@code step-deadline-ms}
 * after it first saw the step or a vote (missing teachers abstain); votes for a step that never
 * arrives are dead-lettered as UNKNOWN_STEP at the deadline. With in-job teachers (records runs'
 * n-gram teachers) the deadline waits while the teachers are busy ({@link #teachersBusy}). A closed
 * step below the quorum is abandoned (an ABANDONED ledger entry, nothing released or charged);
 * otherwise the release goes to the run's accountant as a {@link ReleaseCandidate}.
 *
 * <p><b>Replay-stable noise.</b> The mechanism draws its DP noise from a secret-keyed DRBG labelled
 * by the step under the run's ledger account ({@link StepNoise}; the secret: {@link NoiseSecret}),
 * so a step closed again after a failure and a restore — with the same votes — releases the same
 * answer, never a second one; a resumed fork ({@code <runId>~r<k>}: the same secret and step keys,
 * another account) draws fresh noise, so two branches from one savepoint release independently
 * (issue 30 item 1).
 *
 * <p>Scheme A: a vote in no release (its step abandoned, or the vote late) resolves its teacher's
 * pending involvement uncharged ({@link Tags#TEACHER_FEEDBACK}); a vote counted in a release is
 * resolved by the accountant.
 *
 * <p>State and clearing: {@code step-vote-batches}, {@code step-vote-count}, {@code step-seen} and
 * {@code step-deadline} are cleared when the step closes; {@code step-release} or {@code
 * step-abandoned} are kept until a cleanup timer ({@code retention}): late or replayed votes are
 * LATE_VOTE and never cause a second release (after that, the accountant refuses a second release
 * of the same step).
 */
public final class StepReducer
        extends KeyedCoProcessFunction<String, VoteBatch, GenerationStep, ReleaseCandidate>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    /**
     * What the reducer needs: the run, its mechanism and accounting mode, the noise secret and the
     * durable ledger account the run charges ({@code noiseAccount}, null: the run id; a resumed
     * fork's {@code <runId>~r<k>}), which keys the noise together with the secret.
     */
    public record Settings(
            String topic,
            RunShape shape,
            int teachers,
            int minTeachers,
            long retentionMs,
            ConfiguredMechanism mechanism,
            AccountingMode mode,
            byte[] noiseSecret,
            String noiseAccount,
            boolean waitForBusyTeachers)
            implements Serializable {
        /** Teachers outside the job (a deadline only). */
        public Settings(
                String topic,
                RunShape shape,
                int teachers,
                int minTeachers,
                long retentionMs,
                ConfiguredMechanism mechanism,
                AccountingMode mode,
                byte[] noiseSecret,
                String noiseAccount) {
            this(
                    topic,
                    shape,
                    teachers,
                    minTeachers,
                    retentionMs,
                    mechanism,
                    mode,
                    noiseSecret,
                    noiseAccount,
                    false);
        }

        /** The run's own account (not a fork). */
        public Settings(
                String topic,
                RunShape shape,
                int teachers,
                int minTeachers,
                long retentionMs,
                ConfiguredMechanism mechanism,
                AccountingMode mode,
                byte[] noiseSecret) {
            this(
                    topic,
                    shape,
                    teachers,
                    minTeachers,
                    retentionMs,
                    mechanism,
                    mode,
                    noiseSecret,
                    null);
        }

        /** The ledger account whose noise step {@code id} draws. */
        String account(StepId id) {
            return noiseAccount != null ? noiseAccount : id.runId();
        }

        @Override
        public String toString() { // never print the secret
            return "StepReducer.Settings[teachers=" + teachers + ", mechanism=" + mechanism + "]";
        }
    }

    private final Settings settings;
    private transient OpenStepState state;
    private transient NoiseSecret secretState;
    private transient byte[] secret;
    private transient Counter lateVotes;
    private transient Counter abandonedSteps;
    private transient Counter deferredDeadlines;

    /** When this subtask last received a vote batch of any step (processing time). */
    private transient long lastBatchMs;

    private transient JobMetrics.LiveKeys openSteps;

    public StepReducer(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) throws Exception {
        secretState = new NoiseSecret();
        secret = secretState.initialize(ctx, settings.noiseSecret());
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        secretState.snapshot();
    }

    @Override
    public void open(OpenContext ctx) {
        state = new OpenStepState();
        state.open(getRuntimeContext());
        if (settings.mode().releasesFromHistogram()) {
            mechanism(new StepId("", 0, 0, 0)); // a bad mechanism configuration fails here
        }
        lateVotes = getRuntimeContext().getMetricGroup().counter("lateVotes");
        lastBatchMs = 0; // no vote yet (after a restore too)
        abandonedSteps = getRuntimeContext().getMetricGroup().counter("abandonedSteps");
        deferredDeadlines = getRuntimeContext().getMetricGroup().counter("deferredDeadlines");
        openSteps = JobMetrics.openSteps(getRuntimeContext());
    }

    @Override
    public void processElement1(VoteBatch batch, Context ctx, Collector<ReleaseCandidate> out)
            throws Exception {
        lastBatchMs = ctx.timerService().currentProcessingTime();
        if (state.closed()) {
            for (int i = 0; i < batch.size(); i++) {
                Vote v = batch.vote(i);
                rejectVote(ctx, v, Rejected.LATE_VOTE, " already closed");
                resolveUncharged(List.of(v), ctx);
            }
            return;
        }
        int n = state.add(batch);
        armDeadline(ctx);
        if (StepTally.complete(n, state.seen(), settings.teachers())) {
            close(ctx, out);
        }
    }

    @Override
    public void processElement2(GenerationStep step, Context ctx, Collector<ReleaseCandidate> out)
            throws Exception {
        if (!state.closed()) {
            state.markSeen();
            armDeadline(ctx);
            if (StepTally.complete(state.votes(), true, settings.teachers())) {
                close(ctx, out); // every vote came before the step itself
            }
        }
    }

    private void armDeadline(Context ctx) throws Exception {
        if (state.armDeadline(ctx.timerService(), settings.shape().stepDeadlineMs())) {
            openSteps.add(ctx.getCurrentKey());
        }
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<ReleaseCandidate> out)
            throws Exception {
        if (state.closed()) {
            state.forget(); // retention over: forget the closed step
        } else if (state.due(ts)) {
            if (state.seen() && teachersBusy(ts)) {
                deferredDeadlines.inc(); // back-pressure: wait instead of rejecting their votes
                state.rearmDeadline(ctx.timerService(), settings.shape().stepDeadlineMs());
            } else if (state.seen()) {
                close(ctx, out);
            } else { // votes for a step this run never issued: nothing released or charged
                StepId id = StepId.parse(ctx.getCurrentKey());
                for (Vote v : StepTally.unpack(id, state.votes.get())) {
                    rejectVote(ctx, v, Rejected.UNKNOWN_STEP, " was never issued by this run");
                }
                clearOpen(ctx);
            }
        }
    }

    /**
     * In-job teachers ({@link Settings#waitForBusyTeachers}) answer every step they see, in the
     * order they see them, once all of them are built: a step past its deadline before this
     * subtask's first vote (the teachers are still being built) or while votes of other steps still
     * arrive is queued, not missing, so its deadline moves on instead of rejecting its votes as
     * LATE_VOTE. Only a subtask that received no vote for a whole deadline after votes began closes
     * its steps. (The sequence loop's watchdog is longer for such runs: JobConfig.)
     */
    private boolean teachersBusy(long now) {
        return settings.waitForBusyTeachers()
                && (lastBatchMs == 0 || now - lastBatchMs < settings.shape().stepDeadlineMs());
    }

    private void close(Context ctx, Collector<ReleaseCandidate> out) throws Exception {
        StepId id = StepId.parse(ctx.getCurrentKey());
        StepTally tally = StepTally.count(id, state.votes.get(), settings.teachers());
        for (Vote v : tally.duplicates()) {
            rejectVote(ctx, v, Rejected.DUPLICATE_VOTE, " already has this teacher's vote");
        }
        clearOpen(ctx);
        long now = ctx.timerService().currentProcessingTime();
        ctx.timerService().registerProcessingTimeTimer(now + settings.retentionMs());
        String mechanism = settings.mechanism().name();
        if (!tally.meetsQuorum(settings.minTeachers())) {
            abandonedSteps.inc();
            state.abandoned.update(Boolean.TRUE);
            resolveUncharged(tally.counted(), ctx);
            ctx.output(
                    Tags.LEDGER,
                    LedgerEntries.abandoned(
                            id, mechanism, tally.answered(), System.currentTimeMillis()));
            return;
        }
        org.hotpate.core.noise.UniformSource noise = noise(id); // one keyed source per step
        StepRelease r =
                settings.mode()
                        .release(tally, settings.shape().seed(id), noise, () -> mechanism(noise));
        ReleaseCandidate c =
                r.candidate(
                        id,
                        mechanism,
                        PrivacyEventJson.encode(r.event()), // the hop to the accountant
                        tally.answered(),
                        // the agreement profile (operator.json): votes for the released token
                        r.token() < 0 ? -1 : tally.votesFor(r.token()),
                        settings.teachers(),
                        System.currentTimeMillis());
        state.released.update(c);
        out.collect(c);
    }

    private void clearOpen(Context ctx) throws Exception {
        state.clearOpen(ctx.timerService());
        openSteps.remove(ctx.getCurrentKey());
    }

    private org.hotpate.core.mechanism.AggregationMechanism mechanism(StepId id) {
        return mechanism(noise(id));
    }

    private org.hotpate.core.mechanism.AggregationMechanism mechanism(
            org.hotpate.core.noise.UniformSource noise) {
        return settings.mechanism()
                .create(settings.shape().vocabularySize(), settings.teachers(), noise);
    }

    private org.hotpate.core.noise.UniformSource noise(StepId id) {
        return StepNoise.of(secret, settings.account(id), id);
    }

    /**
     * Scheme A: votes in no release (step abandoned below the quorum, or late) resolve their
     * teachers' pending involvements without a charge (nothing released depends on them).
     */
    private void resolveUncharged(List<Vote> inNoRelease, Context ctx) {
        AccountingMode mode = settings.mode();
        if (!mode.feedsOutcomesBack() || inNoRelease.isEmpty()) {
            return;
        }
        StepId id = StepId.of(inNoRelease.get(0));
        long[] involved = mode.scheme().involvedAmong(inNoRelease, settings.shape().seed(id));
        for (TeacherFeedback f :
                AccountingMode.ChargeOnOutcome.outcomes(
                        id, involved, false, System.currentTimeMillis())) {
            ctx.output(Tags.TEACHER_FEEDBACK, f);
        }
    }

    private void rejectVote(Context ctx, Vote v, String reason, String detail) {
        lateVotes.inc();
        ctx.output(
                Tags.REJECTED,
                Rejected.of(
                        settings.topic(),
                        reason,
                        "step " + ctx.getCurrentKey() + detail,
                        v.runId(),
                        v.teacherId()));
    }
}
