package org.hotpate.stream.ops;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.io.AvroWire;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.RawRecord;
import org.hotpate.model.Rejected;
import org.hotpate.stream.CoreBindings;
import org.hotpate.stream.StepFactory;

/**
 * Decodes the {@code steps} topic and keeps this run's steps — only those the run itself issues:
 * the ensemble, randomness version and vocabulary size of the run, a position in range, and exactly
 * the public seed the run derives for (run, sequence, position, attempt). Anything else on the
 * topic with this run's id is a step the run did not issue (a forged or corrupted record): it goes
 * to {@link Tags#REJECTED} as INVALID_STEP and never opens, so it can neither change the shared
 * randomness nor reach the reducer with a vocabulary the mechanism was not built for. Undecodable
 * bytes are dead-lettered with their raw value. Stateless.
 */
public final class DecodeSteps extends ProcessFunction<RawRecord, GenerationStep> {
    private static final long serialVersionUID = 1L;

    /** What a step of this run must look like. */
    public record Settings(StepFactory factory, int sequences, int maxSteps, int maxAttempts)
            implements java.io.Serializable {}

    private final Settings settings;
    private transient Counter rejected;

    public DecodeSteps(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext ctx) {
        rejected = getRuntimeContext().getMetricGroup().counter("rejected");
    }

    @Override
    public void processElement(RawRecord r, Context ctx, Collector<GenerationStep> out) {
        GenerationStep s;
        try {
            s = AvroWire.decodeStep(r.value());
        } catch (AvroWire.UndecodableException e) {
            reject(ctx, r, e.reason(), e.getMessage(), null, r.value());
            return;
        }
        if (!settings.factory().runId().equals(s.runId())) {
            return; // another run sharing the topic
        }
        String problem = problem(s);
        if (problem != null) {
            reject(ctx, r, Rejected.INVALID_STEP, s.stepKey() + ": " + problem, s.runId(), null);
            return;
        }
        out.collect(s);
    }

    /** Why {@code s} is not a step this run issued, or null. */
    String problem(GenerationStep s) {
        StepFactory f = settings.factory();
        if (!f.ensembleId().equals(s.ensembleId())) {
            return "ensemble " + s.ensembleId() + " is not the run's ensemble " + f.ensembleId();
        }
        if (s.randomnessVersion() != CoreBindings.RANDOMNESS_VERSION) {
            return "randomness version "
                    + s.randomnessVersion()
                    + " is not the run's "
                    + CoreBindings.RANDOMNESS_VERSION;
        }
        if (s.vocabularySize() != f.vocabularySize()) {
            return "vocabulary size "
                    + s.vocabularySize()
                    + " is not the run's "
                    + f.vocabularySize();
        }
        if (s.sequenceId() < 0 || s.sequenceId() >= settings.sequences()) {
            return "sequence " + s.sequenceId() + " is not in 0.." + (settings.sequences() - 1);
        }
        if (s.step() < 0 || s.step() >= settings.maxSteps()) {
            return "position " + s.step() + " is not in 0.." + (settings.maxSteps() - 1);
        }
        if (s.attempt() < 0 || s.attempt() >= settings.maxAttempts()) {
            return "attempt " + s.attempt() + " is not in 0.." + (settings.maxAttempts() - 1);
        }
        if (s.prefix() == null || s.prefix().length != s.step()) {
            return "prefix length "
                    + (s.prefix() == null ? -1 : s.prefix().length)
                    + " != position";
        }
        for (int t : s.prefix()) {
            if (t < 0 || t >= f.vocabularySize()) {
                return "prefix token " + t + " is outside the vocabulary";
            }
        }
        long expected = f.seed(s.sequenceId(), s.step(), s.attempt());
        if (s.publicSeed() != expected) {
            return "public seed "
                    + Long.toHexString(s.publicSeed())
                    + " is not the one the run derives ("
                    + Long.toHexString(expected)
                    + ")";
        }
        return null;
    }

    private void reject(
            Context ctx, RawRecord r, String reason, String detail, String runId, byte[] value) {
        rejected.inc();
        ctx.output(Tags.REJECTED, Rejected.ofRaw(r, reason, detail, runId, value));
    }
}
