package org.hotpate.core.noise;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNonNegative;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * A non-negative rational {@code numerator/denominator} in lowest terms: the parameter type of the
 * exact samplers (PRIVACY.md §6.1 — "all inputs rational").
 *
 * <p><b>From a double</b> ({@link #fromDouble}, {@link #squareOf}): the value is taken as the
 * shortest decimal that prints as that double ({@link BigDecimal#valueOf(double)}, e.g. {@code 0.3}
 * → 3/10) <b>if that decimal is not below the double's exact binary value</b>; otherwise (e.g.
 * {@code 0.1}, whose double is 0.1000000000000000055…) it is the exact binary value. If the result
 * has more than {@value #MAX_DECIMALS} decimal places it is <b>rounded up</b> to {@value
 * #MAX_DECIMALS} places. The result is therefore never below the double: the accountant charges for
 * the double, so a noise scale or variance from this rule adds at least the noise charged for
 * (issue 23 item 10 — the shortest decimal alone can lie ~1e-17 below it). Integers, dyadic
 * decimals (6.25) and short decimals above their double are converted exactly.
 *
 * <p>{@link #atMost} is the opposite direction, for parameters where less is the conservative side
 * (an ε whose noise scale is 1/ε).
 */
public record Rational(long numerator, long denominator) implements Serializable {
    /** Decimal places kept when converting from a double (more are rounded up). */
    public static final int MAX_DECIMALS = 6;

    /** Significant digits kept by {@link #atMost} when it must round down. */
    public static final int FLOOR_DIGITS = 12;

    // 10^18 is the largest power of ten in a long.
    private static final int MAX_SCALE = 18;

    public Rational {
        checkArgument(numerator >= 0, "numerator must be >= 0; got " + numerator);
        checkPositive("denominator", denominator);
        long g = gcd(numerator, denominator);
        if (g > 1) {
            numerator /= g;
            denominator /= g;
        }
    }

    /** {@code num/den}, reduced. */
    public static Rational of(long num, long den) {
        return new Rational(num, den);
    }

    /** The rational for a finite double {@code x >= 0} (see class Javadoc for the rule). */
    public static Rational fromDouble(double x) {
        checkNonNegative("value", x);
        return fromDecimal(notBelow(x), x);
    }

    /**
     * A rational never above the finite double {@code x >= 0}: its shortest decimal if that is not
     * above the double's exact binary value (0.1 → 1/10), otherwise the exact binary value rounded
     * <b>down</b> to {@value #FLOOR_DIGITS} significant digits (and at most 18 decimal places): 0.3
     * → 0.299999999999, a relative change below 10^−11. For a parameter whose conservative
     * direction is down, e.g. an ε turned into the noise scale 1/ε.
     */
    public static Rational atMost(double x) {
        checkNonNegative("value", x);
        BigDecimal shortest = BigDecimal.valueOf(x);
        BigDecimal exact = new BigDecimal(x);
        BigDecimal d = shortest;
        if (shortest.compareTo(exact) > 0 || shortest.scale() > MAX_SCALE) {
            d = exact.round(new MathContext(FLOOR_DIGITS, RoundingMode.FLOOR));
            if (d.scale() > MAX_SCALE) {
                d = d.setScale(MAX_SCALE, RoundingMode.FLOOR);
            }
        }
        return fromDecimal(d, x, MAX_SCALE);
    }

    /**
     * The shortest decimal of {@code x} if it is not below x's exact binary value, else the latter.
     */
    private static BigDecimal notBelow(double x) {
        BigDecimal shortest = BigDecimal.valueOf(x);
        BigDecimal exact = new BigDecimal(x);
        return shortest.compareTo(exact) >= 0 ? shortest : exact;
    }

    /**
     * The rational for {@code sigma²}, with the square taken exactly on the decimal of {@code
     * sigma} chosen by the class rule (never below the double) before the rounding-up rule: σ = 2.3
     * (whose shortest decimal is above its double) gives σ² = 5.29 exactly; σ = 6.23 (decimal below
     * the double) gives the exact square of the double rounded up, 38.812901.
     */
    public static Rational squareOf(double sigma) {
        return squareOf(sigma, MAX_DECIMALS);
    }

    /** As {@link #squareOf(double)}, rounding up to {@code decimals} (0..6) decimal places. */
    public static Rational squareOf(double sigma, int decimals) {
        checkNonNegative("sigma", sigma);
        checkArgument(decimals >= 0 && decimals <= MAX_DECIMALS, "decimals must be in [0, 6]");
        BigDecimal s = notBelow(sigma);
        return fromDecimal(s.multiply(s), sigma * sigma, decimals);
    }

    private static Rational fromDecimal(BigDecimal d, double original) {
        return fromDecimal(d, original, MAX_DECIMALS);
    }

    private static Rational fromDecimal(BigDecimal d, double original, int decimals) {
        BigDecimal r = d.scale() > decimals ? d.setScale(decimals, RoundingMode.CEILING) : d;
        r = r.stripTrailingZeros();
        BigInteger num;
        BigInteger den;
        if (r.scale() <= 0) {
            num = r.toBigIntegerExact();
            den = BigInteger.ONE;
        } else {
            num = r.unscaledValue();
            den = BigInteger.TEN.pow(r.scale());
        }
        checkArgument(
                num.bitLength() < 63, "value too large for an exact rational; got " + original);
        return new Rational(num.longValueExact(), den.longValueExact());
    }

    /** ⌊numerator/denominator⌋. */
    public long floor() {
        return numerator / denominator;
    }

    /** ⌊√(this)⌋, exactly (integer square root of the floor). */
    public long floorSqrt() {
        return isqrt(floor());
    }

    public boolean isZero() {
        return numerator == 0;
    }

    public double doubleValue() {
        return (double) numerator / denominator;
    }

    @Override
    public String toString() {
        return denominator == 1 ? Long.toString(numerator) : numerator + "/" + denominator;
    }

    static long isqrt(long v) {
        long r = (long) Math.sqrt((double) v);
        while (r * r > v) {
            r--;
        }
        while (r + 1 <= 3037000499L && (r + 1) * (r + 1) <= v) {
            r++;
        }
        return r;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
