package org.hotpate.core.accounting;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.core.util.Sha256;
import org.hotpate.core.vote.VoteHistogram;

/**
 * The public per-step randomness of the per-teacher charging schemes (PRIVACY.md §A.6): the
 * sampling rate ν, the tested token v and one inclusion coin b_i ~ Bernoulli(ν) per teacher
 * identity i (whether or not the teacher is present). Independent of the private data, so it may be
 * published; it is NOT DP noise (that comes from a secret source).
 *
 * <p>PRF {@value #VERSION}, byte-exact: U(label, index) takes the first 8 bytes of SHA-256(
 * ASCII("hotpate/charging/v2") ‖ 0x00 ‖ ASCII(label) ‖ 0x00 ‖ BE64(stepSeed) ‖ BE64(index) ) as an
 * unsigned big-endian integer X and returns U = ((X ⋙ 12) + 0.5)·2⁻⁵² — the top 52 bits, centred,
 * so U ∈ [2⁻⁵³, 1 − 2⁻⁵³] is exact in a double and never 0 or 1 (PRIVACY.md §1.4, corrected).
 * Version 1 used ((X ⋙ 11) + 0.5)·2⁻⁵³, which rounds to exactly 1.0 for X = 2⁶⁴ − 1; v2 changes
 * that mapping and the domain tag, so every value differs from v1.
 *
 * <p>Derivations: b_i = [U("include", i) &lt; ν]; the paper's variant ({@link #derive}) draws ν =
 * 1/n + (1 − 1/n)·U("nu", 0) and v = ⌊U("token", 0)·|V|⌋ (uniform over V); the job's variant
 * ({@link #forStep}) uses a fixed rate ν = {@code sample-rate} and a tested token proposed either
 * uniformly ({@link #uniformToken}) or by a public model ({@link #publicModelToken}).
 *
 * <p><b>Why a public-model proposal keeps the proofs intact.</b> Scheme A's Theorem 2 and Scheme
 * B's Feldman–Zrnic filter hold conditionally on every fixed value of the public randomness (ρ, ν,
 * v, the coins), provided that randomness is independent of the private data. The public model's
 * coordinated vote under the step's public seed is a function of the public model, the public
 * prefix and ρ only, so it is such a value. That it correlates with the teachers' votes (they share
 * ρ) is the point — v is then the token agreeing teachers vote for, where a uniform v over 100 000
 * tokens almost never matches a vote — and costs nothing: which teachers are involved is still a
 * function of each teacher's own vote and public randomness. The public model must not have seen
 * the private data.
 */
public final class PublicChargingRandomness {
    public static final String VERSION = "hotpate-charging-prf-v2";
    private static final byte[] DOMAIN = "hotpate/charging/v2".getBytes(StandardCharsets.US_ASCII);
    private static final String PUBLIC_MODEL_KEY = "public-model";

    private final long stepSeed;
    private final double nu;
    private final int token;

    private PublicChargingRandomness(long stepSeed, double nu, int token) {
        this.stepSeed = stepSeed;
        this.nu = nu;
        this.token = token;
    }

    /**
     * The paper's variant (Hot PATE Section F): ν ~ U[1/n, 1] and v uniform over V, both from the
     * PRF; n is the fixed public ensemble size.
     */
    public static PublicChargingRandomness derive(
            long stepSeed, int ensembleSize, int vocabularySize) {
        checkPositive("ensembleSize", ensembleSize);
        double n = ensembleSize;
        double nu = 1 / n + (1 - 1 / n) * uniform(stepSeed, "nu", 0);
        return new PublicChargingRandomness(stepSeed, nu, uniformToken(stepSeed, vocabularySize));
    }

    /**
     * The job's variant: a fixed inclusion rate ν = {@code sampleRate} ∈ (0, 1] and a tested token
     * proposed by {@link #uniformToken} or {@link #publicModelToken}.
     */
    public static PublicChargingRandomness forStep(
            long stepSeed, double sampleRate, int testedToken) {
        checkArgument(
                sampleRate > 0 && sampleRate <= 1,
                "sampleRate must be in (0, 1]; got " + sampleRate);
        checkArgument(testedToken >= 0, "testedToken must be >= 0; got " + testedToken);
        return new PublicChargingRandomness(stepSeed, sampleRate, testedToken);
    }

    /** Fixed values, for tests and for replaying published randomness. */
    public static PublicChargingRandomness of(long stepSeed, double nu, int token) {
        checkArgument(nu > 0 && nu <= 1, "nu must be in (0, 1]; got " + nu);
        checkArgument(token >= 0, "token must be >= 0; got " + token);
        return new PublicChargingRandomness(stepSeed, nu, token);
    }

    /** The paper's tested token: ⌊U("token", 0)·|V|⌋, uniform over V up to |V|·2⁻⁵². */
    public static int uniformToken(long stepSeed, int vocabularySize) {
        checkPositive("vocabularySize", vocabularySize);
        return (int)
                Math.min(
                        vocabularySize - 1,
                        Math.floor(uniform(stepSeed, "token", 0) * vocabularySize));
    }

    /**
     * A tested token proposed by a public model: its coordinated vote (Hot PATE Algorithm 1) under
     * the step's public randomness, with teacher key {@code
     * SeedDerivation.teacherKey("public-model")}; if the public model abstains (residual mass), the
     * uniform token. Data-independent: see the class Javadoc. {@code step} is the step's shared
     * randomness (the teachers' table).
     */
    public static int publicModelToken(
            TeacherDistribution publicModel, StepRandomness step, int vocabularySize) {
        checkNotNull("publicModel", publicModel);
        checkNotNull("step", step);
        checkPositive("vocabularySize", vocabularySize);
        int t =
                Samplers.coordinated()
                        .vote(publicModel, step, SeedDerivation.teacherKey(PUBLIC_MODEL_KEY));
        if (t == VoteHistogram.ABSTAIN || t >= vocabularySize) {
            return uniformToken(step.stepSeed(), vocabularySize);
        }
        return t;
    }

    /** The PRF: a uniform double in (0, 1) from (stepSeed, label, index). */
    public static double uniform(long stepSeed, String label, long index) {
        checkNotNull("label", label);
        MessageDigest sha = Sha256.threadDigest();
        sha.update(DOMAIN);
        sha.update((byte) 0);
        sha.update(label.getBytes(StandardCharsets.US_ASCII));
        sha.update((byte) 0);
        sha.update(ByteBuffer.allocate(16).putLong(stepSeed).putLong(index).array());
        return toUniform(ByteBuffer.wrap(sha.digest(), 0, 8).getLong());
    }

    /**
     * The top 52 bits of x, centred: ((x ⋙ 12) + 0.5)·2⁻⁵² ∈ [2⁻⁵³, 1 − 2⁻⁵³], never 0 or 1 (with
     * 53 bits the largest value would need 54 significant bits and round to 1.0).
     */
    public static double toUniform(long x) {
        return ((x >>> 12) + 0.5) * 0x1.0p-52;
    }

    /** The inclusion coin b_i of teacher identity i. */
    public boolean included(long teacher) {
        checkArgument(teacher >= 0, "teacher must be >= 0; got " + teacher);
        return uniform(stepSeed, "include", teacher) < nu;
    }

    public double nu() {
        return nu;
    }

    public int token() {
        return token;
    }

    public long stepSeed() {
        return stepSeed;
    }
}
