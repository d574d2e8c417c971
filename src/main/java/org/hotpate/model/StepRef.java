package org.hotpate.model;

/**
 * What names one step of a run: run id, sequence, position and attempt. Every record that belongs
 * to a step implements it (its record components already have these names); {@code protocol.StepId}
 * is the step's identity as a value, with the one key format and parser.
 */
public interface StepRef {
    String runId();

    long sequenceId();

    int step();

    int attempt();
}
