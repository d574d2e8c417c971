package org.hotpate.core.sampling;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.util.Arrays;
import java.util.OptionalDouble;

/**
 * One teacher's next-token distribution at one step, in one of the forms a teacher can send. Every
 * form is validated at construction; the unlisted residual mass {@code 1 − Σp} means "abstain" and
 * never coordinates across teachers.
 */
public sealed interface TeacherDistribution {
    /** Tolerance on total mass: Σp ≤ 1 + MASS_TOLERANCE. */
    double MASS_TOLERANCE = 1e-9;

    /** Total probability on listed tokens (the rest abstains), in [0, 1 + MASS_TOLERANCE]. */
    double listedMass();

    /**
     * The same law as sparse probabilities over the tokens with p > 0, in listed order (dense:
     * ascending token id). Zero entries are dropped: they never receive a vote.
     */
    default SparseProbabilities toSparseProbabilities() {
        if (this instanceof SparseProbabilities s) {
            return SparseProbabilities.ofNonZero(s.tokens, s.probs);
        }
        if (this instanceof TopKLogits k) {
            return SparseProbabilities.ofNonZero(k.tokens, k.probabilities());
        }
        double[] probs = ((Dense) this).probs;
        int[] ids = new int[probs.length];
        for (int j = 0; j < ids.length; j++) {
            ids[j] = j;
        }
        return SparseProbabilities.ofNonZero(ids, probs);
    }

    /**
     * Sparse probabilities: {@code probs[i]} on token {@code tokens[i]}. Tokens distinct and ≥ 0;
     * probabilities finite and ≥ 0; sum ≤ 1 + 1e-9.
     */
    final class SparseProbabilities implements TeacherDistribution {
        private final int[] tokens;
        private final double[] probs;
        // Σp summed in listed order, as the vote kernel would: kept so that the kernel's hot loop
        // carries no floating-point add chain (bit-identical to summing there).
        private final double listedMass;

        public SparseProbabilities(int[] tokens, double[] probs) {
            checkNotNull("tokens", tokens);
            checkNotNull("probs", probs);
            checkArgument(
                    tokens.length == probs.length,
                    "tokens and probs must have the same length; got "
                            + tokens.length
                            + " and "
                            + probs.length);
            this.tokens = tokens.clone();
            this.probs = probs.clone();
            checkDistinctNonNegative(this.tokens);
            this.listedMass = checkMass(this.probs);
        }

        /** Sparse probabilities keeping only the entries with p > 0, in the given order. */
        public static SparseProbabilities ofNonZero(int[] tokens, double[] probs) {
            checkArgument(
                    tokens.length == probs.length,
                    "tokens and probs must have the same length; got "
                            + tokens.length
                            + " and "
                            + probs.length);
            int nz = 0;
            for (double q : probs) {
                nz += q > 0 ? 1 : 0;
            }
            int[] t = new int[nz];
            double[] q = new double[nz];
            int x = 0;
            for (int i = 0; i < probs.length; i++) {
                if (probs[i] > 0) {
                    t[x] = tokens[i];
                    q[x++] = probs[i];
                }
            }
            return new SparseProbabilities(t, q);
        }

        /** The listed token ids (a copy). */
        public int[] tokens() {
            return tokens.clone();
        }

        /** The listed probabilities (a copy). */
        public double[] probs() {
            return probs.clone();
        }

        /** Number of listed tokens. */
        public int size() {
            return tokens.length;
        }

        /** Token at position i (no copy). */
        public int tokenAt(int i) {
            return tokens[i];
        }

        /** Probability at position i (no copy). */
        public double probAt(int i) {
            return probs[i];
        }

        @Override
        public double listedMass() {
            return listedMass;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SparseProbabilities s
                    && Arrays.equals(s.tokens, tokens)
                    && Arrays.equals(s.probs, probs);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(tokens) + Arrays.hashCode(probs);
        }

        @Override
        public String toString() {
            return "SparseProbabilities" + Arrays.toString(tokens) + Arrays.toString(probs);
        }
    }

