package org.hotpate.core.privacy;

import static org.assertj.core.api.Assertions.assertThat;

/** Relative-tolerance assertions for the PRIVACY.md vectors (rtol 1e-6 unless stated). */
public final class Close {
    private Close() {}

    public static void rel(double actual, double expected, double rtol) {
        if (expected == 0 || Double.isInfinite(expected)) {
            assertThat(actual).isEqualTo(expected);
            return;
        }
        assertThat(Math.abs(actual - expected) / Math.abs(expected))
                .as("actual %s vs expected %s", actual, expected)
                .isLessThanOrEqualTo(rtol);
    }

    public static void rel(double actual, double expected) {
        rel(actual, expected, 1e-6);
    }

    public static void rel(double[] actual, double[] expected, double rtol) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.length; i++) {
            final int idx = i;
            try {
                rel(actual[i], expected[i], rtol);
            } catch (AssertionError e) {
                throw new AssertionError("index " + idx + ": " + e.getMessage(), e);
            }
        }
    }

    public static void rel(double[] actual, double[] expected) {
        rel(actual, expected, 1e-6);
    }
}
