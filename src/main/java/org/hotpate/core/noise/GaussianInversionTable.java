package org.hotpate.core.noise;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An exact inversion sampler for the discrete Gaussian N_ℤ(0, σ²), about ten times faster than the
 * Canonne–Kamath–Steinke rejection sampler at σ = 40 (GNMax draws one sample per vocabulary token,
 * 128 256 per step; see docs/performance.md).
 *
 * <p><b>Method.</b> The magnitude |X| has the cumulative distribution S_m = (1 + 2·Σ_{1≤j≤m}
 * w_j)/Z, w_j = e^{−j²/(2σ²)}, Z = 1 + 2·Σ_{j≥1} w_j; the sign is a fair bit. A uniform U ∈ [0, 1)
 * is drawn lazily, 64 bits at a time, and the magnitude is the m with S_{m−1} ≤ U &lt; S_m. The
 * table holds C_m = ⌊S_m·2⁶⁴⌋ for every m until C_m reaches 2⁶⁴ − 1. With u = the first 64 bits of
 * U, U lies in [u, u + 1)·2⁻⁶⁴ and S_m in [C_m, C_m + 1)·2⁻⁶⁴, so u &lt; C_m proves U &lt; S_m and
 * u &gt; C_m proves U &gt; S_m: unless u equals a table entry the magnitude is decided by the table
 * alone. When it does (probability ≤ K·2⁻⁶⁴), further words of U are drawn and compared with S_m
 * computed to as many bits as needed ({@link #floorScaled}); when U ≥ S_{K−1} (the last entry, tail
 * mass &lt; 2⁻⁶⁴) the magnitude is drawn from the exact tail law by rejection ({@link #tail}). No
 * step rounds: the output has exactly the law N_ℤ(0, σ²), like the rejection sampler, so the
 * mechanisms' guarantees (ρ = Δ²/(2σ²) zCDP) are unchanged; the randomness is still only {@link
 * UniformSource} draws from the caller's secure or keyed source.
 *
 * <p><b>Precision.</b> S_m is computed in decimal arithmetic with 25 guard digits beyond what a
 * floor at the requested bit count needs, the truncated tail of Z bounded explicitly; a floor is
 * accepted only if the computed value is farther from the next integer than the error bound,
 * otherwise it is recomputed with more digits. Tables are built once per σ² (87 ms at σ = 40 in a
 * cold JVM) and shared; σ² whose table would exceed {@link #MAX_ENTRIES} entries (σ ≳ 7 000) use
 * the rejection sampler instead.
 */
final class GaussianInversionTable {
    /** Largest table: 2¹⁶ magnitudes (512 KiB), reached at σ ≈ 7 000. */
    static final int MAX_ENTRIES = 1 << 16;

    private static final int GUIDE_BITS = 10;
    private static final int GUARD_DIGITS = 25;
    private static final int MAX_CACHED = 64; // distinct σ² per JVM; beyond, built per use
    private static final Map<Rational, GaussianInversionTable> CACHE = new ConcurrentHashMap<>();
    private static final GaussianInversionTable NONE = new GaussianInversionTable();

    private final Rational sigmaSquared;
    private final long[] boundaries; // C_m = ⌊S_m·2⁶⁴⌋, unsigned, non-decreasing; last = 2⁶⁴ − 1
    private final int[] guide; // guide[i] = first m with C_m ≥ i·2⁵⁴ (unsigned)

    private GaussianInversionTable() {
        sigmaSquared = null;
        boundaries = null;
        guide = null;
    }

    private GaussianInversionTable(Rational sigmaSquared, long[] boundaries) {
        this.sigmaSquared = sigmaSquared;
        this.boundaries = boundaries;
        this.guide = new int[1 << GUIDE_BITS];
        int m = 0;
        for (int i = 0; i < guide.length; i++) {
            long bucketStart = (long) i << (64 - GUIDE_BITS);
            while (m < boundaries.length - 1
                    && Long.compareUnsigned(boundaries[m], bucketStart) < 0) {
                m++;
            }
            guide[i] = m;
        }
    }

    /** The shared table for σ² &gt; 0, or null when it would exceed {@link #MAX_ENTRIES}. */
    static GaussianInversionTable forVariance(Rational sigmaSquared) {
        GaussianInversionTable t = CACHE.get(sigmaSquared);
        if (t == null) {
            t =
                    CACHE.size() < MAX_CACHED
                            ? CACHE.computeIfAbsent(sigmaSquared, GaussianInversionTable::build)
                            : build(sigmaSquared);
        }
        return t == NONE ? null : t;
    }

    private static GaussianInversionTable build(Rational sigmaSquared) {
        // Magnitudes needed: S_m·2⁶⁴ > 2⁶⁴ − 1 once the tail mass 2Σ_{j>m} w_j/Z < 2⁻⁶⁴, i.e. for m
        // a little beyond σ·√(2·64·ln 2) ≈ 9.4σ; refuse early when that is far too many.
        double sigma = Math.sqrt(sigmaSquared.doubleValue());
        if (sigma * 9.5 > MAX_ENTRIES) {
            return NONE;
        }
        Series s = Series.compute(sigmaSquared, 64 + 64, 4 * MAX_ENTRIES);
        if (s == null) {
            return NONE;
        }
        long[] c = new long[MAX_ENTRIES];
        BigInteger all = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
        int k = 0;
        while (true) {
            if (k == MAX_ENTRIES) {
                return NONE;
            }
            BigInteger floor = floorScaled(sigmaSquared, k, 64, s);
            c[k] = floor.longValue(); // the low 64 bits: floor ≤ 2⁶⁴ − 1 as S_m < 1
            k++;
            if (floor.equals(all)) {
                break;
            }
        }
        long[] boundaries = new long[k];
        System.arraycopy(c, 0, boundaries, 0, k);
        return new GaussianInversionTable(sigmaSquared, boundaries);
    }

    /** Number of magnitudes in the table (K). */
    int size() {
        return boundaries.length;
    }

    /** C_m = ⌊S_m·2⁶⁴⌋ as an unsigned long (for tests). */
    long boundary(int m) {
        return boundaries[m];
    }

    /** One exact sample of N_ℤ(0, σ²). */
    long sample(UniformSource r) {
        long magnitude = magnitude(next64(r), r);
        if (magnitude == 0) {
            return 0;
        }
        return r.nextLong(2) == 1 ? -magnitude : magnitude;
    }

    /** The magnitude for a uniform whose first 64 bits are {@code u} (more are drawn if needed). */
    long magnitude(long u, UniformSource r) {
        long[] c = boundaries;
        int m = guide[(int) (u >>> (64 - GUIDE_BITS))];
        while (m < c.length && Long.compareUnsigned(c[m], u) <= 0) {
            m++;
        }
        // Now C_m > u (or m = K): U < S_m. Decided unless an earlier entry equals u.
        if (m == 0 || c[m - 1] != u) {
            return m;
        }
        int lo = m - 1;
        while (lo > 0 && c[lo - 1] == u) {
            lo--;
        }
        return refine(u, lo, m, r);
    }

    /**
     * u = C_lo = … = C_{hi−1}: U is below S_lo, …, S_{hi−1}, or above all of them — decided by
     * drawing further 64-bit words of U and comparing with those S_m to as many bits.
     */
    private long refine(long u, int lo, int hi, UniformSource r) {
        BigInteger prefix = new BigInteger(Long.toUnsignedString(u));
        int bits = 64;
        int m = lo;
        while (m < hi) {
            prefix = prefix.shiftLeft(64).or(new BigInteger(Long.toUnsignedString(next64(r))));
            bits += 64;
            // Compare U's first `bits` bits with S_j for j = m, m+1, …: below means U < S_j.
            while (m < hi) {
                int cmp = prefix.compareTo(floorScaled(sigmaSquared, m, bits, null));
                if (cmp < 0) {
                    return m;
                }
                if (cmp > 0) {
                    m++;
                } else {
                    break; // equal in these bits too: draw another word
                }
            }
        }
        return hi == boundaries.length ? tail(hi, r) : hi;
    }

    /**
     * The exact conditional law of |X| given |X| ≥ K: P(K + g) ∝ e^{−(K+g)²/(2σ²)} ∝ e^{−gK/σ²} ·
     * e^{−g²/(2σ²)}. Proposal g ~ Geometric with ratio e^{−K/σ²} (σ² = a/b: s/t = K·b/a), accepted
     * with probability e^{−g²·b/(2a)}.
     */
    long tail(int k, UniformSource r) {
        long a = sigmaSquared.numerator();
        long b = sigmaSquared.denominator();
        BigInteger twoA = BigInteger.valueOf(a).shiftLeft(1);
        while (true) {
            long g = ExactSampling.geometricFast(Math.multiplyExact(k, b), a, r);
            BigInteger gg = BigInteger.valueOf(g);
            if (ExactSampling.bernoulliExpMinus(
                    gg.multiply(gg).multiply(BigInteger.valueOf(b)), twoA, r)) {
                return k + g;
            }
        }
    }

    private static long next64(UniformSource r) {
        return (r.nextLong(1L << 32) << 32) | r.nextLong(1L << 32);
    }

    /**
     * ⌊S_m·2^bits⌋ exactly: computed with enough digits that the error bound cannot straddle an
     * integer (else recomputed with twice the digits). {@code series} may be a precomputed series
     * good to at least {@code bits} bits, or null.
     */
    static BigInteger floorScaled(Rational sigmaSquared, int m, int bits, Series series) {
        int extra = 0;
        Series s = series;
        while (true) {
            if (s == null || s.bits < bits + extra) {
                s = Series.compute(sigmaSquared, bits + extra + 64, Integer.MAX_VALUE);
            }
            BigDecimal scaled =
                    s.cumulative(m).multiply(new BigDecimal(BigInteger.ONE.shiftLeft(bits)));
            BigDecimal floor = scaled.setScale(0, RoundingMode.FLOOR);
            BigDecimal err =
                    s.absoluteError.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(bits)));
            if (scaled.subtract(floor).compareTo(err) > 0
                    && floor.add(BigDecimal.ONE).subtract(scaled).compareTo(err) > 0) {
                return floor.toBigIntegerExact();
            }
            extra = Math.max(64, 2 * extra);
            s = null;
        }
    }

    /**
     * w_0 … w_J and Z to a stated absolute error on every S_m: terms are multiplied up (w_{j+1} =
     * w_j·e^{−1/(2σ²)}·e^{−j/σ²}) with {@code GUARD_DIGITS} guard digits, and the sum stops at the
     * J where the remaining terms are bounded by w_{J+1}/(1 − e^{−(J+1)/σ²}) below the error
     * budget.
     */
    static final class Series {
        final int bits;
        final BigDecimal absoluteError; // |computed S_m − S_m| ≤ this, every m
        private final BigDecimal[] prefix; // 1 + 2·Σ_{1≤j≤m} w_j, m = 0..J
        private final BigDecimal z;
        private final MathContext mc;

        private Series(
                int bits, BigDecimal err, BigDecimal[] prefix, BigDecimal z, MathContext mc) {
            this.bits = bits;
            this.absoluteError = err;
            this.prefix = prefix;
            this.z = z;
            this.mc = mc;
        }

        BigDecimal cumulative(int m) {
            if (m >= prefix.length) {
                return BigDecimal.ONE.subtract(absoluteError); // beyond J: S_m within error of 1
            }
            return prefix[m].divide(z, mc);
        }

        /**
         * S_m good to {@code bits} bits, or null if more than {@code maxTerms} terms are needed.
         */
        static Series compute(Rational sigmaSquared, int bits, int maxTerms) {
            int digits = (int) Math.ceil(bits * Math.log10(2)) + 2;
            MathContext mc = new MathContext(digits + GUARD_DIGITS, RoundingMode.HALF_EVEN);
            BigDecimal budget = BigDecimal.ONE.scaleByPowerOfTen(-digits);
            BigDecimal invS2 =
                    new BigDecimal(sigmaSquared.denominator())
                            .divide(new BigDecimal(sigmaSquared.numerator()), mc); // 1/σ²
            BigDecimal q = expNeg(invS2, mc); // e^{−1/σ²}
            BigDecimal half = expNeg(invS2.divide(BigDecimal.valueOf(2), mc), mc); // e^{−1/(2σ²)}
            ArrayList<BigDecimal> prefix = new ArrayList<>();
            BigDecimal w = BigDecimal.ONE;
            BigDecimal qj = BigDecimal.ONE; // q^j
            BigDecimal sum = BigDecimal.ONE;
            prefix.add(sum);
            BigDecimal tailBudget = budget.movePointLeft(3);
            for (int j = 0; ; j++) {
                // w_{j+1} = w_j · e^{−1/(2σ²)} · e^{−j/σ²}
                w = w.multiply(half, mc).multiply(qj, mc);
                qj = qj.multiply(q, mc); // q^{j+1}
                // Terms after j: Σ_{i>j} w_i ≤ w_{j+1}/(1 − q^{j+1}).
                BigDecimal rest = w.divide(BigDecimal.ONE.subtract(qj), mc);
                if (rest.multiply(BigDecimal.valueOf(2)).compareTo(tailBudget) < 0) {
                    break;
                }
                if (prefix.size() > maxTerms) {
                    return null;
                }
                sum = sum.add(w.multiply(BigDecimal.valueOf(2)), mc);
                prefix.add(sum);
            }
            // Rounding: ≤ 4 roundings of relative 10^{−(digits+GUARD−1)} per term, ≤ 10⁸ terms,
            // and the dropped tail < budget/1000 of Z ≥ 1: the S_m are within budget.
            return new Series(bits, budget, prefix.toArray(BigDecimal[]::new), sum, mc);
        }
    }

    /** e^{−y} for y ≥ 0: (1/e)^⌊y⌋ · 1/e^{frac(y)}, the exponentials by their Taylor series. */
    static BigDecimal expNeg(BigDecimal y, MathContext mc) {
        BigInteger whole = y.toBigInteger();
        BigDecimal frac = y.subtract(new BigDecimal(whole));
        BigDecimal result = BigDecimal.ONE.divide(expTaylor(frac, mc), mc);
        if (whole.signum() > 0) {
            BigDecimal invE = BigDecimal.ONE.divide(expTaylor(BigDecimal.ONE, mc), mc);
            result = result.multiply(invE.pow(whole.intValueExact(), mc), mc);
        }
        return result;
    }

    private static BigDecimal expTaylor(BigDecimal x, MathContext mc) {
        BigDecimal sum = BigDecimal.ONE;
        BigDecimal term = BigDecimal.ONE;
        BigDecimal stop = BigDecimal.ONE.scaleByPowerOfTen(-(mc.getPrecision() + 2));
        for (int k = 1; ; k++) {
            term = term.multiply(x, mc).divide(BigDecimal.valueOf(k), mc);
            sum = sum.add(term, mc);
            if (term.compareTo(stop) < 0) {
                return sum;
            }
        }
    }
}
