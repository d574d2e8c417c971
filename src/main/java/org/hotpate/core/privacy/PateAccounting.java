package org.hotpate.core.privacy;

/** How an accountant charges the PATE events (Gnmax, Lnmax, ConfidentGnmax). */
public enum PateAccounting {
    /** Data-independent RDP (λ/σ², λ/(2σ1²), min{ε, λε²/2}): safe to publish and to stop on. */
    DATA_INDEPENDENT,
    /**
     * Data-dependent RDP from the event's count profile (PATE 2018 Thm 6). The resulting ε is a
     * function of the data: it must not be published or used as a stop rule unless sanitised
     * (smooth sensitivity, {@link SmoothSensitivity}). Opt-in only.
     */
    DATA_DEPENDENT
}
