package org.hotpate.stream;

import java.io.Serializable;
import org.hotpate.model.GenerationStep;

/**
 * Issues generation steps for one run: public seed derived from the run seed and the run id ({@link
 * CoreBindings#stepSeed}), version, deadline.
 */
public record StepFactory(
        String runId, String ensembleId, long runSeed, int vocabularySize, long stepDeadlineMs)
        implements Serializable {

    public static StepFactory of(JobConfig cfg, String runId) {
        return new StepFactory(
                runId,
                cfg.ensemble().id(),
                cfg.sampler().seed(),
                cfg.ensemble().effectiveVocabulary(),
                cfg.generation().stepDeadlineMs());
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
                nowMs + stepDeadlineMs);
    }
}
