package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkOpenUnit;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import java.util.OptionalDouble;
import org.hotpate.core.noise.ExactSampling;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.vote.VoteHistogram;

/**
 * Hot PATE for heterogeneous ensembles (papers/hot-pate.txt Algorithm 3, App. D.2; PRIVACY.md
 * §2.3–2.4) with DP weighted sampling ("DP method 1"): every token j with count c_j is kept
 * independently with probability π(c_j) from {@link PrivateWeightedSampling} (the code-verified
 * recursion of PRIVACY.md §A.5, run per key at <b>ε/2, δ/2</b>); the release is a uniformly random
 * kept token, or ⊥ if none was kept. Zero-count tokens are never kept (π(0) = 0), so one pass over
 * the sparse histogram suffices.
 *
 * <p>Optional {@code sampleSize} k: the cap p_samp(w) = min(1, k·w/n) of priority sampling, i.e.
 * the "include each token with probability min{1, k·c_j/n}" of the Lemma 4 proof. Without it p_samp
 * ≡ 1: tokens with c_j ≥ {@link #certainCount()} are always kept.
 *
 * <p><b>Guarantee: (ε, δ)-DP per release</b> [DERIVED], neighbouring relation replace one teacher's
 * data with n fixed and public (PRIVACY.md §0). Proof: replacing one teacher moves at most one
 * vote, so at most two keys change their count, each by 1 (one −1, one +1). Each key's keep
 * decision is an independent Bernoulli(π(c)) and, by the per-key constraints of π ({@link
 * PrivateWeightedSampling}), (ε/2, δ/2)-indistinguishable between c and c ± 1 in both directions;
 * every other key's decision has the same law in both worlds. Basic composition over the two
 * changed keys makes the kept set (ε, δ)-DP, and the uniform choice among kept tokens is
 * post-processing. Emits {@link PrivacyEvent.ApproximateDp}(ε, δ).
 *
 * <p>What this does <b>not</b> rest on or provide: the PWS paper's own text (only its abstract was
 * reachable; the recursion is [V-code] from the authors' implementation, PRIVACY.md §A.5, and its
 * per-key constraints are [DERIVED] in §2.4); the paper's sanitized counts c*_j, its "⊥ is nearly
 * free" data-dependent accounting and TCT (§2.6, unverified) — every release, ⊥ included, is
 * charged the full (ε, δ); and the output law is "uniform over kept tokens", which approximates
 * Algorithm 3's "j with probability c_j/n" only through the sampling cap. The
 * diversity-preservation of Lemma 4 is a utility statement, not a privacy one.
 */
public final class HotPateHeterogeneousMechanism implements AggregationMechanism, Serializable {
    private static final long serialVersionUID = 1L;
    public static final String NAME = MechanismRegistry.HOT_PATE_HETEROGENEOUS;

    private final double epsilon;
    private final double delta;
    private final double sampleSize; // 0 = no sampling (OptionalDouble is not Serializable)
    private final int vocabularySize;
    private final int teachers;
    private final PrivateWeightedSampling perKey;
    private final UniformSource random;

    /** Without sampling and with secure randomness. */
    public HotPateHeterogeneousMechanism(
            double epsilon, double delta, int vocabularySize, int teachers) {
        this(
                epsilon,
                delta,
                OptionalDouble.empty(),
                vocabularySize,
                teachers,
                NoiseSources.secure());
    }

    /** General form; {@code sampleSize} (k &gt; 0) enables the priority-sampling cap. */
    public HotPateHeterogeneousMechanism(
            double epsilon,
            double delta,
            OptionalDouble sampleSize,
            int vocabularySize,
            int teachers,
            UniformSource random) {
        this.epsilon = checkPositive("epsilon", epsilon);
        this.delta = checkOpenUnit("delta", delta);
        checkNotNull("sampleSize", sampleSize);
        this.sampleSize = sampleSize.orElse(0);
        this.vocabularySize = checkPositive("vocabularySize", vocabularySize);
        this.teachers = checkPositive("teachers", teachers);
        this.random = checkNotNull("random", random);
        // Two keys change under replace-one: each gets half of the budget.
        this.perKey =
                sampleSize.isPresent()
                        ? PrivateWeightedSampling.withPrioritySampling(
                                epsilon / 2,
                                delta / 2,
                                checkPositive("sample_size", sampleSize.getAsDouble()) / teachers,
                                teachers)
                        : PrivateWeightedSampling.withoutSampling(epsilon / 2, delta / 2, teachers);
    }

    @Override
    public String name() {
        return NAME;
    }

    public double epsilon() {
        return epsilon;
    }

    public double delta() {
        return delta;
    }

    /** The per-key reporting probabilities (at ε/2, δ/2). */
    public PrivateWeightedSampling perKey() {
        return perKey;
    }

    /** The smallest count that is always kept (−1 if none ≤ n is). */
    public int certainCount() {
        return perKey.firstCertainCount();
    }

    @Override
    public Release release(VoteHistogram histogram) {
        NoisyArgmax.checkHistogram(histogram, vocabularySize, teachers);
        UniformSource r = random.forCurrentThread();
        int chosen = -1;
        long kept = 0;
        for (int i = 0; i < histogram.distinctTokens(); i++) {
            if (ExactSampling.bernoulli(perKey.probability(histogram.countAt(i)), r)) {
                kept++;
                if (r.nextLong(kept) == 0) { // reservoir: uniform over kept tokens
                    chosen = histogram.tokenAt(i);
                }
            }
        }
        PrivacyEvent event = worstCaseEvent();
        return chosen < 0 ? Release.fail(event) : Release.token(chosen, event);
    }

    /** Every release, ⊥ included, costs the full (ε, δ). */
    @Override
    public PrivacyEvent worstCaseEvent() {
        return new PrivacyEvent.ApproximateDp(epsilon, delta);
    }

    @Override
    public String toString() {
        return "HotPateHeterogeneous(eps="
                + epsilon
                + ", delta="
                + delta
                + (sampleSize > 0 ? ", k=" + sampleSize : "")
                + ", |V|="
                + vocabularySize
                + ", n="
                + teachers
                + ")";
    }
}
