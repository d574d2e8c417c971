package org.hotpate.stream.ops;

import java.io.Serializable;
import org.hotpate.model.GenerationStep;
import org.hotpate.protocol.RunShape;

/**
 * Issues generation steps for one run: the run's shape (public seed, version, vocabulary, deadline;
 * {@link RunShape#issue}) with each sequence's public prompt and label ({@link SequencePrompts}).
 */
public record StepFactory(RunShape shape, SequencePrompts prompts) implements Serializable {

    public String runId() {
        return shape.runId();
    }

    public GenerationStep step(long sequenceId, int step, int attempt, int[] prefix, long nowMs) {
        SequencePrompts.Prompt p = prompts.forSequence(sequenceId);
        return shape.issue(sequenceId, step, attempt, prefix, p.tokens(), p.label(), nowMs);
    }
}
