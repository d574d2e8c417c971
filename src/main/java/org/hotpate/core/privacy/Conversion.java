package org.hotpate.core.privacy;

/** RDP → (ε, δ) conversion (PRIVACY.md §7.3). */
public enum Conversion {
    /**
     * Canonne–Kamath–Steinke 2020 Prop. 12 / Asoodeh et al. 2020 (dp_accounting {@code
     * compute_epsilon}): ε = rdp + ln(1 − 1/α) − ln(δα)/(α−1), with the KL/Pinsker shortcut. The
     * default: never larger than {@link #CLASSIC} by more than rounding, usually smaller.
     */
    IMPROVED,
    /** Mironov 2017 Prop. 3 (pate_2018 {@code compute_eps_from_delta}): ε = rdp + ln(1/δ)/(α−1). */
    CLASSIC
}
