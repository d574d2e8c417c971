package org.hotpate.core.prior;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;
import static org.hotpate.core.util.Preconditions.checkProbability;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hotpate.core.noise.DiscreteGaussian;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;

/**
 * User-level DP n-gram extraction (Kim, Gopi, Kulkarni &amp; Yekhanin, <i>Differentially Private
 * n-gram Extraction</i>, NeurIPS 2021), in the form hotpate uses for a <b>population prior</b>: a
 * table of the n-grams many users share, released once under the run's budget, after which it is
 * public and every teacher may back off to it at no further cost (docs/privacy-efficiency.md §5).
 *
 * <p>Level by level, ℓ = 1 … {@code maxLength}: an ℓ-gram of a record is ℓ consecutive tokens of
 * the record framed as the n-gram teachers frame it (order − 1 begin markers {@link #BOS}, the
 * tokens, the end-of-text token; the last element is never BOS). It is a <i>candidate</i> if its
 * first ℓ − 1 elements were released at level ℓ − 1 (or are all BOS). Each user keeps at most
 * {@code perUser} distinct candidates (chosen uniformly at random from the secure source when it
 * has more), each counted once: the count of an ℓ-gram is the number of users who kept it. Every
 * ℓ-gram with a positive count gets discrete Gaussian noise N_ℤ(0, σ²) and is released, with its
 * noisy count, iff that is ≥ the threshold ρ.
 *
 * <p><b>Guarantee, under the system's relation (replace one user's data, n public).</b> Fix
 * neighbours D, D′ that differ in user u's records (S_u → S′_u at each level, |S_u|, |S′_u| ≤ k).
 * Let M* be the same mechanism except that at each level it noises every ℓ-gram with a positive
 * count in D <i>or</i> D′ (a domain fixed by the pair and the lower levels' released output). Per
 * level the count vector moves by 1_{S′_u} − 1_{S_u}: L2 sensitivity √(2k), so M* is the adaptive
 * composition of {@code maxLength} discrete Gaussian mechanisms, rdp(α) = maxLength · α·2k/(2σ²)
 * (Canonne, Kamath &amp; Steinke 2020, Thm 14 for the multivariate discrete Gaussian: its
 * correction τ = 10·Σ_{j≥1} e^{−2π²σ²·j/(j+1)} is below 10^−60 per coordinate for σ ≥ {@value
 * #MIN_SIGMA}, so the 2dτ it adds is negligible for any domain of fewer than 10^50 keys), and the
 * threshold is post-processing. M and M* differ only when an ℓ-gram with count 0 in the world at
 * hand (at most k of them per level: S′_u \ S_u) passes the threshold on noise alone, so their
 * total variation is at most η = maxLength · k · Pr[N_ℤ(0, σ²) ≥ ρ] in each world. The whole run R
 * (the prior, then everything computed from it and the data) is then, by the coupling, (ε, δ_R + (1
 * + e^ε)·η)-DP whenever its M*-version is (ε, δ_R)-DP (Pr[R(D) ∈ S] ≤ Pr[R*(D) ∈ S] + η ≤ e^ε
 * (Pr[R(D′) ∈ S] + η) + δ_R + η) — the thresholded-Gaussian argument of Kim et al. §4 and of Gopi
 * et al., <i>DP set union</i> (ICML 2020), written for replace-one here
 * (docs/proofs/dp-ngram-prior.md, checked by exact computation in {@code DpNgramExtractionTest}).
 * {@link #event} therefore charges the Gaussian part as RDP and (1 + e^{ε_cap})·η as a δ term
 * ({@link PrivacyEvent.ApproximateDp}(0, ·)), where ε_cap is the run's budget ε (the run never ends
 * above it).
 *
 * <p>Immutable and validated; the noise is drawn from the {@link UniformSource} given to {@link
 * #extract} — {@code NoiseSources.secure()} in every release, the seeded test seam in tests only.
 */
public final class DpNgramExtraction {
    /** The begin-of-text marker in framed records (never a vocabulary id). */
    public static final int BOS = -1;

    /** The smallest σ accepted (see the class Javadoc: CKS 2020's τ term is then negligible). */
    public static final double MIN_SIGMA = 4.0;

    private final int maxLength;
    private final int perUser;
    private final double sigma;
    private final long threshold;

