package org.hotpate.core.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The exact samplers against the pmf tables of PRIVACY.md §6.2 [COMPUTED with
 * IBM/discrete-gaussian-differential-privacy discretegauss.py]: exact pmf helpers at relative 1e-9,
 * and 200 000 seeded samples per distribution with per-value binomial bounds.
 *
 * <p>Sampling bounds: |count − Np| ≤ 6·√(Np(1−p)) per checked value. Under the correct law each
 * check fails with probability ≈ 2e-9 (normal approximation; Np ≥ 2000 here), and this class makes
 * fewer than 100 such checks: false-failure rate &lt; 1e-6.
 */
class NoiseDistributionTest {
    private static final int SAMPLES = 200_000;
    private static final double Z = 6;

    @ParameterizedTest
    @CsvSource({
        "0.5, 1.772637204826652, 0.564131226218842, 0.20753228024874815, 0.010332423825283122",
        "1, 2.506628288042905, 0.3989422782668618, 0.24197072322446064, 0.0539909662243053",
        "2, 3.5449077018110318, 0.28209479177387814, 0.21969564473386122, 0.1037768743551487",
        "10, 7.926654595212022, 0.126156626101008, 0.1200038948430136, 0.10328830949345566",
        "100, 25.066282746310005, 0.03989422804014327, 0.03969525474770118, 0.039104269397545584"
    })
    void discreteGaussianPmf_matchesTable(
            double sigma2, double z, double p0, double p1, double p2) {
        assertThat(DiscreteGaussian.normalizingConstant(sigma2)).isCloseTo(z, within(z * 1e-9));
        assertThat(DiscreteGaussian.pmf(sigma2, 0)).isCloseTo(p0, within(p0 * 1e-9));
        assertThat(DiscreteGaussian.pmf(sigma2, 1)).isCloseTo(p1, within(p1 * 1e-9));
        assertThat(DiscreteGaussian.pmf(sigma2, -1)).isCloseTo(p1, within(p1 * 1e-9));
        assertThat(DiscreteGaussian.pmf(sigma2, 2)).isCloseTo(p2, within(p2 * 1e-9));
        assertThat(DiscreteGaussian.pmf(sigma2, -2)).isCloseTo(p2, within(p2 * 1e-9));
    }

    @ParameterizedTest
    @CsvSource({
        "1, 0.46211715726000974, 0.17000340156854793",
        "2, 0.24491866240370913, 0.14855067788365744",
        "5, 0.09966799462495583, 0.08160125229706233"
    })
    void discreteLaplacePmf_matchesTable(double t, double p0, double p1) {
        assertThat(DiscreteLaplace.pmf(t, 0)).isCloseTo(p0, within(p0 * 1e-9));
        assertThat(DiscreteLaplace.pmf(t, 1)).isCloseTo(p1, within(p1 * 1e-9));
        assertThat(DiscreteLaplace.pmf(t, -1)).isCloseTo(p1, within(p1 * 1e-9));
    }

    @ParameterizedTest
    @CsvSource({"0.5, 11", "1, 12", "2, 13", "10, 14", "100, 15"})
    void discreteGaussianSampler_matchesPmf(double sigma2, long seed) {
        DiscreteGaussian g = DiscreteGaussian.withVariance(Rational.fromDouble(sigma2));
        UniformSource r = NoiseSources.seededInsecureForTestsOnly(seed);
        long[] hits = new long[5];
        for (int i = 0; i < SAMPLES; i++) {
            long x = g.sample(r);
            if (Math.abs(x) <= 2) {
                hits[(int) x + 2]++;
            }
        }
        for (int x = -2; x <= 2; x++) {
            assertBinomial(
                    "N_Z(0," + sigma2 + ") at " + x, hits[x + 2], DiscreteGaussian.pmf(sigma2, x));
        }
    }

    @ParameterizedTest
    @CsvSource({"1, 21", "2, 22", "5, 23"})
    void discreteLaplaceSampler_matchesPmf(double t, long seed) {
        DiscreteLaplace l = DiscreteLaplace.withScale(t);
        UniformSource r = NoiseSources.seededInsecureForTestsOnly(seed);
        long[] hits = new long[5];
        for (int i = 0; i < SAMPLES; i++) {
            long x = l.sample(r);
            if (Math.abs(x) <= 2) {
                hits[(int) x + 2]++;
            }
        }
        for (int x = -2; x <= 2; x++) {
            assertBinomial("DLap(" + t + ") at " + x, hits[x + 2], DiscreteLaplace.pmf(t, x));
        }
    }

