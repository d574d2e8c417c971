package org.hotpate.core.prior;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.testing.DpTestSupport;
import org.junit.jupiter.api.Test;

/**
 * The DP n-gram release on neighbouring corpora (replace one user's records). The output audited is
 * which of the unigrams {7, 9} is released. D: forty users wrote "7", user u wrote "9"; D′: u wrote
 * "7" instead, so the count of 7 moves 40 → 41 (the threshold) and 9 goes from 1 to absent. The (ε,
 * δ) tested is the class's own statement for one level and k = 2 (a one-token record has two
 * unigrams, the token and its end), tightened to this pair: the exact δ(ε) of two discrete-Gaussian
 * coordinates shifted by +1 and −1 (the M* mechanism that noises both keys in both worlds) plus (1
 * + e^ε)·η for the threshold, η = Pr[N_ℤ(0, σ²) ≥ ρ]. Each check's false-failure rate is ≤ 1e-6
 * (Clopper–Pearson, {@link DpTestSupport}); 200 000 runs per corpus.
 */
class DpNgramExtractionDpTest {
    private static final int RUNS = 200_000;
    private static final double ALPHA = 1e-6;
    private static final double EPS = 0.1;
    private static final double SIGMA = 8;
    private static final long RHO = 41;
    private static final int EOT = 0;

    /** The (ε, δ) for one level, k = 2, σ = {@value #SIGMA}, ρ = {@value #RHO}. */
    private static double statedDelta() {
        double eta = new DpNgramExtraction(1, 2, SIGMA, RHO).thresholdSlack();
        return DpTestSupport.discreteGaussianDelta(
                        EPS, new double[] {SIGMA * SIGMA, SIGMA * SIGMA}, new int[] {1, -1})
                + (1 + Math.exp(EPS)) * eta;
    }

    /** Forty users wrote "7"; user u wrote {@code uWrites}. */
    private static List<List<int[]>> corpus(int uWrites) {
        List<List<int[]>> users = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            users.add(List.of(new int[] {7}));
        }
        users.add(List.of(new int[] {uWrites}));
        return users;
    }

    /** Outcome: bit 0 = 7 released, bit 1 = 9 released. */
    private static Map<Integer, Long> outcomes(
            DpNgramExtraction x, List<List<int[]>> users, UniformSource noise) {
        Map<Integer, Long> counts = new TreeMap<>();
        for (int r = 0; r < RUNS; r++) {
            Map<DpNgramExtraction.Gram, Long> l = x.extract(users, EOT, noise).levels().get(0);
            int o =
                    (l.containsKey(new DpNgramExtraction.Gram(new int[] {7})) ? 1 : 0)
                            + (l.containsKey(new DpNgramExtraction.Gram(new int[] {9})) ? 2 : 0);
            counts.merge(o, 1L, Long::sum);
        }
        return counts;
    }

    private static List<DpTestSupport.Violation> audit(DpNgramExtraction x, long seed) {
        UniformSource noise = NoiseSources.seededInsecureForTestsOnly(seed);
        // unigrams with one-token records also count the end-of-text token: every user has it,
        // so it is released in both worlds and does not enter the outcome
        return DpTestSupport.violations(
                outcomes(x, corpus(9), noise),
                outcomes(x, corpus(7), noise),
                RUNS,
                EPS,
                statedDelta(),
                ALPHA);
    }

    @Test
    void release_isDpOnNeighbouringCorpora() {
        assertThat(statedDelta()).isBetween(0.01, 0.3);
        assertThat(audit(new DpNgramExtraction(1, 2, SIGMA, RHO), 1)).isEmpty();
    }

    @Test
    void audit_catchesHalfTheNoise() {
        // claims σ = 8 (statedDelta), draws σ = 4
        assertThat(audit(new DpNgramExtraction(1, 2, SIGMA / 2, RHO), 2)).isNotEmpty();
    }

    @Test
    void audit_catchesABoundPerRecordInsteadOfPerUser() {
        // BROKEN on purpose: u's replacement wrote "7" in three records and the variant bounds
        // contributions per record (each record counted as if a user had written it), so the
        // count of 7 moves 40 -> 43 where the statement allows one
        DpNgramExtraction x = new DpNgramExtraction(1, 2, SIGMA, RHO);
        UniformSource noise = NoiseSources.seededInsecureForTestsOnly(3);
        List<List<int[]>> perRecord = new ArrayList<>(corpus(7));
        perRecord.set(40, List.of(new int[] {7}));
        perRecord.add(List.of(new int[] {7}));
        perRecord.add(List.of(new int[] {7}));
        assertThat(
                        DpTestSupport.violations(
                                outcomes(x, corpus(9), noise),
                                outcomes(x, perRecord, noise),
                                RUNS,
                                EPS,
                                statedDelta(),
                                ALPHA))
                .isNotEmpty();
    }
}
