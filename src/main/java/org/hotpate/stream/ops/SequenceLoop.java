package org.hotpate.stream.ops;

import java.util.Arrays;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.Outcome;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.stream.CoreBindings;
import org.hotpate.stream.JobConfig;
import org.hotpate.stream.SequencePrompts;
import org.hotpate.stream.SequenceText;
import org.hotpate.stream.StepFactory;

/**
 * The sequence loop (DESIGN.md topology step 4), keyed by run/sequence: appends released tokens,
 * applies the ⊥ policy (resample with a new seed, public-model fallback, or stop), and emits the
 * next step — which goes to the {@code steps} topic, closing the loop through Kafka. A finished
 * sequence leaves as a {@link SyntheticRecord} on {@link Tags#RECORDS} and starts sequence {@code
 * id + concurrency} (unless the budget is exhausted).
 *
 * <p>The second input is the run's steps as seen on the {@code steps} topic; it only feeds the
 * {@link SequenceWatchdog}, which re-issues a position as a new attempt when no result for the
 * issued step arrived in time (abandoned below the quorum, or lost), and finishes the sequence as
 * NO_QUORUM after {@code generation.max-reissues} consecutive re-issues. Watchdog re-issues do not
 * count as ⊥ attempts of the resample policy.
 *
 * <p>State {@code sequence}: the progress of this sequence; results for other positions than the
 * expected one (duplicates, superseded attempts — they stay charged) are ignored. Cleared by a
 * timer {@code retention} after the sequence finished (the finished flag guards against late
 * duplicates until then); {@code sequence-watchdog} is cleared when the sequence finishes.
 */
