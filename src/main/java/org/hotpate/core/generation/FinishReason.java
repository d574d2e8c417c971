package org.hotpate.core.generation;

/**
 * Why a sequence ended — the same reasons for the in-process {@link GenerationLoop} and the
 * streaming job (written by name in {@code records.jsonl}, the {@code records} topic and the
 * summary's {@code finishReasons}).
 */
public enum FinishReason {
    /** The stop token was released (records runs: or a stop string appeared in the text). */
    STOP_TOKEN,
    /** The sequence reached its maximum number of tokens. */
    MAX_STEPS,
    /** A ⊥ ended it: policy stop, or resample with every attempt used. */
    FAIL_STOP,
    /** The budget refused the next release; no later sequence starts. */
    BUDGET_EXHAUSTED,
    /**
     * The streaming job re-issued the position {@code generation.max-reissues} times in a row
     * without any result (steps abandoned below the quorum, or lost).
     */
    NO_QUORUM,
    /**
     * The streaming job never started the sequence: an earlier sequence of its chain ({@code id -
     * k·concurrency}) finished on the budget, so it ends empty, with nothing issued, released or
     * charged (every requested sequence ends in exactly one record). The in-process loop has no
     * chains: there a sequence after the budget ran out is BUDGET_EXHAUSTED.
     */
    NOT_STARTED
}
