package org.hotpate.core.randomness;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNonNegative;
import static org.hotpate.core.util.Preconditions.checkNotNull;

/**
 * The shared randomness of one generation step, precomputed for the vote hot path: a table of u_j ~
 * Exp(1) and of 1/u_j for tokens {@code 0..tableSize-1} (one Philox block per four tokens, built
 * once per step), so a coordinated vote is a lookup, a multiply and a compare per listed token
 * instead of a hash and a logarithm. Tokens at or beyond the table size are computed on the fly
 * with the same function, so the table is only a cache: the values never depend on its size.
 *
 * <p>Also gives each teacher's own draws (residual competitor, independent uniform), which are
 * keyed by the teacher key and never shared.
 *
 * <p>Immutable and thread-safe (the Gumbel table and the block maxima are built lazily,
 * idempotently). Public and data-independent: never use it for DP noise.
 */
public final class StepRandomness {
    private static final int BLOCK_BITS = 6; // 64 tokens per block: ~2 000 maxima at 128k tokens
    private final long stepSeed;
    private final int firstToken; // the table holds tokens firstToken..firstToken+exp.length-1
    private final double[] exp; // u_j at index j - firstToken
    private final double[] invExp; // 1 / u_j
    // Range maxima of 1/u_j over 64-token blocks, built on first use (model-side votes only):
    // level L holds the maximum over blocks b..b+2^L-1, so a range is two reads (a sparse table).
    private volatile double[][] blockMaxInvExp;
    private volatile double[] gumbel; // -ln u_j, built on first use (top-k logits)

    private StepRandomness(long stepSeed, int firstToken, double[] exp) {
        this.stepSeed = stepSeed;
        this.firstToken = firstToken;
        this.exp = exp;
        this.invExp = new double[exp.length];
        for (int j = 0; j < exp.length; j++) {
            invExp[j] = 1.0 / exp[j];
        }
    }

    /**
     * The randomness of the step with public seed {@code stepSeed}, with a table for tokens {@code
     * 0..vocabularySize-1} (building it costs about 1 ms for 128k tokens).
     */
    public static StepRandomness forStep(long stepSeed, int vocabularySize) {
        checkNonNegative("vocabularySize", vocabularySize);
        return forTokens(stepSeed, 0, vocabularySize);
    }

    /**
     * The same randomness as {@link #forStep} with the table over tokens {@code from..to-1} only:
     * for a voter whose distributions list only those ids (a model-side worker need not draw a 128k
     * table to read a thousand entries). Every value is the same function of the token.
     */
    public static StepRandomness forTokens(long stepSeed, int from, int to) {
        checkNonNegative("from", from);
        checkArgument(to >= from, "to must be >= from; got " + to + " < " + from);
        double[] u = new double[to - from];
        long[] block = new long[4];
        for (int base = from & ~3; base < to; base += 4) {
            Philox4x64.block(base >>> 2, SharedRandomness.DOMAIN_TOKEN, 0, 0, stepSeed, 0, block);
            for (int lane = Math.max(0, from - base); lane < 4 && base + lane < to; lane++) {
                u[base + lane - from] = SharedRandomness.toExp1(block[lane]);
            }
        }
        return new StepRandomness(stepSeed, from, u);
    }

    /**
     * A step whose token draws are the given u_j (tokens {@code 0..u.length-1}; beyond that the
     * generator of {@code stepSeed}). For cross-checks against other specifications' vectors (e.g.
     * PRIVACY.md §1.4) — production code uses {@link #forStep}.
     */
    public static StepRandomness fromExponentials(long stepSeed, double[] u) {
        checkNotNull("u", u);
        for (double x : u) {
            checkArgument(x > 0 && Double.isFinite(x), "u must be > 0 and finite; got " + x);
        }
        return new StepRandomness(stepSeed, 0, u.clone());
    }

    /** The public step seed (the Philox key word k0). */
    public long stepSeed() {
        return stepSeed;
    }

    /** The version of the generator spec ({@link SharedRandomness#VERSION}). */
    public int version() {
        return SharedRandomness.VERSION;
    }

