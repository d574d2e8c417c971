package org.hotpate.core.noise;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;

/**
 * The discrete Laplace distribution with scale t: Pr[X = x] = tanh(1/(2t)) · e^{−|x|/t} = (e^{1/t}
 * − 1)/(e^{1/t} + 1) · e^{−|x|/t}, x ∈ ℤ.
 *
 * <p>Sampled exactly (PRIVACY.md §6.1 step 7, Canonne–Kamath–Steinke 2020): a fair sign and a
 * geometric magnitude of success probability 1 − e^{−1/t}, rejecting "negative zero". No floating
 * point is used; t is a {@link Rational}.
 *
 * <p>Privacy: added to an integer query of L1 sensitivity Δ it gives pure (Δ/t)-DP (PRIVACY.md
 * §6.3, [DERIVED]); a replace-one vote histogram has Δ = 2.
 */
public final class DiscreteLaplace implements IntegerNoise, Serializable {
    private static final long serialVersionUID = 1L;

    private final Rational scale;

    private DiscreteLaplace(Rational scale) {
        this.scale = checkNotNull("scale", scale);
        checkArgument(!scale.isZero(), "scale must be > 0; got 0");
    }

    /** Discrete Laplace with the exact rational scale t. */
    public static DiscreteLaplace withScale(Rational scale) {
        return new DiscreteLaplace(scale);
    }

    /**
     * Discrete Laplace with scale {@code t}, converted by {@link Rational#fromDouble}: never below
     * the double (exact for integers and for decimals of ≤ 6 places not below their double;
     * otherwise rounded UP, i.e. slightly more noise).
     */
    public static DiscreteLaplace withScale(double scale) {
        checkPositive("scale", scale);
        return new DiscreteLaplace(Rational.fromDouble(scale));
    }

    /** The exact scale used by the sampler. */
    public Rational scale() {
        return scale;
    }

    @Override
    public long sample(UniformSource random) {
        // Geometric-fast with x = 1/t = den/num.
        long s = scale.denominator();
        long t = scale.numerator();
        while (true) {
            boolean negative = random.nextLong(2) == 1;
            long magnitude = ExactSampling.geometricFast(s, t, random);
            if (negative && magnitude == 0) {
                continue; // −0 would double the mass at 0
            }
            return negative ? -magnitude : magnitude;
        }
    }

    /**
     * The exact pmf in floating point (a helper for tests and analysis; the sampler does not use
     * it): tanh(1/(2t)) · e^{−|x|/t}.
     */
    public static double pmf(double scale, long x) {
        checkPositive("scale", scale);
        return Math.tanh(1 / (2 * scale)) * Math.exp(-Math.abs((double) x) / scale);
    }

    @Override
    public String toString() {
        return "DiscreteLaplace(t=" + scale + ")";
    }
}