public final class SequenceLoop
        extends KeyedCoProcessFunction<String, StepResult, GenerationStep, GenerationStep> {
    private static final long serialVersionUID = 1L;

    /** Progress of one sequence (a Flink POJO). */
    public record Progress(
            int[] tokens, int attempt, int steps, int fails, int fallbacks, boolean finished) {
        static Progress start() {
            return new Progress(new int[0], 0, 0, 0, 0, false);
        }
    }

    private final JobConfig.Generation gen;
    private final JobConfig.Ensemble ensemble;
    private final StepFactory steps;
    private final long retentionMs;
    private final SequenceText text;
    private final int maxReissues;
    private final SequenceWatchdog watchdog;
    private transient ValueState<Progress> progress;
    private transient SparseProbabilities publicModel;
    private transient JobMetrics.LiveKeys inFlight;

    /**
     * {@code watchdogMs}: how long after issuing a step the loop waits for its result before it
     * re-issues the position ({@code JobConfig#watchdogMs()}).
     */
    public SequenceLoop(
            JobConfig.Generation gen,
            JobConfig.Ensemble ensemble,
            StepFactory steps,
            long retentionMs,
            long watchdogMs) {
        this(gen, ensemble, steps, retentionMs, watchdogMs, SequenceText.NUMBERS);
    }

    /** With {@code text}: how tokens become text and when text ends a sequence (records runs). */
    public SequenceLoop(
            JobConfig.Generation gen,
            JobConfig.Ensemble ensemble,
            StepFactory steps,
            long retentionMs,
            long watchdogMs,
            SequenceText text) {
        this.gen = gen;
        this.ensemble = ensemble;
        this.steps = steps;
        this.retentionMs = retentionMs;
        this.text = text;
        this.maxReissues = gen.maxReissues();
        this.watchdog = new SequenceWatchdog(watchdogMs);
    }

    @Override
    public void open(OpenContext ctx) {
        progress =
                getRuntimeContext()
                        .getState(
                                new ValueStateDescriptor<>("sequence", Types.POJO(Progress.class)));
        publicModel =
                gen.onFail() == JobConfig.FailPolicy.FALLBACK
                        ? ensemble.simulated().publicModel()
                        : null;
        watchdog.open(getRuntimeContext());
        inFlight = JobMetrics.sequencesInFlight(getRuntimeContext());
    }

    @Override
    public void processElement1(StepResult r, Context ctx, Collector<GenerationStep> out)
            throws Exception {
        Progress p = progress.value() == null ? Progress.start() : progress.value();
        if (p.finished() || r.step() != p.tokens().length || r.attempt() != p.attempt()) {
            return; // a duplicate or stale result: this position was already handled
        }
        watchdog.answered();
        inFlight.add(ctx.getCurrentKey());
        long now = ctx.timerService().currentProcessingTime();
        int steps = p.steps() + 1;
        switch (r.outcome()) {
            case TOKEN:
                append(
                        new Progress(p.tokens(), 0, steps, p.fails(), p.fallbacks(), false),
                        r.token(),
                        false,
                        r,
                        ctx,
                        out);
                return;
            case FAIL:
                int fails = p.fails() + 1;
                if (gen.onFail() == JobConfig.FailPolicy.FALLBACK) {
                    long seed =
                            this.steps
                                    .step(r.sequenceId(), r.step(), r.attempt(), p.tokens(), now)
                                    .publicSeed();
                    int token =
                            CoreBindings.publicModelToken(
                                    publicModel, seed, this.steps.vocabularySize());
                    append(
                            new Progress(p.tokens(), 0, steps, fails, p.fallbacks() + 1, false),
                            token,
                            true,
                            r,
                            ctx,
                            out);
                } else if (gen.onFail() == JobConfig.FailPolicy.RESAMPLE
                        && r.attempt() - watchdog.reissuesAt(r.step()) + 1 < gen.maxAttempts()) {
                    progress.update(
                            new Progress(
                                    p.tokens(),
                                    r.attempt() + 1,
                                    steps,
                                    fails,
                                    p.fallbacks(),
                                    false));
                    watchdog.arm(ctx.timerService(), r.step(), r.attempt() + 1);
                    out.collect(
                            this.steps.step(
                                    r.sequenceId(), r.step(), r.attempt() + 1, p.tokens(), now));
                } else {
                    finish(
                            new Progress(
                                    p.tokens(), p.attempt(), steps, fails, p.fallbacks(), true),
                            "FAIL_STOP",
                            r,
                            ctx,
                            out);
                }
                return;
            default: // BUDGET_EXHAUSTED: nothing was released; the run is over for this sequence
                finish(
                        new Progress(
                                p.tokens(), p.attempt(), steps, p.fails(), p.fallbacks(), true),
                        "BUDGET_EXHAUSTED",
                        r,
                        ctx,
                        out);
        }
    }

    private void append(
            Progress p,
            int token,
            boolean fallback,
            StepResult r,
            Context ctx,
            Collector<GenerationStep> out)
            throws Exception {
        int[] tokens = Arrays.copyOf(p.tokens(), p.tokens().length + 1);
        tokens[tokens.length - 1] = token;
        Progress q = new Progress(tokens, 0, p.steps(), p.fails(), p.fallbacks(), false);
        // Records runs: the end-of-text token or a stop string in the decoded text ends it too.
        boolean stopped =
                token == text.stopToken(gen.stopToken())
                        || (text.decoded() && text.cut(tokens).stopped());
        if (stopped || tokens.length >= gen.maxSteps()) {
            finish(
                    new Progress(tokens, 0, q.steps(), q.fails(), q.fallbacks(), true),
                    stopped ? "STOP_TOKEN" : "MAX_STEPS",
                    r,
                    ctx,
                    out);
            return;
        }
        progress.update(q);
        watchdog.arm(ctx.timerService(), tokens.length, 0);
        out.collect(
                steps.step(
                        r.sequenceId(),
                        tokens.length,
                        0,
                        tokens,
                        ctx.timerService().currentProcessingTime()));
    }

    private void finish(
            Progress p, String reason, StepResult r, Context ctx, Collector<GenerationStep> out)
            throws Exception {
        progress.update(p);
        watchdog.disarm(ctx.timerService());
        inFlight.remove(ctx.getCurrentKey());
        long now = ctx.timerService().currentProcessingTime();
        SequencePrompts.Prompt prompt = steps.prompts().forSequence(r.sequenceId());
        ctx.output(
                Tags.RECORDS,
                new SyntheticRecord(
                        r.runId(),
                        r.sequenceId(),
                        p.tokens(),
                        text.cut(p.tokens()).text(),
                        p.steps(),
                        p.fails(),
                        p.fallbacks(),
                        reason,
                        System.currentTimeMillis(),
                        prompt.text(),
                        prompt.label()));
        long successor = r.sequenceId() + gen.concurrency();
        if (!reason.equals("BUDGET_EXHAUSTED") && successor < gen.sequences()) {
            out.collect(steps.step(successor, 0, 0, new int[0], now));
        }
        ctx.timerService().registerProcessingTimeTimer(now + retentionMs);
    }

    /** A step of this run seen on the steps topic: the watchdog watches the awaited one. */
    @Override
    public void processElement2(GenerationStep s, Context ctx, Collector<GenerationStep> out)
            throws Exception {
        Progress p = progress.value();
        long now = ctx.timerService().currentProcessingTime();
        if (p == null) {
            // A sequence's first step (issued by the start source or a predecessor); an old one
            // replayed after this sequence's state was cleared must not restart it.
            if (s.step() == 0 && s.attempt() == 0 && s.issuedAtMs() >= now - retentionMs) {
                watchdog.arm(ctx.timerService(), 0, 0);
            }
        } else if (!p.finished() && s.step() == p.tokens().length && s.attempt() == p.attempt()) {
            watchdog.arm(ctx.timerService(), s.step(), s.attempt());
        }
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<GenerationStep> out)
            throws Exception {
        SequenceWatchdog.Watch w = watchdog.due(ts);
        Progress p = progress.value();
        if (w == null) {
            if (p != null && p.finished()) {
                progress.clear(); // retention after the finish is over
            }
            return;
        }
        Progress q = p == null ? Progress.start() : p;
        if (q.finished() || w.step() != q.tokens().length || w.attempt() != q.attempt()) {
            watchdog.disarm(ctx.timerService()); // the sequence moved on
            return;
        }
        String[] k = ctx.getCurrentKey().split("/");
        long seq = Long.parseLong(k[k.length - 1]);
        if (w.consecutive() >= maxReissues) {
            StepResult none =
                    new StepResult(
                            steps.runId(),
                            seq,
                            w.step(),
                            w.attempt(),
                            Outcome.FAIL,
                            -1,
                            "",
                            "",
                            0,
                            Double.NaN,
                            0);
            finish(
                    new Progress(
                            q.tokens(), q.attempt(), q.steps(), q.fails(), q.fallbacks(), true),
                    "NO_QUORUM",
                    none,
                    ctx,
                    out);
            return;
        }
        int next = w.attempt() + 1;
        progress.update(new Progress(q.tokens(), next, q.steps(), q.fails(), q.fallbacks(), false));
        watchdog.reissued(ctx.timerService(), w.step(), next);
        out.collect(steps.step(seq, w.step(), next, q.tokens(), ts));
    }
}
