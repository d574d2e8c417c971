package org.hotpate.core.accounting;

/**
 * The outcome of a per-teacher scheme's step on its noisy count: below the (lower) threshold (⊥),
 * between the thresholds (Scheme A's target: the involved teachers are charged), or above. Scheme B
 * has one threshold: BELOW (⊥) or ABOVE (reported). Only token/⊥ is ever released.
 */
public enum StepOutcome {
    BELOW,
    BETWEEN,
    ABOVE
}