    @Test
    void discreteLaplaceSampler_rationalScale_matchesPmf() {
        // t = 3/2 exercises Geometric-fast with s = 2 (⌊(V·t + U)/s⌋).
        DiscreteLaplace l = DiscreteLaplace.withScale(Rational.of(3, 2));
        UniformSource r = NoiseSources.seededInsecureForTestsOnly(31);
        long[] hits = new long[5];
        for (int i = 0; i < SAMPLES; i++) {
            long x = l.sample(r);
            if (Math.abs(x) <= 2) {
                hits[(int) x + 2]++;
            }
        }
        for (int x = -2; x <= 2; x++) {
            assertBinomial("DLap(3/2) at " + x, hits[x + 2], DiscreteLaplace.pmf(1.5, x));
        }
    }

    @Test
    void discreteGaussian_rejectionBigIntegerPath_matchesPmf() {
        // σ² = (10^10 + 1)/10^10: 2·a·b·t² overflows long, so every acceptance test runs in
        // BigInteger.
        Rational s2 = Rational.of(10_000_000_001L, 10_000_000_000L);
        DiscreteGaussian g = DiscreteGaussian.withVariance(s2);
        UniformSource r = NoiseSources.seededInsecureForTestsOnly(41);
        int n = 50_000;
        long[] hits = new long[5];
        for (int i = 0; i < n; i++) {
            long x = g.sampleByRejection(r);
            if (Math.abs(x) <= 2) {
                hits[(int) x + 2]++;
            }
        }
        for (int x = -2; x <= 2; x++) {
            double p = DiscreteGaussian.pmf(s2.doubleValue(), x);
            double sd = Math.sqrt(n * p * (1 - p));
            assertThat((double) hits[x + 2]).as("x=" + x).isCloseTo(n * p, within(Z * sd));
        }
    }

    @ParameterizedTest
    @CsvSource({"0, 1, 51", "3, 10, 52", "1, 1, 53", "5, 2, 54", "7, 3, 55"})
    void bernoulliExpMinus_matchesExp(long num, long den, long seed) {
        UniformSource r = NoiseSources.seededInsecureForTestsOnly(seed);
        long hits = 0;
        for (int i = 0; i < SAMPLES; i++) {
            if (ExactSampling.bernoulliExpMinus(num, den, r)) {
                hits++;
            }
        }
        assertBinomial("exp(-" + num + "/" + den + ")", hits, Math.exp(-(double) num / den));
    }

    @Test
    void bernoulliExpMinus_bigInteger_matchesExp() {
        BigInteger den = BigInteger.TEN.pow(30);
        BigInteger num = den.multiply(BigInteger.valueOf(7)).divide(BigInteger.valueOf(4)); // 1.75
        UniformSource r = NoiseSources.seededInsecureForTestsOnly(61);
        long hits = 0;
        for (int i = 0; i < SAMPLES; i++) {
            if (ExactSampling.bernoulliExpMinus(num, den, r)) {
                hits++;
            }
        }
        assertBinomial("exp(-1.75) via BigInteger", hits, Math.exp(-1.75));
    }

    @ParameterizedTest
    @CsvSource({"0.3, 71", "1e-3, 72", "0.9999, 73"})
    void bernoulliOfDouble_matchesP(double p, long seed) {
        UniformSource r = NoiseSources.seededInsecureForTestsOnly(seed);
        long hits = 0;
        for (int i = 0; i < SAMPLES; i++) {
            if (ExactSampling.bernoulli(p, r)) {
                hits++;
            }
        }
        assertBinomial("Bernoulli(" + p + ")", hits, p);
    }

    @Test
    void bernoulliOfDouble_edgesAreCertain() {
        UniformSource r = NoiseSources.seededInsecureForTestsOnly(74);
        for (int i = 0; i < 1000; i++) {
            assertThat(ExactSampling.bernoulli(0, r)).isFalse();
            assertThat(ExactSampling.bernoulli(1, r)).isTrue();
        }
    }

    @Test
    void zeroVariance_isConstantZero() {
        DiscreteGaussian g = DiscreteGaussian.withVariance(Rational.of(0, 1));
        assertThat(g.sample(NoiseSources.seededInsecureForTestsOnly(1))).isZero();
    }

    @Test
    void secureSource_samplesHaveTheRightVariance() {
        // Smoke test of the production path: 20 000 draws of N_Z(0, 100); sd of the sample
        // variance ≈ 100·√(2/20000) = 1.0; bound 6 sd (false-failure ≈ 2e-9).
        DiscreteGaussian g = DiscreteGaussian.withSigma(10);
        UniformSource r = NoiseSources.secure();
        double sq = 0;
        int n = 20_000;
        for (int i = 0; i < n; i++) {
            long x = g.sample(r);
            sq += (double) x * x;
        }
        assertThat(sq / n).isCloseTo(100, within(6.0));
    }

    private static void assertBinomial(String what, long hits, double p) {
        double mean = SAMPLES * p;
        double sd = Math.sqrt(SAMPLES * p * (1 - p));
        assertThat((double) hits).as(what).isCloseTo(mean, within(Math.max(Z * sd, 1e-9)));
    }
}
