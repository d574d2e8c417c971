package org.hotpate.core.generation;

/**
 * What a ⊥ (the mechanism found no sufficiently agreed token) does to a sequence — the same policy
 * for the in-process {@link GenerationLoop} and the streaming job's sequence loop ({@code
 * generation.on-fail}).
 */
public enum FailPolicy {
    /** Retry the position with the next attempt: a new public seed and a new, charged query. */
    RESAMPLE,
    /**
     * Append the public model's token drawn with public randomness (no private data, no charge).
     */
    FALLBACK,
    /** End the sequence. */
    STOP
}
