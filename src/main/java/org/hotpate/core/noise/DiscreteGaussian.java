package org.hotpate.core.noise;

import static org.hotpate.core.util.Preconditions.checkNonNegative;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import java.math.BigInteger;

/**
 * The discrete Gaussian N_ℤ(0, σ²): Pr[X = x] = e^{−x²/(2σ²)} / Z, x ∈ ℤ, with Z = Σ_y
 * e^{−y²/(2σ²)}. The parameter is the variance parameter σ² (not σ), a {@link Rational}.
 *
 * <p>Sampled exactly by inversion of the magnitude's cumulative distribution against a table of its
 * first 64 bits, refined bit by bit in the rare draws the table cannot decide ({@link
 * GaussianInversionTable}; about ten times faster at σ = 40). For σ² whose table would be too large
 * (σ ≳ 7 000), and as the reference the table is tested against, by rejection ({@link
 * #sampleByRejection}; PRIVACY.md §6.1 step 8, Canonne–Kamath–Steinke 2020): with t = ⌊σ⌋ + 1, draw
 * Y from the discrete Laplace with scale t and accept it with probability exp(−(|Y| −
 * σ²/t)²/(2σ²)). Writing σ² = a/b, the exponent is the rational (|Y|·b·t − a)² / (2·a·b·t²),
 * computed in {@code long} when it fits and in {@link BigInteger} otherwise.
 *
 * <p>Privacy: added to an integer query of L2 sensitivity Δ it gives ρ = Δ²/(2σ²) zCDP, i.e. rdp(α)
 * = αΔ²/(2σ²), the same as the continuous Gaussian (PRIVACY.md §6.3).
 */
public final class DiscreteGaussian implements IntegerNoise, Serializable {
    private static final long serialVersionUID = 1L;
    private static final long SQRT_MAX = 3037000499L; // ⌊√Long.MAX_VALUE⌋

    private final Rational sigmaSquared;
    private final long t;
    private final DiscreteLaplace proposal;
    // Acceptance exponent (|Y|·bt − a)² / den, with den = 2·a·b·t²; longDen < 0 → BigInteger only.
    private final long a;
    private final long bt;
    private final long longDen;
    private final long maxLongY;
    // The shared inversion table, looked up on first use (null: not yet, or none for this σ²).
    private transient volatile GaussianInversionTable table;
    private transient volatile boolean rejectionOnly;

    private DiscreteGaussian(Rational sigmaSquared) {
        this.sigmaSquared = checkNotNull("sigmaSquared", sigmaSquared);
        this.t = sigmaSquared.floorSqrt() + 1;
        this.proposal = DiscreteLaplace.withScale(Rational.of(t, 1));
        this.a = sigmaSquared.numerator();
        long b = sigmaSquared.denominator();
        long btTmp;
        long denTmp;
        try {
            btTmp = Math.multiplyExact(b, t);
            denTmp = Math.multiplyExact(Math.multiplyExact(2 * a, btTmp), t);
        } catch (ArithmeticException e) {
            btTmp = -1;
            denTmp = -1;
        }
        this.bt = btTmp;
        this.longDen = denTmp;
        // |Y|·bt − a stays within ±SQRT_MAX (so its square fits) while |Y| <= maxLongY.
        this.maxLongY = bt > 0 ? (SQRT_MAX + a) / bt : -1;
    }

    /** N_ℤ(0, σ²) with the exact rational σ². σ² = 0 gives the constant 0. */
    public static DiscreteGaussian withVariance(Rational sigmaSquared) {
        return new DiscreteGaussian(sigmaSquared);
    }

