package org.hotpate.model;

/**
 * The charged, released answer of one step (schemas/step_result.avsc) — a public output, so it
 * holds only released or public values: the outcome and token (or ⊥), the mechanism, the public
 * part of its privacy event, the run's ε after it, the noisy count only where the mechanism itself
 * releases one (NaN otherwise), and n. Votes cast, close times and charged teachers are
 * data-dependent or liveness signals: they go to the operator-only ledger (DESIGN.md invariant 8).
 * {@code token} is -1 unless {@code outcome == TOKEN}.
 */
public record StepResult(
        String runId,
        long sequenceId,
        int step,
        int attempt,
        Outcome outcome,
        int token,
        String mechanism,
        String privacyEvent,
        double epsilonSpent,
        double noisyCount,
        int teachers)
        implements StepRef {}
