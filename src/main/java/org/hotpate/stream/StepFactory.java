package org.hotpate.stream;

import java.io.Serializable;
import org.hotpate.model.GenerationStep;

/**
 * Issues generation steps for one run: public seed derived from the run seed and the run id ({@link
 * CoreBindings#stepSeed}), version, deadline, and the sequence's public prompt and label ({@link
 * SequencePrompts}).
 */
public record StepFactory(
        String runId,
        String ensembleId,
        long runSeed,
        int vocabularySize,
        long stepDeadlineMs,
        SequencePrompts prompts)
        implements Serializable {

    public StepFactory(
            String runId,
            String ensembleId,
            long runSeed,
            int vocabularySize,
            long stepDeadlineMs) {
        this(runId, ensembleId, runSeed, vocabularySize, stepDeadlineMs, SequencePrompts.NONE);
    }

    public static StepFactory of(JobConfig cfg, String runId) {
        return new StepFactory(
                runId,
                cfg.ensemble().id(),
                cfg.sampler().seed(),
                cfg.ensemble().effectiveVocabulary(),
                cfg.generation().stepDeadlineMs(),
                SequencePrompts.of(cfg));
    }

    /** The public seed this run derives for a step (steps with another seed are not its own). */
    public long seed(long sequenceId, int step, int attempt) {
        return CoreBindings.stepSeed(runSeed, runId, sequenceId, step, attempt);
    }

    public GenerationStep step(long sequenceId, int step, int attempt, int[] prefix, long nowMs) {
        return new GenerationStep(
                runId,
                ensembleId,
                sequenceId,
                step,
                attempt,
                prefix,
                seed(sequenceId, step, attempt),
                CoreBindings.RANDOMNESS_VERSION,
                vocabularySize,
                nowMs,
                nowMs + stepDeadlineMs,
                prompts.forSequence(sequenceId).tokens(),
                prompts.forSequence(sequenceId).label());
    }
}
