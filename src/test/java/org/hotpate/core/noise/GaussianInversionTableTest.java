package org.hotpate.core.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The exact inversion sampler: its table against the cumulative distribution computed independently
 * in floating point, the rare paths (a first word equal to a table entry, the tail beyond the
 * table) driven by injected words, and its samples — and the rejection sampler's, which it replaced
 * on the hot path — against the pmf.
 *
 * <p>Sampling bounds as in {@link NoiseDistributionTest}: |count − Np| ≤ 6·√(Np(1−p)) per checked
 * value (false-failure rate ≈ 2e-9 per check, normal approximation with Np ≥ 1000).
 */
class GaussianInversionTableTest {
    private static final double TWO_64 = 0x1p64;

    @ParameterizedTest
    @CsvSource({"0.5", "1", "2", "10", "100", "38.8129", "1600", "1000000"})
    void table_isTheMagnitudeCdfToDoublePrecision_andEndsAtTheLastRepresentableEntry(
            double sigma2) {
        GaussianInversionTable t = GaussianInversionTable.forVariance(Rational.fromDouble(sigma2));
        double z = DiscreteGaussian.normalizingConstant(sigma2);
        double cdf = 0;
        for (int m = 0; m < t.size(); m++) {
            cdf += (m == 0 ? 1 : 2) * Math.exp(-(double) m * m / (2 * sigma2)) / z;
            double entry = unsigned(t.boundary(m)) / TWO_64;
            assertThat(entry).as("S_" + m).isCloseTo(Math.min(cdf, 1), within(1e-12));
            if (m > 0) {
                assertThat(Long.compareUnsigned(t.boundary(m - 1), t.boundary(m)))
                        .as("non-decreasing at " + m)
                        .isLessThanOrEqualTo(0);
            }
        }
        assertThat(t.boundary(t.size() - 1)).isEqualTo(-1L); // 2^64 − 1
        if (t.size() > 1) {
            assertThat(t.boundary(t.size() - 2)).isNotEqualTo(-1L); // K is the first such m
        }
        // Tail mass beyond the table is below 2^-64 and the table is not much longer than needed.
        double sigma = Math.sqrt(sigma2);
        assertThat((double) t.size()).isLessThan(9.5 * sigma + 3);
    }

    @Test
    void floorsAgreeAcrossPrecisions() {
        Rational s2 = Rational.of(1600, 1);
        for (int m : new int[] {0, 1, 17, 40, 200, 370}) {
            BigInteger f64 = GaussianInversionTable.floorScaled(s2, m, 64, null);
            BigInteger f128 = GaussianInversionTable.floorScaled(s2, m, 128, null);
            BigInteger f320 = GaussianInversionTable.floorScaled(s2, m, 320, null);
            assertThat(f128.shiftRight(64)).as("m=" + m).isEqualTo(f64);
            assertThat(f320.shiftRight(192)).as("m=" + m).isEqualTo(f128);
        }
    }

    @Test
    void aFirstWordEqualToAnEntry_isDecidedByTheNextBits() {
        Rational s2 = Rational.of(100, 1);
        GaussianInversionTable t = GaussianInversionTable.forVariance(s2);
        for (int m : new int[] {0, 3, 12}) {
            long u = t.boundary(m);
            long next = GaussianInversionTable.floorScaled(s2, m, 128, null).longValue();
            // U's next 64 bits just below S_m's: U < S_m, magnitude m; just above: m + 1.
            assertThat(t.magnitude(u, words(next - 1))).as("below S_" + m).isEqualTo(m);
            assertThat(t.magnitude(u, words(next + 1))).as("above S_" + m).isEqualTo(m + 1);
            // Equal in 128 bits as well: the third word decides.
            long third = GaussianInversionTable.floorScaled(s2, m, 192, null).longValue();
            assertThat(t.magnitude(u, words(next, third - 1))).isEqualTo(m);
            assertThat(t.magnitude(u, words(next, third + 1))).isEqualTo(m + 1);
        }
    }

    @Test
    void beyondTheLastEntry_theTailIsSampled() {
        Rational s2 = Rational.of(100, 1);
        GaussianInversionTable t = GaussianInversionTable.forVariance(s2);
        int k = t.size();
        // First word 2^64 − 1 = C_{K−1}, next word all ones: U > S_{K−1}, so |X| ≥ K (the tail's
        // own draws come from the seeded source).
        UniformSource r = new WordSource(NoiseSources.seededInsecureForTestsOnly(5), -1L);
        long mag = t.magnitude(-1L, r);
        assertThat(mag).isGreaterThanOrEqualTo(k);
    }