    /**
     * @param maxLength the longest n-gram (and the prior's order), in [1, 8]
     * @param perUser k, the most distinct candidates a user keeps per level
     * @param sigma the noise σ of every level, ≥ {@value #MIN_SIGMA}
     * @param threshold ρ, the least noisy count released, ≥ 1
     */
    public DpNgramExtraction(int maxLength, int perUser, double sigma, long threshold) {
        checkArgument(
                maxLength >= 1 && maxLength <= 8,
                "prior max length must be in [1, 8]; got " + maxLength);
        checkPositive("prior per-user n-grams", perUser);
        checkArgument(
                sigma >= MIN_SIGMA && Double.isFinite(sigma),
                "prior sigma must be >= " + MIN_SIGMA + " and finite; got " + sigma);
        checkArgument(threshold >= 1, "prior threshold must be >= 1; got " + threshold);
        this.maxLength = maxLength;
        this.perUser = perUser;
        this.sigma = sigma;
        this.threshold = threshold;
    }

    /**
     * The parameters that spend {@code rdpShare} at {@code order} (σ² = order · maxLength · k /
     * rdpShare) and whose threshold keeps the δ term (1 + e^{epsilonCap})·η at or below {@code
     * deltaShare}: ρ is the smallest integer that does. All inputs are public.
     */
    public static DpNgramExtraction plan(
            int maxLength,
            int perUser,
            double order,
            double rdpShare,
            double epsilonCap,
            double deltaShare) {
        checkArgument(order > 1 && Double.isFinite(order), "order must be > 1; got " + order);
        checkPositive("rdpShare", rdpShare);
        checkProbability("deltaShare", deltaShare);
        checkPositive("deltaShare", deltaShare);
        double sigma = Math.max(MIN_SIGMA, Math.sqrt(order * maxLength * perUser / rdpShare));
        double factor = (1 + Math.exp(epsilonCap)) * maxLength * perUser;
        long rho = 1;
        while (factor * upperTail(sigma, rho) > deltaShare) {
            rho++;
        }
        return new DpNgramExtraction(maxLength, perUser, sigma, rho);
    }

    public int maxLength() {
        return maxLength;
    }

    public int perUser() {
        return perUser;
    }

    public double sigma() {
        return sigma;
    }

    public long threshold() {
        return threshold;
    }

    /** η: the chance, in one world, that some n-gram nobody kept there passes the threshold. */
    public double thresholdSlack() {
        return maxLength * (double) perUser * upperTail(sigma, threshold);
    }

    /**
     * What the release costs, for a run whose budget ε is {@code epsilonCap}: the levels' discrete
     * Gaussians (L2 sensitivity √(2k) each, replace-one) and the δ term (1 + e^ε)·η.
     */
    public PrivacyEvent event(double epsilonCap) {
        List<PrivacyEvent> parts = new ArrayList<>(gaussians());
        parts.add(new PrivacyEvent.ApproximateDp(0, couplingDelta(epsilonCap, thresholdSlack())));
        return new PrivacyEvent.Composed(parts);
    }

    /** The RDP part of {@link #event}: one discrete Gaussian per level (M*, step 1). */
    public List<PrivacyEvent> gaussians() {
        List<PrivacyEvent> parts = new ArrayList<>();
        for (int l = 0; l < maxLength; l++) {
            parts.add(new PrivacyEvent.DiscreteGaussian(sigma, Math.sqrt(2.0 * perUser)));
        }
        return parts;
    }

    /**
     * The coupling's δ term for priors whose η sum to {@code slack}, under a claim of ε: (1 +
     * e^ε)·Σ η, at most 1 (docs/proofs/dp-ngram-prior.md, step 3 and "Across runs"). The ε must be
     * the one claimed for everything the priors' data is in — a run's, or its dataset's over every
     * run.
     */
    public static double couplingDelta(double epsilon, double slack) {
        checkArgument(slack >= 0, "slack must be >= 0; got " + slack);
        if (slack == 0) {
            return 0;
        }
        return Math.min(1, (1 + Math.exp(epsilon)) * slack);
    }

    /** Pr[N_ℤ(0, σ²) ≥ x], summed exactly far enough that the rest is below 10^−300. */
    static double upperTail(double sigma, long x) {
        checkArgument(x >= 1, "tail start must be >= 1; got " + x);
        double s2 = sigma * sigma;
        double sum = 0;
        for (long k = (long) Math.ceil(60 * sigma) + 1; k >= x; k--) { // small terms first
            sum += Math.exp(-(double) k * k / (2 * s2));
        }
        return Math.min(1, sum / DiscreteGaussian.normalizingConstant(s2)); // Z once, not per term
    }

