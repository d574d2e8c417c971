package org.hotpate.core.util;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Printing privacy losses with few decimal places. A printed ε (or RDP value, σ² charge) must never
 * be below the double actually charged, so it is rounded <b>up</b> (toward +∞) from the double's
 * exact binary value — {@code String.format("%.4f", x)} rounds half-up and can print less than
 * {@code x} (0.12344 → "0.1234"). Machine-readable outputs (JSON, Avro) write the double itself
 * ({@link Double#toString}: the shortest decimal that reads back as the same double), so a value
 * re-read from them and summed is exactly what was charged.
 */
public final class Decimals {
    private Decimals() {}

    /**
     * {@code x} rounded up to {@code places} decimal places, in plain notation; {@code "inf"} for
     * +∞, {@code "none"} for NaN.
     */
    public static String up(double x, int places) {
        if (Double.isNaN(x)) {
            return "none";
        }
        if (Double.isInfinite(x)) {
            return x > 0 ? "inf" : "-inf";
        }
        return new BigDecimal(x).setScale(places, RoundingMode.CEILING).toPlainString();
    }
}
