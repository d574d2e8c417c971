package org.hotpate.core.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class DecimalsTest {
    @Test
    void aPrintedLossIsNeverBelowTheDoubleCharged() {
        double eps = 1.23441; // nearest at 4 places goes down
        assertThat(String.format("%.4f", eps)).isEqualTo("1.2344");
        assertThat(Decimals.up(eps, 4)).isEqualTo("1.2345");
        // 0.3 is stored as 0.299999999999999988898; its shortest decimal "0.3" is above it, but
        // 0.1 + 0.2 = 0.30000000000000004441 prints as 0.3000 at 4 places — below the double
        assertThat(String.format("%.4f", 0.1 + 0.2)).isEqualTo("0.3000");
        assertThat(Decimals.up(0.1 + 0.2, 4)).isEqualTo("0.3001");
        assertThat(Decimals.up(2.0, 4)).isEqualTo("2.0000");
        assertThat(Decimals.up(0, 4)).isEqualTo("0.0000");
        assertThat(Decimals.up(Double.POSITIVE_INFINITY, 4)).isEqualTo("inf");
        assertThat(Decimals.up(Double.NaN, 4)).isEqualTo("none");
        java.util.SplittableRandom r = new java.util.SplittableRandom(23);
        for (int i = 0; i < 10_000; i++) {
            double x = r.nextDouble() * Math.pow(10, r.nextInt(-6, 4));
            int places = r.nextInt(0, 8);
            assertThat(new BigDecimal(Decimals.up(x, places)))
                    .isGreaterThanOrEqualTo(new BigDecimal(x));
        }
    }
}
