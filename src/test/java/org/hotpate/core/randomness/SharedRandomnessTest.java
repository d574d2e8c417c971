package org.hotpate.core.randomness;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Known-answer vectors of the shared randomness, spec version 1. The values were produced by the
 * reference Python snippet in docs/shared-randomness.md (pure Python integers, math.log), so this
 * test is a cross-language check: U must match exactly (it is a 53-bit integer times 2^-53) and u
 * to 1 ulp (the two languages' log may differ in the last bit).
 */
class SharedRandomnessTest {
    // stepSeed (hex), token, 64-bit word (hex), U, u
    private static final String[] TOKEN_VECTORS = {
        "0000000000000000 0 16554d9eca36314c 0.08723912359911246 2.4391023835598697",
        "0000000000000000 1 db20fe9d672d0fdc 0.8559722074780219 0.1555173712669957",
        "0000000000000000 2 d7e772cee186176b 0.8433753733711672 0.17034313732390935",
        "0000000000000000 3 7e68b68aec7ba23b 0.493785294453558 0.7056544828839673",
        "0000000000000000 4 02f4ba6408e4d89b 0.011546754286331562 4.461350895676643",
        "0000000000000000 5 3dd62b0b9ca8c5b2 0.24154919656271823 1.4206821141610546",
        "0000000000000000 127 ccb2f652b9b1347a 0.7996057464567387 0.22363648971746056",
        "0000000000000000 128255 997321dc02a1bf7e 0.5994130289206002 0.5118043877315395",
        "0000000000000000 2147483647 419e29fc5a34c5fd 0.25631964121767503 1.3613300148468994",
        "0123456789abcdef 0 78c4ccdc209d343c 0.47175293325618817 0.7512998769336492",
        "0123456789abcdef 1 51ab0e58704846c5 0.3190163579859312 1.1425128985592508",
        "0123456789abcdef 2 62ced663958cbb45 0.3859685891271053 0.9519992881468371",
        "0123456789abcdef 3 a8ee5c5b8978b697 0.6598870967368126 0.4156865241453299",
        "0123456789abcdef 4 daf0bdc754a0b959 0.8552359210631292 0.15637791703936513",
        "0123456789abcdef 5 38123d82f9ce12cf 0.21902832458163635 1.518554221539607",
        "0123456789abcdef 127 8eeb40fd7f11912d 0.5582771891486743 0.5828996851958917",
        "0123456789abcdef 128255 f57357d12357422c 0.9587912450400299 0.04208190762752087",
        "0123456789abcdef 2147483647 3961ef219856d122 0.22415060587112678 1.4954371054125513",
        "7c1fdb0c3099035b 0 c07be51d169ff8fa 0.7518904872910069 0.28516459423955615",
        "7c1fdb0c3099035b 1 9fda2b8316336795 0.6244227595363562 0.470927640754744",
        "7c1fdb0c3099035b 2 658f06013efc1e47 0.3967136147539211 0.9245406320257622",
        "7c1fdb0c3099035b 3 bde18070851c8c85 0.74172213313169 0.2987805896012827",
        "7c1fdb0c3099035b 4 cfb154ecd24a8ff9 0.8112996175935142 0.20911785093151328",
        "7c1fdb0c3099035b 5 c49c14ca58915803 0.7680066102989874 0.2639569387113664",
        "7c1fdb0c3099035b 127 fbd5be6b28fb6de5 0.9837302219029717 0.01640358425265708",
        "7c1fdb0c3099035b 128255 59119888215c4a45 0.34792474101537707 1.055769084045608",
        "7c1fdb0c3099035b 2147483647 5319a9bfa48c9817 0.3246103375318391 1.1251297774221853",
    };

    // stepSeed, teacherId, residual word, residual u, independent word, independent U
    private static final String[] TEACHER_VECTORS = {
        "0123456789abcdef t1 9d13c78b4d279022 0.48843963564957726 963e71e4ffce7719 0.586890333564776",
        "0123456789abcdef 0 c5b5b99f8d3262fb 0.2583768236103242 5a243a22a0d52810 0.3521152815381653",
    };

    @Test
    void tokenDraws_matchKnownAnswers() {
        for (String line : TOKEN_VECTORS) {
            String[] f = line.split(" ");
            long seed = Long.parseUnsignedLong(f[0], 16);
            int token = Integer.parseInt(f[1]);
            assertThat(SharedRandomness.tokenWord(seed, token))
                    .as(line)
                    .isEqualTo(Long.parseUnsignedLong(f[2], 16));
            assertThat(SharedRandomness.tokenUniform(seed, token))
                    .as(line)
                    .isEqualTo(Double.parseDouble(f[3]));
            double u = Double.parseDouble(f[4]);
            assertThat(SharedRandomness.tokenExp1(seed, token))
                    .as(line)
                    .isCloseTo(u, org.assertj.core.data.Offset.offset(Math.ulp(u)));
        }
    }

    @Test
    void teacherStreams_matchKnownAnswers() {
        for (String line : TEACHER_VECTORS) {
            String[] f = line.split(" ");
            long seed = Long.parseUnsignedLong(f[0], 16);
            long key = SeedDerivation.teacherKey(f[1]);
            assertThat(SharedRandomness.teacherWord(seed, SharedRandomness.DOMAIN_RESIDUAL, key))
                    .isEqualTo(Long.parseUnsignedLong(f[2], 16));
            assertThat(SharedRandomness.teacherWord(seed, SharedRandomness.DOMAIN_INDEPENDENT, key))
                    .isEqualTo(Long.parseUnsignedLong(f[4], 16));
            StepRandomness r = StepRandomness.forStep(seed, 16);
            double u = Double.parseDouble(f[3]);
            assertThat(r.residualExp1(key))
                    .isCloseTo(u, org.assertj.core.data.Offset.offset(Math.ulp(u)));
            assertThat(r.independentUniform(key)).isEqualTo(Double.parseDouble(f[5]));
        }
    }

    @Test
    void firstFourTokensOfSeedZero_areTheRandom123ZeroBlock() {
        assertThat(SharedRandomness.tokenWord(0, 0)).isEqualTo(0x16554d9eca36314cL);
        assertThat(SharedRandomness.tokenWord(0, 3)).isEqualTo(0x7e68b68aec7ba23bL);
    }

    @Test
    void uniform_staysStrictlyInsideTheUnitInterval() {
        assertThat(SharedRandomness.toUniform(0)).isEqualTo(0x1.0p-53);
        assertThat(SharedRandomness.toUniform(-1L)).isEqualTo(1 - 0x1.0p-53).isLessThan(1.0);
        assertThat(SharedRandomness.toExp1(-1L)).isGreaterThan(0).isFinite();
        assertThat(1 / SharedRandomness.toExp1(-1L)).isFinite();
        assertThat(SharedRandomness.toExp1(0)).isLessThan(37).isFinite();
    }

    @Test
    void windowedTable_equalsOnTheFlyValues_belowInsideAndBeyondTheWindow() {
        long seed = 0x5eedL;
        for (int[] w : new int[][] {{5, 1003}, {127_206, 128_256}, {8, 8}, {0, 3}}) {
            StepRandomness r = StepRandomness.forTokens(seed, w[0], w[1]);
            assertThat(r.firstToken()).isEqualTo(w[0]);
            assertThat(r.tableSize()).isEqualTo(w[1] - w[0]);
            for (int t :
                    new int[] {
                        0, 3, 4, 5, 6, 7, 8, 9, 1002, 1003, 127_205, 127_206, 128_255, 1 << 20
                    }) {
                double u = SharedRandomness.tokenExp1(seed, t);
                assertThat(r.exp1(t)).as("window %s token %d", w, t).isEqualTo(u);
                assertThat(r.invExp1(t)).as("token %d", t).isEqualTo(1.0 / u);
                assertThat(r.gumbel(t)).as("token %d", t).isEqualTo(-Math.log(u));
            }
        }
        StepRandomness r = StepRandomness.forTokens(seed, 127_206, 128_256);
        double max = 0;
        for (int t = 127_206; t < 128_256; t++) {
            max = Math.max(max, r.invExp1(t));
        }
        assertThat(r.maxInvExp1(127_206, 128_255)).isEqualTo(max);
        assertThat(r.maxInvExp1(127_205, 128_255)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(r.maxInvExp1(127_206, 128_256)).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void stepTable_equalsOnTheFlyValues_insideAndBeyondTheTable() {
        long seed = 0x0123456789abcdefL;
        StepRandomness r = StepRandomness.forStep(seed, 1001); // not a multiple of 4
        assertThat(r.tableSize()).isEqualTo(1001);
        for (int t :
                new int[] {0, 1, 2, 3, 4, 997, 999, 1000, 1001, 1002, 128255, Integer.MAX_VALUE}) {
            double u = SharedRandomness.tokenExp1(seed, t);
            assertThat(r.exp1(t)).as("token %d", t).isEqualTo(u);
            assertThat(r.invExp1(t)).as("token %d", t).isEqualTo(1.0 / u);
            assertThat(r.gumbel(t)).as("token %d", t).isEqualTo(-Math.log(u));
        }
        assertThat(StepRandomness.forStep(seed, 0).exp1(5)).isEqualTo(r.exp1(5));
    }

    @Test
    void differentSeeds_giveDifferentDraws() {
        assertThat(SharedRandomness.tokenWord(1, 0)).isNotEqualTo(SharedRandomness.tokenWord(2, 0));
        assertThat(SharedRandomness.tokenWord(1, 0)).isNotEqualTo(SharedRandomness.tokenWord(1, 1));
    }

    @Test
    void version_isOne() {
        assertThat(SharedRandomness.VERSION).isEqualTo(1);
        assertThat(StepRandomness.forStep(0, 1).version()).isEqualTo(SharedRandomness.VERSION);
    }
}