    /** Number of tokens held in the table (from {@link #firstToken}). */
    public int tableSize() {
        return exp.length;
    }

    /** The first token held in the table (0 for {@link #forStep}). */
    public int firstToken() {
        return firstToken;
    }

    /** u_j ~ Exp(1) of token j. */
    public double exp1(int token) {
        int i = token - firstToken;
        return i >= 0 && i < exp.length ? exp[i] : SharedRandomness.tokenExp1(stepSeed, token);
    }

    /** 1/u_j: the hot-path form (vote = argmax p_j · (1/u_j)). */
    public double invExp1(int token) {
        int i = token - firstToken;
        return i >= 0 && i < invExp.length
                ? invExp[i]
                : 1.0 / SharedRandomness.tokenExp1(stepSeed, token);
    }

    /**
     * An upper bound on 1/u_j over the tokens {@code from..to} (inclusive): the maximum over the
     * table's 64-token blocks (counted from {@link #firstToken}) that meet the range, so it is at
     * least every {@link #invExp1} there (exactly their maximum when the range is whole blocks). +∞
     * when the range leaves the table (no bound) or is empty. Two reads after a once-per-step build
     * of ~2 000·11 maxima at 128k tokens. Lets a vote over probabilities in decreasing order stop
     * early ({@code RankedProbabilities}).
     */
    public double maxInvExp1(int from, int to) {
        if (from < firstToken || to - firstToken >= invExp.length || from > to) {
            return Double.POSITIVE_INFINITY;
        }
        double[][] levels = blockMaxima();
        int a = (from - firstToken) >>> BLOCK_BITS;
        int b = (to - firstToken) >>> BLOCK_BITS;
        int level = 31 - Integer.numberOfLeadingZeros(b - a + 1);
        return Math.max(levels[level][a], levels[level][b - (1 << level) + 1]);
    }

    private double[][] blockMaxima() {
        double[][] levels = blockMaxInvExp;
        if (levels != null) {
            return levels;
        }
        int blocks = (invExp.length + (1 << BLOCK_BITS) - 1) >>> BLOCK_BITS;
        levels = new double[32 - Integer.numberOfLeadingZeros(Math.max(1, blocks))][];
        levels[0] = new double[blocks];
        for (int b = 0; b < blocks; b++) {
            double m = 0;
            for (int j = b << BLOCK_BITS, end = Math.min(invExp.length, j + (1 << BLOCK_BITS));
                    j < end;
                    j++) {
                m = Math.max(m, invExp[j]);
            }
            levels[0][b] = m;
        }
        for (int l = 1; l < levels.length; l++) {
            double[] prev = levels[l - 1];
            int half = 1 << (l - 1);
            levels[l] = new double[blocks - (1 << l) + 1];
            for (int b = 0; b < levels[l].length; b++) {
                levels[l][b] = Math.max(prev[b], prev[b + half]);
            }
        }
        blockMaxInvExp = levels; // idempotent: a racing thread builds the same maxima
        return levels;
    }

    /** G_j = −ln u_j, standard Gumbel: the log-space form (vote = argmax ln p_j + G_j). */
    public double gumbel(int token) {
        double[] g = gumbel;
        if (g == null) {
            g = new double[exp.length];
            for (int j = 0; j < g.length; j++) {
                g[j] = -Math.log(exp[j]);
            }
            gumbel = g;
        }
        int i = token - firstToken;
        return i >= 0 && i < g.length
                ? g[i]
                : -Math.log(SharedRandomness.tokenExp1(stepSeed, token));
    }

    /** The teacher's own Exp(1) draw for its residual (abstain) competitor; never shared. */
    public double residualExp1(long teacherKey) {
        return SharedRandomness.toExp1(
                SharedRandomness.teacherWord(
                        stepSeed, SharedRandomness.DOMAIN_RESIDUAL, teacherKey));
    }

    /** The teacher's own uniform in (0, 1) for independent (cold PATE) sampling. */
    public double independentUniform(long teacherKey) {
        return SharedRandomness.toUniform(
                SharedRandomness.teacherWord(
                        stepSeed, SharedRandomness.DOMAIN_INDEPENDENT, teacherKey));
    }
}
