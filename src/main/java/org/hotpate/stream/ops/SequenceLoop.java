package org.hotpate.stream.ops;

import java.io.Serializable;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.core.generation.FinishReason;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.protocol.PublicModel;
import org.hotpate.protocol.SequenceId;
import org.hotpate.protocol.SequenceProgress;
import org.hotpate.protocol.SequenceSchedule;
import org.hotpate.protocol.StepId;

/**
 * The sequence loop (DESIGN.md topology step 4), keyed by run/sequence: an adapter over the
 * protocol's {@link SequenceProgress}. Each result moves the sequence's progress (append, the ⊥
 * policy, finish); the next step goes to the {@code steps} topic, closing the loop through Kafka. A
 * finished sequence leaves as a {@link SyntheticRecord} on {@link Tags#RECORDS} and starts its
 * successor — none after BUDGET_EXHAUSTED: then the rest of its chain never starts and each of
 * those sequences leaves here, in the same transaction, as an empty NOT_STARTED record ({@link
 * SequenceSchedule}), so every requested sequence ends in exactly one record.
 *
 * <p>The second input is the run's steps as seen on the {@code steps} topic; it only feeds the
 * {@link SequenceWatchdog}, which re-issues the awaited step as a new attempt when no result for it
 * arrived in time (abandoned below the quorum, or lost), and finishes the sequence as NO_QUORUM
 * after {@code generation.max-reissues} consecutive re-issues.
 *
 * <p>State {@code sequence}: the progress; cleared by a timer {@code retention} after the sequence
 * finished (the finished flag guards against late duplicates until then); {@code sequence-watchdog}
 * is cleared when the sequence finishes.
 */
