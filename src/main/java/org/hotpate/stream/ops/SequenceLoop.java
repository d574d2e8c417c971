package org.hotpate.stream.ops;

import java.util.Arrays;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.stream.CoreBindings;
import org.hotpate.stream.JobConfig;
import org.hotpate.stream.StepFactory;
import org.hotpate.stream.TokenText;

/**
 * The sequence loop (DESIGN.md topology step 4), keyed by run/sequence: appends released tokens,
 * applies the ⊥ policy (resample with a new seed, public-model fallback, or stop), and emits the
 * next step — which goes to the {@code steps} topic, closing the loop through Kafka. A finished
 * sequence leaves as a {@link SyntheticRecord} on {@link Tags#RECORDS} and starts sequence {@code
 * id + concurrency} (unless the budget is exhausted).
 *
 * <p>State {@code sequence}: the progress of this sequence; results for other positions than the
 * expected one (duplicates) are ignored. Cleared by a timer {@code retention} after the sequence
 * finished (the finished flag guards against late duplicates until then).
 */
public final class SequenceLoop extends KeyedProcessFunction<String, StepResult, GenerationStep> {
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
    private transient ValueState<Progress> progress;
    private transient SparseProbabilities publicModel;
    private transient JobMetrics.LiveKeys inFlight;

    public SequenceLoop(
            JobConfig.Generation gen,
            JobConfig.Ensemble ensemble,
            StepFactory steps,
            long retentionMs) {
        this.gen = gen;
        this.ensemble = ensemble;
        this.steps = steps;
        this.retentionMs = retentionMs;
    }

    @Override
    public void open(OpenContext ctx) {
        progress =
                getRuntimeContext()
                        .getState(
                                new ValueStateDescriptor<>("sequence", Types.POJO(Progress.class)));
        publicModel = ensemble.simulated().publicModel();
        inFlight = JobMetrics.sequencesInFlight(getRuntimeContext());
    }

    @Override
    public void processElement(StepResult r, Context ctx, Collector<GenerationStep> out)
            throws Exception {
        Progress p = progress.value() == null ? Progress.start() : progress.value();
        if (p.finished() || r.step() != p.tokens().length || r.attempt() != p.attempt()) {
            return; // a duplicate or stale result: this position was already handled
        }
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
                        && r.attempt() + 1 < gen.maxAttempts()) {
                    progress.update(
                            new Progress(
                                    p.tokens(),
                                    r.attempt() + 1,
                                    steps,
                                    fails,
                                    p.fallbacks(),
                                    false));
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
        if (token == gen.stopToken() || tokens.length >= gen.maxSteps()) {
            finish(
                    new Progress(tokens, 0, q.steps(), q.fails(), q.fallbacks(), true),
                    token == gen.stopToken() ? "STOP_TOKEN" : "MAX_STEPS",
                    r,
                    ctx,
                    out);
            return;
        }
        progress.update(q);
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
        inFlight.remove(ctx.getCurrentKey());
        long now = ctx.timerService().currentProcessingTime();
        ctx.output(
                Tags.RECORDS,
                new SyntheticRecord(
                        r.runId(),
                        r.sequenceId(),
                        p.tokens(),
                        TokenText.render(p.tokens()),
                        p.steps(),
                        p.fails(),
                        p.fallbacks(),
                        reason,
                        System.currentTimeMillis()));
        long successor = r.sequenceId() + gen.concurrency();
        if (!reason.equals("BUDGET_EXHAUSTED") && successor < gen.sequences()) {
            out.collect(steps.step(successor, 0, 0, new int[0], now));
        }
        ctx.timerService().registerProcessingTimeTimer(now + retentionMs);
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<GenerationStep> out) {
        progress.clear();
    }
}