    /** An n-gram: its elements (BOS only in front) — a value for hash maps. */
    public record Gram(int[] elements) {
        public Gram {
            elements = elements.clone();
        }

        public int length() {
            return elements.length;
        }

        /** The first length − 1 elements. */
        public Gram prefix() {
            return new Gram(Arrays.copyOf(elements, elements.length - 1));
        }

        public int last() {
            return elements[elements.length - 1];
        }

        boolean allBos() {
            for (int e : elements) {
                if (e != BOS) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Gram g && Arrays.equals(g.elements, elements);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(elements);
        }

        @Override
        public String toString() {
            return Arrays.toString(elements);
        }
    }

    /** The released table: per level (index ℓ − 1), each released ℓ-gram and its noisy count. */
    public record Released(List<Map<Gram, Long>> levels) {
        public Released {
            levels = List.copyOf(levels);
        }

        public int released() {
            return levels.stream().mapToInt(Map::size).sum();
        }
    }

    /**
     * Runs the extraction over {@code users} (each user: its records' token sequences, without
     * framing; {@code endOfText} ends each) with noise from {@code noise}.
     */
    public Released extract(List<List<int[]>> users, int endOfText, UniformSource noise) {
        checkNotNull("users", users);
        checkNotNull("noise", noise);
        DiscreteGaussian g = DiscreteGaussian.withSigma(sigma);
        UniformSource src = noise.forCurrentThread();
        List<List<Gram>> framed = new ArrayList<>();
        for (List<int[]> records : users) {
            framed.add(grams(records, endOfText));
        }
        List<Map<Gram, Long>> levels = new ArrayList<>();
        Map<Gram, Long> previous = Map.of();
        for (int l = 1; l <= maxLength; l++) {
            Map<Gram, Long> counts = new HashMap<>();
            for (List<Gram> userGrams : framed) {
                for (Gram c : keep(candidates(userGrams, l, previous), src)) {
                    counts.merge(c, 1L, Long::sum);
                }
            }
            Map<Gram, Long> released = new HashMap<>();
            for (Map.Entry<Gram, Long> e : counts.entrySet()) {
                long noisy = e.getValue() + g.sample(src);
                if (noisy >= threshold) {
                    released.put(e.getKey(), noisy);
                }
            }
            levels.add(released);
            previous = released;
        }
        return new Released(levels);
    }

    /** Every n-gram (lengths 1..maxLength) of a user's framed records, as a list. */
    private List<Gram> grams(List<int[]> records, int endOfText) {
        List<Gram> out = new ArrayList<>();
        for (int[] tokens : records) {
            int[] framed = new int[maxLength - 1 + tokens.length + 1];
            Arrays.fill(framed, 0, maxLength - 1, BOS);
            System.arraycopy(tokens, 0, framed, maxLength - 1, tokens.length);
            framed[framed.length - 1] = endOfText;
            for (int i = maxLength - 1; i < framed.length; i++) {
                for (int l = 1; l <= maxLength; l++) {
                    out.add(new Gram(Arrays.copyOfRange(framed, i - l + 1, i + 1)));
                }
            }
        }
        return out;
    }

    /** A user's distinct level-l grams whose prefix was released (or is all BOS). */
    private static List<Gram> candidates(List<Gram> grams, int l, Map<Gram, Long> previous) {
        Set<Gram> c = new LinkedHashSet<>();
        for (Gram x : grams) {
            if (x.length() == l) {
                Gram p = x.prefix();
                if (l == 1 || p.allBos() || previous.containsKey(p)) {
                    c.add(x);
                }
            }
        }
        return new ArrayList<>(c);
    }

    /** At most k of {@code c}, uniformly at random (a partial Fisher–Yates shuffle). */
    private List<Gram> keep(List<Gram> c, UniformSource src) {
        if (c.size() <= perUser) {
            return c;
        }
        for (int i = 0; i < perUser; i++) {
            int j = i + (int) src.nextLong(c.size() - i);
            Gram t = c.get(i);
            c.set(i, c.get(j));
            c.set(j, t);
        }
        return c.subList(0, perUser);
    }
}
