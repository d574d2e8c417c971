package org.hotpate.core.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RationalTest {
    @Test
    void fromDouble_integerIsExact() {
        assertThat(Rational.fromDouble(1600)).isEqualTo(Rational.of(1600, 1));
    }

    @Test
    void fromDouble_shortDecimalIsExactWhenNotBelowTheDouble() {
        assertThat(Rational.fromDouble(0.3)).isEqualTo(Rational.of(3, 10)); // 0.3 > double 0.3
        assertThat(Rational.fromDouble(0.5)).isEqualTo(Rational.of(1, 2));
        // 0.1 < double 0.1 = 0.1000000000000000055…: the double itself, rounded up
        assertThat(Rational.fromDouble(0.1)).isEqualTo(Rational.of(100001, 1000000));
    }

    @Test
    void fromDouble_longDecimalIsRoundedUp() {
        assertThat(Rational.fromDouble(1.0000001)).isEqualTo(Rational.of(1000001, 1000000));
        assertThat(Rational.fromDouble(1.0 / 3)).isEqualTo(Rational.of(333334, 1000000));
    }

    @Test
    void squareOf_squaresTheDecimalExactlyWhenNotBelowTheDouble() {
        assertThat(Rational.squareOf(2.3)).isEqualTo(Rational.of(529, 100));
        assertThat(Rational.squareOf(6.25)).isEqualTo(Rational.of(390625, 10000));
        // 6.23 < double 6.23: the double's exact square 38.8129000000000053…, rounded up
        assertThat(Rational.squareOf(6.23)).isEqualTo(Rational.of(38812901, 1000000));
        assertThat(Rational.squareOf(40)).isEqualTo(Rational.of(1600, 1));
    }

    @Test
    void of_reduces() {
        Rational r = Rational.of(6, 4);
        assertThat(r.numerator()).isEqualTo(3);
        assertThat(r.denominator()).isEqualTo(2);
        assertThat(r.floor()).isEqualTo(1);
    }

    @Test
    void floorSqrt_isExact() {
        assertThat(Rational.of(1600, 1).floorSqrt()).isEqualTo(40);
        assertThat(Rational.of(1599, 1).floorSqrt()).isEqualTo(39);
        assertThat(Rational.of(1, 2).floorSqrt()).isZero();
        assertThat(Rational.of(Long.MAX_VALUE, 1).floorSqrt()).isEqualTo(3037000499L);
    }

    @Test
    void fromDouble_NaN_throws() {
        assertThatThrownBy(() -> Rational.fromDouble(Double.NaN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NaN");
    }

    @Test
    void fromDouble_negative_throws() {
        assertThatThrownBy(() -> Rational.fromDouble(-1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fromDouble_tooLarge_throws() {
        assertThatThrownBy(() -> Rational.fromDouble(1e19))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void of_zeroDenominator_throws() {
        assertThatThrownBy(() -> Rational.of(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withSigma_roundsSigmaSquaredUpOnlyAsFarAsLongArithmeticNeeds() {
        assertThat(DiscreteGaussian.withSigma(2.3).sigmaSquared()).isEqualTo(Rational.of(529, 100));
        assertThat(DiscreteGaussian.withSigma(6.23).sigmaSquared())
                .isEqualTo(Rational.of(38812901, 1000000));
        assertThat(DiscreteGaussian.withSigma(40).sigmaSquared()).isEqualTo(Rational.of(1600, 1));
        // 1000.123457² = 1000246.921…: 6 decimals would overflow the fast path; 2 decimals, rounded
        // up.
        Rational big = DiscreteGaussian.withSigma(1000.123457).sigmaSquared();
        double exact = new java.math.BigDecimal("1000.123457").pow(2).doubleValue();
        assertThat(big.doubleValue()).isGreaterThanOrEqualTo(exact).isLessThan(exact + 0.01);
    }

    /** The exact value of a rational, as a BigDecimal comparison helper: sign of r − x. */
    static int compareExact(Rational r, java.math.BigDecimal x) {
        return java.math.BigDecimal.valueOf(r.numerator())
                .compareTo(x.multiply(java.math.BigDecimal.valueOf(r.denominator())));
    }

    // σ, scales and ε as doubles whose shortest decimal lies above, below and on the binary value.
    private static final double[] VALUES = {
        0.1, 0.3, 0.7, 2.3, 6.2, 6.23, 6.25, 40, 1e-6, 1.0 / 3, 12.34, 1000.123457
    };

    @Test
    void noiseParametersAreNeverBelowTheDoubleTheAccountantCharges() {
        for (double x : VALUES) {
            java.math.BigDecimal exact = new java.math.BigDecimal(x);
            assertThat(compareExact(Rational.fromDouble(x), exact))
                    .as("fromDouble(%s)", x)
                    .isNotNegative();
            assertThat(compareExact(DiscreteLaplace.withScale(x).scale(), exact))
                    .as("Laplace scale %s", x)
                    .isNotNegative();
            java.math.BigDecimal square = exact.multiply(exact);
            assertThat(compareExact(Rational.squareOf(x), square))
                    .as("squareOf(%s)", x)
                    .isNotNegative();
            assertThat(compareExact(DiscreteGaussian.withSigma(x).sigmaSquared(), square))
                    .as("withSigma(%s)", x)
                    .isNotNegative();
        }
    }

    @Test
    void atMost_isNeverAboveTheDoubleAndKeepsShortDecimalsWhenTheyAreBelow() {
        for (double x : VALUES) {
            Rational r = Rational.atMost(x);
            assertThat(compareExact(r, new java.math.BigDecimal(x)))
                    .as("atMost(%s)", x)
                    .isNotPositive();
            assertThat(r.doubleValue())
                    .isCloseTo(x, org.assertj.core.data.Offset.offset(1e-11 * x));
        }
        assertThat(Rational.atMost(0.1)).isEqualTo(Rational.of(1, 10)); // 0.1 < the double 0.1
        assertThat(Rational.atMost(40)).isEqualTo(Rational.of(40, 1));
    }
}