public final class SequenceLoop
        extends KeyedCoProcessFunction<String, StepResult, GenerationStep, GenerationStep> {
    private static final long serialVersionUID = 1L;

    /**
     * The run's steps and sequence policy, how long finished sequences are remembered, the
     * watchdog's timeout ({@code JobConfig#watchdogMs()}), how tokens become text, and the public
     * model of the fallback policy; {@code finishTimes}: whether the public record carries the
     * wall-clock {@code finishedAtMs} (false in records runs: there the teachers are built from the
     * private records and their build and answer times set the timing, so the public {@code
     * records} topic gets 0, the schema's "not given"; the operator-only ledger keeps its times).
     */
    public record Settings(
            StepFactory steps,
            SequenceProgress.Policy policy,
            long retentionMs,
            long watchdogMs,
            SequenceText text,
            int stopToken,
            PublicModel publicModel,
            boolean finishTimes)
            implements Serializable {
        /** Settings whose records carry their finish times (simulated teachers). */
        public Settings(
                StepFactory steps,
                SequenceProgress.Policy policy,
                long retentionMs,
                long watchdogMs,
                SequenceText text,
                int stopToken,
                PublicModel publicModel) {
            this(steps, policy, retentionMs, watchdogMs, text, stopToken, publicModel, true);
        }
    }

    private final Settings settings;
    private final SequenceWatchdog watchdog;
    private transient ValueState<SequenceProgress> progress;
    private transient SequenceProgress.StopRule stop;
    private transient SparseProbabilities publicModel;
    private transient JobMetrics.LiveKeys inFlight;

    public SequenceLoop(Settings settings) {
        this.settings = settings;
        this.watchdog = new SequenceWatchdog(settings.watchdogMs());
    }

    @Override
    public void open(OpenContext ctx) {
        progress =
                getRuntimeContext()
                        .getState(
                                new ValueStateDescriptor<>(
                                        "sequence", Types.POJO(SequenceProgress.class)));
        stop = settings.text().stopRule(settings.stopToken());
        watchdog.open(getRuntimeContext());
        inFlight = JobMetrics.sequencesInFlight(getRuntimeContext());
    }

    private SequenceProgress current() throws Exception {
        SequenceProgress p = progress.value();
        return p == null ? SequenceProgress.start() : p;
    }

    @Override
    public void processElement1(StepResult r, Context ctx, Collector<GenerationStep> out)
            throws Exception {
        SequenceProgress p = current();
        if (!p.awaits(r)) {
            return; // a duplicate or stale result: this position was already handled
        }
        watchdog.answered();
        inFlight.add(ctx.getCurrentKey());
        SequenceProgress.Next next =
                p.onResult(
                        r,
                        settings.policy(),
                        watchdog.reissuesAt(r.step()),
                        stop,
                        failed -> fallbackToken(StepId.of(failed)));
        if (next.action() == SequenceProgress.Action.FINISH) {
            finish(next, SequenceId.parse(ctx.getCurrentKey()), ctx, out);
        } else {
            issue(next.progress(), r.sequenceId(), false, ctx, out);
        }
    }

    /** The next awaited step: in state and watched before it leaves. */
    private void issue(
            SequenceProgress p,
            long seq,
            boolean reissue,
            Context ctx,
            Collector<GenerationStep> out)
            throws Exception {
        progress.update(p);
        long now = ctx.timerService().currentProcessingTime();
        if (reissue) {
            watchdog.reissued(ctx.timerService(), p.position(), p.attempt());
        } else {
            watchdog.arm(ctx.timerService(), p.position(), p.attempt());
        }
        out.collect(settings.steps().step(seq, p.position(), p.attempt(), p.tokens(), now));
    }

    private int fallbackToken(StepId failed) {
        if (publicModel == null) {
            publicModel = settings.publicModel().distribution();
        }
        return PublicModel.fallbackToken(
                publicModel,
                settings.steps().shape().seed(failed),
                settings.steps().shape().vocabularySize());
    }

    private void finish(
            SequenceProgress.Next next, SequenceId seq, Context ctx, Collector<GenerationStep> out)
            throws Exception {
        SequenceProgress p = next.progress();
        FinishReason reason = next.reason();
        progress.update(p);
        watchdog.disarm(ctx.timerService());
        inFlight.remove(ctx.getCurrentKey());
        long now = ctx.timerService().currentProcessingTime();
        ctx.output(Tags.RECORDS, record(seq.runId(), seq.sequenceId(), p, reason));
        SequenceSchedule schedule = settings.policy().schedule();
        long successor = schedule.successor(seq.sequenceId(), reason);
        if (successor >= 0) {
            out.collect(settings.steps().step(successor, 0, 0, new int[0], now));
        }
        // Finished on the budget: the sequences it would have started never start, and each still
        // ends in its one record (nothing of it was issued, released or charged).
        for (long j : schedule.neverStarted(seq.sequenceId(), reason)) {
            ctx.output(
                    Tags.RECORDS,
                    record(seq.runId(), j, SequenceProgress.start(), FinishReason.NOT_STARTED));
        }
        ctx.timerService().registerProcessingTimeTimer(now + settings.retentionMs());
    }

    private SyntheticRecord record(
            String runId, long sequenceId, SequenceProgress p, FinishReason reason) {
        SequencePrompts.Prompt prompt = settings.steps().prompts().forSequence(sequenceId);
        return new SyntheticRecord(
                runId,
                sequenceId,
                p.tokens(),
                settings.text().cut(p.tokens()).text(),
                p.steps(),
                p.fails(),
                p.fallbacks(),
                reason,
                settings.finishTimes() ? System.currentTimeMillis() : 0L,
                prompt.text(),
                prompt.label());
    }

    /** A step of this run seen on the steps topic: the watchdog watches the awaited one. */
    @Override
    public void processElement2(GenerationStep s, Context ctx, Collector<GenerationStep> out)
            throws Exception {
        SequenceProgress p = progress.value();
        long now = ctx.timerService().currentProcessingTime();
        if (p == null) {
            // A sequence's first step (issued by the start source or a predecessor); an old one
            // replayed after this sequence's state was cleared must not restart it.
            if (s.step() == 0
                    && s.attempt() == 0
                    && s.issuedAtMs() >= now - settings.retentionMs()) {
                watchdog.arm(ctx.timerService(), 0, 0);
            }
        } else if (p.awaits(s)) {
            watchdog.arm(ctx.timerService(), s.step(), s.attempt());
        }
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<GenerationStep> out)
            throws Exception {
        SequenceWatchdog.Watch w = watchdog.due(ts);
        SequenceProgress p = progress.value();
        if (w == null) {
            if (p != null && p.finished()) {
                progress.clear(); // retention after the finish is over
            }
            return;
        }
        SequenceId seq = SequenceId.parse(ctx.getCurrentKey());
        SequenceProgress.Next next =
                current()
                        .onWatchdog(
                                seq.step(w.step(), w.attempt()),
                                w.consecutive(),
                                settings.policy());
        switch (next.action()) {
            case FINISH:
                finish(next, seq, ctx, out);
                break;
            case REISSUE:
                issue(next.progress(), seq.sequenceId(), true, ctx, out);
                break;
            default:
                watchdog.disarm(ctx.timerService()); // the sequence moved on
        }
    }
}
