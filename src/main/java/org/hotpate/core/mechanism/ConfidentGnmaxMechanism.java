package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkFinite;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import org.hotpate.core.noise.DiscreteGaussian;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.vote.VoteHistogram;

/**
 * Confident-GNMax (Papernot et al. 2018 Alg. 1; PRIVACY.md §3.3): if max_j c_j + Z ≥ T with Z ~
 * N_ℤ(0, σ1²), return argmax_j (c_j + Z_j) with Z_j ~ N_ℤ(0, σ2²) on <b>every</b> token of the
 * vocabulary (zero counts included; ties to the smallest id); otherwise return ⊥. The noisy maximum
 * itself is not released.
 *
 * <p><b>Guarantee.</b> Neighbouring relation: replace one teacher's data, n fixed and public
 * (PRIVACY.md §0). The max count has sensitivity 1, so the threshold step is ρ1 = 1/(2σ1²) zCDP
 * (rdp(λ) = λ/(2σ1²)); the argmax step, run only when answered, is GNMax: ρ2 = 1/σ2² (rdp(λ) =
 * λ/σ2²). Their adaptive composition bounds each release. Emits {@link PrivacyEvent.ConfidentGnmax}
 * with the realized {@code answered}, so the accountant charges the argmax step only when it ran
 * (PRIVACY.md §3.3: realized, not expected, outcomes). {@code answered} is itself released (⊥ or a
 * token); a budget filter must admit the step on {@link #worstCaseEvent()} (answered) before it
 * runs, never on the realized outcome.
 *
 * <p>Caller's duties: one vote per teacher per step, n fixed, every release (⊥ included) charged.
 * Noise from {@link NoiseSources#secure()} unless a source is injected.
 */
public final class ConfidentGnmaxMechanism implements AggregationMechanism, Serializable {
    private static final long serialVersionUID = 1L;
    public static final String NAME = MechanismRegistry.CONFIDENT_GNMAX;

    private final double sigma1;
    private final double threshold;
    private final double sigma2;
    private final int vocabularySize;
    private final int teachers;
    private final DiscreteGaussian thresholdNoise;
    private final DiscreteGaussian argmaxNoise;
    private final UniformSource random;

    /** Confident-GNMax with secure noise. */
    public ConfidentGnmaxMechanism(
            double sigma1, double threshold, double sigma2, int vocabularySize, int teachers) {
        this(sigma1, threshold, sigma2, vocabularySize, teachers, NoiseSources.secure());
    }

    /** Confident-GNMax drawing its noise from {@code random}. */
    public ConfidentGnmaxMechanism(
            double sigma1,
            double threshold,
            double sigma2,
            int vocabularySize,
            int teachers,
            UniformSource random) {
        this.sigma1 = checkPositive("sigma1", sigma1);
        this.threshold = checkFinite("threshold", threshold);
        this.sigma2 = checkPositive("sigma2", sigma2);
        this.vocabularySize = checkPositive("vocabularySize", vocabularySize);
        this.teachers = checkPositive("teachers", teachers);
        this.random = checkNotNull("random", random);
        this.thresholdNoise = DiscreteGaussian.withSigma(sigma1);
        this.argmaxNoise = DiscreteGaussian.withSigma(sigma2);
    }

    @Override
    public String name() {
        return NAME;
    }

    public double sigma1() {
        return sigma1;
    }

    public double threshold() {
        return threshold;
    }

    public double sigma2() {
        return sigma2;
    }

    @Override
    public Release release(VoteHistogram histogram) {
        NoisyArgmax.checkHistogram(histogram, vocabularySize, teachers);
        UniformSource r = random.forCurrentThread();
        long noisyMax = histogram.maxCount() + thresholdNoise.sample(r);
        boolean answered = noisyMax >= threshold; // exact: integers below 2^53 compare exactly
        PrivacyEvent event = new PrivacyEvent.ConfidentGnmax(sigma1, threshold, sigma2, answered);
        if (!answered) {
            return Release.fail(event);
        }
        return Release.token(NoisyArgmax.argmax(histogram, vocabularySize, argmaxNoise, r), event);
    }

    /** The threshold step plus the argmax step: the event of an answered release. */
    @Override
    public PrivacyEvent worstCaseEvent() {
        return new PrivacyEvent.ConfidentGnmax(sigma1, threshold, sigma2, true);
    }

    @Override
    public String toString() {
        return "ConfidentGNMax(sigma1="
                + sigma1
                + ", T="
                + threshold
                + ", sigma2="
                + sigma2
                + ", |V|="
                + vocabularySize
                + ", n="
                + teachers
                + ")";
    }
}