    /**
     * N_ℤ(0, σ²) from σ as a double. σ² is the square of σ's shortest decimal, or of the double's
     * exact value when that decimal is below it ({@link Rational#squareOf}: never below the double
     * the accountant charges for), kept exactly when it has few enough decimal places (σ = 40 →
     * 1600, σ = 2.3 → 5.29) and otherwise <b>rounded up</b> (slightly more noise than requested,
     * never less) to the most decimal places d ≤ 6 for which the acceptance test stays in {@code
     * long} arithmetic for every proposal |Y| ≤ 12t (beyond that — probability ≈ e^{−12} per
     * proposal — the exact BigInteger path is used). Rounding adds less than 10^−d to σ² (d = 6 for
     * σ up to ~15, d = 2 at σ ≈ 1000; σ = 6.23 → 38.812901); accounting uses the requested σ, which
     * is conservative.
     */
    public static DiscreteGaussian withSigma(double sigma) {
        checkPositive("sigma", sigma);
        for (int d = Rational.MAX_DECIMALS; d > 0; d--) {
            DiscreteGaussian g = new DiscreteGaussian(Rational.squareOf(sigma, d));
            if (g.longDen > 0 && g.maxLongY >= 12 * g.t) {
                return g;
            }
        }
        return new DiscreteGaussian(Rational.squareOf(sigma, 0));
    }

    /** The exact σ² used by the sampler. */
    public Rational sigmaSquared() {
        return sigmaSquared;
    }

    @Override
    public long sample(UniformSource random) {
        if (sigmaSquared.isZero()) {
            return 0;
        }
        GaussianInversionTable t = table;
        if (t == null && !rejectionOnly) {
            t = GaussianInversionTable.forVariance(sigmaSquared);
            if (t == null) {
                rejectionOnly = true;
            }
            table = t;
        }
        return t != null ? t.sample(random) : sampleByRejection(random);
    }

    /** The Canonne–Kamath–Steinke rejection sampler (the fallback, and the tests' reference). */
    long sampleByRejection(UniformSource random) {
        if (sigmaSquared.isZero()) {
            return 0;
        }
        while (true) {
            long y = proposal.sample(random);
            long absY = Math.abs(y);
            boolean accept;
            if (longDen > 0 && absY <= maxLongY) {
                long d = absY * bt - a;
                accept = ExactSampling.bernoulliExpMinus(d * d, longDen, random);
            } else {
                accept = acceptBig(absY, random);
            }
            if (accept) {
                return y;
            }
        }
    }

    private boolean acceptBig(long absY, UniformSource random) {
        BigInteger bigA = BigInteger.valueOf(a);
        BigInteger bigBt =
                BigInteger.valueOf(sigmaSquared.denominator()).multiply(BigInteger.valueOf(t));
        BigInteger d = BigInteger.valueOf(absY).multiply(bigBt).subtract(bigA);
        BigInteger den = bigA.shiftLeft(1).multiply(bigBt).multiply(BigInteger.valueOf(t));
        return ExactSampling.bernoulliExpMinus(d.multiply(d), den, random);
    }

    /** The normalising constant Z = Σ_{y∈ℤ} e^{−y²/(2σ²)} in floating point (helper). */
    public static double normalizingConstant(double sigmaSquared) {
        checkPositive("sigmaSquared", sigmaSquared);
        long bound = (long) Math.ceil(40 * Math.sqrt(sigmaSquared)) + 1; // e^{−800}: negligible
        double z = 1;
        for (long y = bound; y >= 1; y--) { // small terms first
            z += 2 * Math.exp(-(double) y * y / (2 * sigmaSquared));
        }
        return z;
    }

    /**
     * The exact pmf in floating point (a helper for tests and analysis; the sampler does not use
     * it): e^{−x²/(2σ²)} / Z.
     */
    public static double pmf(double sigmaSquared, long x) {
        checkNonNegative("sigmaSquared", sigmaSquared);
        if (sigmaSquared == 0) {
            return x == 0 ? 1 : 0;
        }
        return Math.exp(-(double) x * x / (2 * sigmaSquared)) / normalizingConstant(sigmaSquared);
    }

    @Override
    public String toString() {
        return "DiscreteGaussian(sigma²=" + sigmaSquared + ")";
    }
}
