package org.hotpate.core.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.NotSerializableException;
import java.io.ObjectOutputStream;
import java.math.BigInteger;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The secret-keyed noise DRBG: byte-exact known answers (computed independently with Python's
 * {@code hmac}/{@code hashlib} and the {@code cryptography} package's AES-256-CTR), determinism per
 * (secret, label), sensitivity to both, and the statistical checks the other sources pass.
 */
class KeyedNoiseSourceTest {
    private static final byte[] SECRET = new byte[32];

    static {
        for (int i = 0; i < 32; i++) {
            SECRET[i] = (byte) i;
        }
    }

    private static String hex(long w) {
        return String.format("%016x", w);
    }

    @Test
    void knownAnswers_matchTheIndependentPythonReference() {
        assertThat(HexFormat.of().formatHex(KeyedNoiseSource.stepLabel("run-1", 0, 0, 0)))
                .isEqualTo("0000000572756e2d3100000000000000000000000000000000");
        assertThat(HexFormat.of().formatHex(KeyedNoiseSource.stepLabel("Ω-ü", 7, 3, 2)))
                .isEqualTo("00000005cea92dc3bc00000000000000070000000300000002");
        assertThat(
                        HexFormat.of()
                                .formatHex(
                                        KeyedNoiseSource.stepKey(
                                                SECRET,
                                                KeyedNoiseSource.stepLabel("run-1", 0, 0, 0))))
                .isEqualTo("d3dd5a4cdb726c91c5802d5864c3a4b02342de036636a7ffc8887de0d81dfc53");
        String[][] vectors = {
            {"run-1", "0", "0", "0", "1b60529286a0418e", "73ec6fa2a1828430", "69699ecf8b509757"},
            {"run-1", "0", "0", "1", "9210ed29d035dbff", "fd0253cb638fd672", "68d8d9c29e86d2bd"},
            {"Ω-ü", "7", "3", "2", "7d40e9f4100a59da", "8b51de9f4c7c3d93", "b11d36039ec3ee9b"}
        };
        for (String[] v : vectors) {
            KeyedNoiseSource s =
                    KeyedNoiseSource.forStep(
                            SECRET,
                            v[0],
                            Long.parseLong(v[1]),
                            Integer.parseInt(v[2]),
                            Integer.parseInt(v[3]));
            assertThat(hex(s.nextWord())).isEqualTo(v[4]);
            assertThat(hex(s.nextWord())).isEqualTo(v[5]);
            assertThat(hex(s.nextWord())).isEqualTo(v[6]);
        }
    }

    @Test
    void sameSecretAndLabel_giveTheSameNoise_acrossChunks() {
        KeyedNoiseSource a = KeyedNoiseSource.forStep(SECRET, "r", 3, 4, 1);
        KeyedNoiseSource b = KeyedNoiseSource.forStep(SECRET, "r", 3, 4, 1);
        for (int i = 0; i < 5000; i++) { // 12.5 KB of key stream: past the first chunk
            assertThat(a.nextLong(1_000_003)).isEqualTo(b.nextLong(1_000_003));
        }
    }

    @Test
    void words_areTheAesCtrKeyStream_acrossChunkBoundaries() throws Exception {
        byte[] label = KeyedNoiseSource.stepLabel("r", 3, 4, 1);
        javax.crypto.Cipher aes = javax.crypto.Cipher.getInstance("AES/CTR/NoPadding");
        aes.init(
                javax.crypto.Cipher.ENCRYPT_MODE,
                new javax.crypto.spec.SecretKeySpec(KeyedNoiseSource.stepKey(SECRET, label), "AES"),
                new javax.crypto.spec.IvParameterSpec(new byte[16]));
        byte[] stream = aes.doFinal(new byte[40_000]); // one call: no chunking on this side
        java.nio.ByteBuffer expected = java.nio.ByteBuffer.wrap(stream); // big-endian words
        KeyedNoiseSource s = KeyedNoiseSource.of(SECRET, label);
        for (int i = 0; i < 40_000 / 8; i++) {
            assertThat(s.nextWord()).as("word " + i).isEqualTo(expected.getLong());
        }
    }

    @Test
    void anotherLabelOrSecret_givesOtherNoise() {
        long[] base = draws(KeyedNoiseSource.forStep(SECRET, "r", 3, 4, 1));
        byte[] other = SECRET.clone();
        other[31] ^= 1;
        // Each comparison of 8 draws of 62 bits collides with probability ~2^-496.
        assertThat(draws(KeyedNoiseSource.forStep(SECRET, "r", 3, 4, 2))).isNotEqualTo(base);
        assertThat(draws(KeyedNoiseSource.forStep(SECRET, "r", 3, 5, 1))).isNotEqualTo(base);
        assertThat(draws(KeyedNoiseSource.forStep(SECRET, "r", 4, 4, 1))).isNotEqualTo(base);
        assertThat(draws(KeyedNoiseSource.forStep(SECRET, "s", 3, 4, 1))).isNotEqualTo(base);
        assertThat(draws(KeyedNoiseSource.forStep(other, "r", 3, 4, 1))).isNotEqualTo(base);
    }

    /**
     * Issue 30 item 1: every ledger account keys its own noise. The account secret matches the
     * independent Python {@code hmac} reference; the run's account and its forks {@code ~r1},
     * {@code ~r2} draw pairwise different noise at the same (secret, run id, step key); one account
     * draws the same noise twice (a re-closed step releases the same answer).
     */
    @Test
    void eachLedgerAccount_drawsItsOwnNoise_atTheSameStepKey() {
        assertThat(HexFormat.of().formatHex(KeyedNoiseSource.accountSecret(SECRET, "run-1")))
                .isEqualTo("c10a49cff722673629327328c840a96dc1d9d0278349023fea8d5d196e185bc1");
        assertThat(HexFormat.of().formatHex(KeyedNoiseSource.accountSecret(SECRET, "run-1~r1")))
                .isEqualTo("9be9a52aa5d34c7a889eb455f8779330029eb1eabd5e9c89c352f3fa1b9460f4");
        long[] run = draws(KeyedNoiseSource.forStep(SECRET, "run-1", "run-1", 3, 4, 1));
        long[] fork1 = draws(KeyedNoiseSource.forStep(SECRET, "run-1~r1", "run-1", 3, 4, 1));
        long[] fork2 = draws(KeyedNoiseSource.forStep(SECRET, "run-1~r2", "run-1", 3, 4, 1));
        // Each comparison of 8 draws of 62 bits collides with probability ~2^-496.
        assertThat(fork1).isNotEqualTo(run);
        assertThat(fork2).isNotEqualTo(run).isNotEqualTo(fork1);
        assertThat(draws(KeyedNoiseSource.forStep(SECRET, "run-1~r1", "run-1", 3, 4, 1)))
                .isEqualTo(fork1);
        assertThatThrownBy(() -> KeyedNoiseSource.accountSecret(SECRET, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static long[] draws(UniformSource s) {
        long[] d = new long[8];
        for (int i = 0; i < d.length; i++) {
            d[i] = s.nextLong(1L << 62);
        }
        return d;
    }

    @Test
    void nextLong_isUniformOnSmallBound() {
        // As UniformSourceTest: 7 cells, 140 000 draws, 6 sd per cell; false-failure ≈ 7 · 2e-9.
        UniformSource r = KeyedNoiseSource.forStep(SECRET, "uniform", 0, 0, 0);
        long[] c = new long[7];
        for (int i = 0; i < 140_000; i++) {
            c[(int) r.nextLong(7)]++;
        }
        double sd = Math.sqrt(140_000 * (1.0 / 7) * (6.0 / 7));
        for (long x : c) {
            assertThat((double) x).isCloseTo(20_000, within(6 * sd));
        }
    }

    @Test
    void nextLong_andBigIntegers_stayInRange() {
        UniformSource r = KeyedNoiseSource.forStep(SECRET, "range", 0, 0, 0);
        long bound = Long.MAX_VALUE / 3 * 2;
        for (int i = 0; i < 10_000; i++) {
            assertThat(r.nextLong(bound)).isBetween(0L, bound - 1);
        }
        BigInteger big = BigInteger.TEN.pow(40).add(BigInteger.ONE);
        boolean sawLarge = false;
        for (int i = 0; i < 1000; i++) {
            BigInteger x = r.nextBigInteger(big);
            assertThat(x.signum()).isGreaterThanOrEqualTo(0);
            assertThat(x).isLessThan(big);
            sawLarge |= x.compareTo(BigInteger.TEN.pow(39)) > 0;
        }
        assertThat(sawLarge).isTrue(); // Pr[all 1000 below 10^39] = 0.1^1000
    }

    @Test
    void discreteGaussianFromKeyedNoise_hasTheRightMeanAndVariance() {
        // One source per "step", as the reducer uses it: 2000 steps × 50 draws of N_Z(0, 9).
        // Mean sd = 3/√100000 ≈ 0.0095 (bound 6 sd = 0.057); variance sd ≈ 9·√(2/100000) ≈ 0.040
        // (bound 6 sd = 0.24). False-failure < 1e-8.
        DiscreteGaussian g = DiscreteGaussian.withSigma(3);
        double sum = 0;
        double sq = 0;
        int n = 0;
        for (int step = 0; step < 2000; step++) {
            UniformSource s = KeyedNoiseSource.forStep(SECRET, "gauss", 0, step, 0);
            for (int i = 0; i < 50; i++) {
                long x = g.sample(s);
                sum += x;
                sq += (double) x * x;
                n++;
            }
        }
        assertThat(sum / n).isCloseTo(0, within(0.057));
        assertThat(sq / n).isCloseTo(9, within(0.24));
    }

    @Test
    void badSecrets_areRefused_andTheSourceIsNeverSerialized() {
        assertThatThrownBy(() -> KeyedNoiseSource.of(new byte[16], new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("secret must be 32 bytes");
        assertThatThrownBy(() -> KeyedNoiseSource.of(null, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(KeyedNoiseSource.newSecret()).hasSize(32).isNotEqualTo(new byte[32]);
        assertThatThrownBy(
                        () ->
                                new ObjectOutputStream(new ByteArrayOutputStream())
                                        .writeObject(KeyedNoiseSource.of(SECRET, new byte[0])))
                .isInstanceOf(NotSerializableException.class);
    }
}