    /**
     * Top-k logits with a temperature: p_j = exp(w_j / t − logZ). With {@code logNormalizer}
     * present it is logZ (the normaliser over the full vocabulary, so the unlisted tail abstains);
     * without it logZ = logsumexp(w/t) over the listed tokens (mass 1 on the top k).
     */
    record TopKLogits(
            int[] tokens, double[] logits, double temperature, OptionalDouble logNormalizer)
            implements TeacherDistribution {
        public TopKLogits {
            checkNotNull("tokens", tokens);
            checkNotNull("logits", logits);
            checkNotNull("logNormalizer", logNormalizer);
            checkArgument(
                    tokens.length == logits.length,
                    "tokens and logits must have the same length; got "
                            + tokens.length
                            + " and "
                            + logits.length);
            tokens = tokens.clone();
            logits = logits.clone();
            checkPositive("temperature", temperature);
            checkDistinctNonNegative(tokens);
            for (double w : logits) {
                if (Double.isNaN(w) || w == Double.POSITIVE_INFINITY) {
                    throw new IllegalArgumentException(
                            "logits must be finite or -Infinity; got " + w);
                }
            }
            if (logNormalizer.isPresent()) {
                double z = logNormalizer.getAsDouble();
                checkArgument(Double.isFinite(z), "logNormalizer must be finite; got " + z);
                double mass = 0;
                for (double w : logits) {
                    mass += Math.exp(w / temperature - z);
                }
                checkArgument(
                        mass <= 1 + MASS_TOLERANCE,
                        "probabilities must sum to <= 1; got "
                                + mass
                                + " (logNormalizer too small)");
            }
        }

        @Override
        public int[] tokens() {
            return tokens.clone();
        }

        @Override
        public double[] logits() {
            return logits.clone();
        }

        /** Number of listed tokens. */
        public int size() {
            return tokens.length;
        }

        /** Token at position i (no copy). */
        public int tokenAt(int i) {
            return tokens[i];
        }

        /** Logit at position i (no copy). */
        public double logitAt(int i) {
            return logits[i];
        }

        /** The log-normaliser in use: the given one, or logsumexp(w/t) over the listed tokens. */
        public double effectiveLogNormalizer() {
            if (logNormalizer.isPresent()) {
                return logNormalizer.getAsDouble();
            }
            double m = Double.NEGATIVE_INFINITY;
            for (double w : logits) {
                m = Math.max(m, w / temperature);
            }
            if (m == Double.NEGATIVE_INFINITY) {
                return 0;
            }
            double s = 0;
            for (double w : logits) {
                s += Math.exp(w / temperature - m);
            }
            return m + Math.log(s);
        }

        /** The probabilities these logits stand for, aligned with {@link #tokens()}. */
        public double[] probabilities() {
            double z = effectiveLogNormalizer();
            double[] p = new double[logits.length];
            for (int i = 0; i < p.length; i++) {
                p[i] = Math.exp(logits[i] / temperature - z);
            }
            return p;
        }

        @Override
        public double listedMass() {
            return logits.length == 0 ? 0 : sum(probabilities());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof TopKLogits s
                    && Arrays.equals(s.tokens, tokens)
                    && Arrays.equals(s.logits, logits)
                    && s.temperature == temperature
                    && s.logNormalizer.equals(logNormalizer);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * Arrays.hashCode(tokens) + Arrays.hashCode(logits))
                    + Double.hashCode(temperature);
        }

        @Override
        public String toString() {
            return "TopKLogits"
                    + Arrays.toString(tokens)
                    + Arrays.toString(logits)
                    + "/t="
                    + temperature;
        }
    }

    /** A dense full-vocabulary array: {@code probs[j]} on token j. */
    record Dense(double[] probs) implements TeacherDistribution {
        public Dense {
            checkNotNull("probs", probs);
            probs = probs.clone();
            checkMass(probs);
        }

        @Override
        public double[] probs() {
            return probs.clone();
        }

        /** Vocabulary size. */
        public int size() {
            return probs.length;
        }

        /** Probability of token j (no copy). */
        public double probAt(int j) {
            return probs[j];
        }

        @Override
        public double listedMass() {
            return sum(probs);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Dense d && Arrays.equals(d.probs, probs);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(probs);
        }

        @Override
        public String toString() {
            return "Dense(" + probs.length + " tokens)";
        }
    }

    private static void checkDistinctNonNegative(int[] tokens) {
        // Fast path (no boxing): strictly ascending non-negative ids are distinct.
        boolean ascending = tokens.length == 0 || tokens[0] >= 0;
        for (int i = 1; ascending && i < tokens.length; i++) {
            ascending = tokens[i] > tokens[i - 1];
        }
        if (ascending) {
            return;
        }
        // Otherwise (e.g. tokens ordered by probability, as every n-gram teacher's answer): an
        // open-addressing set, linear — the sorted copy it replaced was ~2 % of a records run's
        // samples (docs/performance.md, issue 38). Messages built only on failure.
        for (int t : tokens) {
            if (t < 0) {
                throw new IllegalArgumentException("token ids must be >= 0; got " + t);
            }
        }
        int size = Integer.highestOneBit(tokens.length) << 2; // load <= 1/2; -1 marks empty
        int[] seen = new int[size];
        java.util.Arrays.fill(seen, -1);
        int shift = 32 - Integer.numberOfTrailingZeros(size);
        for (int t : tokens) {
            int slot = (t * 0x9E3779B9) >>> shift;
            while (seen[slot] >= 0) {
                if (seen[slot] == t) {
                    throw new IllegalArgumentException("duplicate token " + t);
                }
                slot = (slot + 1) & (size - 1);
            }
            seen[slot] = t;
        }
    }

    /** Validates and returns Σp (summed in index order). */
    private static double checkMass(double[] probs) {
        double total = 0;
        for (int i = 0; i < probs.length; i++) {
            double p = probs[i];
            // Messages built only on failure: eager Double.toString per entry dominated
            // construction.
            if (!Double.isFinite(p)) {
                throw new IllegalArgumentException(
                        "probabilities must be finite; got " + p + " at position " + i);
            }
            if (p < 0) {
                throw new IllegalArgumentException(
                        "probabilities must be >= 0; got " + p + " at position " + i);
            }
            total += p;
        }
        checkArgument(total <= 1 + MASS_TOLERANCE, "probabilities must sum to <= 1; got " + total);
        return total;
    }

    private static double sum(double[] a) {
        double s = 0;
        for (double v : a) {
            s += v;
        }
        return s;
    }
}
