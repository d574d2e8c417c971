package org.hotpate.model;

import org.hotpate.core.generation.FinishReason;

/**
 * A finished synthetic sequence (schemas/synthetic_record.avsc). {@code text} excludes the public
 * {@code prompt}; {@code label} is {@code ""} when the sequence has none.
 */
public record SyntheticRecord(
        String runId,
        long sequenceId,
        int[] tokens,
        String text,
        int steps,
        int fails,
        int fallbacks,
        FinishReason finishReason,
        long finishedAtMs,
        String prompt,
        String label) {

    /** A record without prompt or label (simulated ensembles). */
    public SyntheticRecord(
            String runId,
            long sequenceId,
            int[] tokens,
            String text,
            int steps,
            int fails,
            int fallbacks,
            FinishReason finishReason,
            long finishedAtMs) {
        this(
                runId,
                sequenceId,
                tokens,
                text,
                steps,
                fails,
                fallbacks,
                finishReason,
                finishedAtMs,
                "",
                "");
    }
}