    @Test
    void tail_hasTheConditionalLaw() {
        // σ² = 100, K = 20 (for the test; the table's own K is ~95): P(K + g | ≥ K) ∝
        // e^{−(K+g)²/200}.
        GaussianInversionTable t = GaussianInversionTable.forVariance(Rational.of(100, 1));
        UniformSource r = NoiseSources.seededInsecureForTestsOnly(77);
        int k = 20;
        int n = 100_000;
        long[] hits = new long[4];
        for (int i = 0; i < n; i++) {
            long g = t.tail(k, r) - k;
            assertThat(g).isGreaterThanOrEqualTo(0);
            if (g < hits.length) {
                hits[(int) g]++;
            }
        }
        double norm = 0;
        for (int g = 0; g < 200; g++) {
            norm += Math.exp(-(double) (k + g) * (k + g) / 200);
        }
        for (int g = 0; g < hits.length; g++) {
            double p = Math.exp(-(double) (k + g) * (k + g) / 200) / norm;
            double sd = Math.sqrt(n * p * (1 - p));
            assertThat((double) hits[g]).as("g=" + g).isCloseTo(n * p, within(6 * sd));
        }
    }

    @ParameterizedTest
    @CsvSource({"1600, 61", "38.8129, 62"})
    void tableAndRejection_bothMatchThePmf(double sigma2, long seed) {
        DiscreteGaussian g = DiscreteGaussian.withVariance(Rational.fromDouble(sigma2));
        UniformSource r = NoiseSources.seededInsecureForTestsOnly(seed);
        int n = 200_000;
        int sigma = (int) Math.round(Math.sqrt(sigma2));
        int[] probes = {0, 1, -1, sigma, -sigma, 2 * sigma, -2 * sigma};
        long[] table = new long[probes.length];
        long[] rejection = new long[probes.length];
        long beyond3 = 0;
        for (int i = 0; i < n; i++) {
            long a = g.sample(r);
            long b = g.sampleByRejection(r);
            for (int j = 0; j < probes.length; j++) {
                table[j] += a == probes[j] ? 1 : 0;
                rejection[j] += b == probes[j] ? 1 : 0;
            }
            beyond3 += Math.abs(a) > 3 * sigma ? 1 : 0;
        }
        for (int j = 0; j < probes.length; j++) {
            double p = DiscreteGaussian.pmf(sigma2, probes[j]);
            double sd = Math.sqrt(n * p * (1 - p));
            assertThat((double) table[j])
                    .as("table at " + probes[j])
                    .isCloseTo(n * p, within(6 * sd));
            assertThat((double) rejection[j])
                    .as("rejection at " + probes[j])
                    .isCloseTo(n * p, within(6 * sd));
        }
        double p3 = 0;
        for (int x = 3 * sigma + 1; x < 40 * sigma; x++) {
            p3 += 2 * DiscreteGaussian.pmf(sigma2, x);
        }
        assertThat((double) beyond3).isCloseTo(n * p3, within(6 * Math.sqrt(n * p3 * (1 - p3))));
    }

    @Test
    void veryLargeSigma_fallsBackToRejection() {
        assertThat(GaussianInversionTable.forVariance(Rational.of(100_000_000L, 1))).isNull();
        DiscreteGaussian g = DiscreteGaussian.withVariance(Rational.of(100_000_000L, 1));
        UniformSource r = NoiseSources.seededInsecureForTestsOnly(3);
        double sq = 0;
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            double x = g.sample(r);
            sq += x * x;
        }
        // Var = 1e8; the sample variance's sd is √(2/n)·1e8 = 1e6: ±6 sd.
        assertThat(sq / n).isCloseTo(1e8, within(6e6));
    }

    private static double unsigned(long x) {
        return x >= 0 ? x : TWO_64 + x;
    }

    /** Yields these 64-bit words through nextLong(2^32) draws (high half first), then fails. */
    private static UniformSource words(long... w) {
        return new WordSource(null, w);
    }

    /** The given words as 32-bit halves, then draws from {@code then} (or an error if null). */
    private static final class WordSource implements UniformSource {
        private final Deque<Long> halves = new ArrayDeque<>();
        private final UniformSource then;

        WordSource(UniformSource then, long... words) {
            this.then = then;
            for (long w : words) {
                halves.add(w >>> 32);
                halves.add(w & 0xFFFFFFFFL);
            }
        }

        @Override
        public long nextLong(long bound) {
            if (halves.isEmpty() && then != null) {
                return then.nextLong(bound);
            }
            if (bound != 1L << 32 || halves.isEmpty()) {
                throw new AssertionError("unexpected draw of bound " + bound);
            }
            return halves.poll();
        }
    }
}
