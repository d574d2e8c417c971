package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import org.hotpate.core.noise.DiscreteGaussian;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.vote.VoteHistogram;

/**
 * GNMax (Papernot et al. 2018; PRIVACY.md §3.2): returns argmax_j (c_j + Z_j) with independent
 * discrete Gaussians Z_j ~ N_ℤ(0, σ²) on <b>every</b> token j of the vocabulary, zero-count tokens
 * included. Ties go to the smallest token id. Never returns ⊥.
 *
 * <p><b>Guarantee.</b> Neighbouring relation: replace one teacher's data, n fixed and public
 * (PRIVACY.md §0) — one count goes down by 1 and another up by 1, so the count vector has L2
 * sensitivity √2. The noisy vector c + Z is then ρ = 1/σ² zCDP (discrete Gaussian, CKS 2020; rdp(λ)
 * = λ/σ², the data-independent bound of PATE-2018 Prop. 8) and the argmax is post-processing. Emits
 * {@link PrivacyEvent.Gnmax}(σ), every release the same. (PATE 2018's data-dependent bound is not
 * used: its q, Prop. 7, is derived for continuous noise and under-charges this discrete noise.)
 *
 * <p>Caller's duties: one vote per teacher per step (sensitivity 1), n fixed, and every release
 * charged. σ is converted to an exact rational σ² by {@link DiscreteGaussian#withSigma} (exact for
 * decimals of ≤ 6 places, otherwise rounded up). Noise from {@link NoiseSources#secure()} unless a
 * source is injected. Immutable and thread-safe when the source is.
 */
public final class GnmaxMechanism implements AggregationMechanism, Serializable {
    private static final long serialVersionUID = 1L;
    public static final String NAME = MechanismRegistry.GNMAX;

    private final double sigma;
    private final int vocabularySize;
    private final int teachers;
    private final DiscreteGaussian noise;
    private final UniformSource random;

    /** GNMax with secure noise. */
    public GnmaxMechanism(double sigma, int vocabularySize, int teachers) {
        this(sigma, vocabularySize, teachers, NoiseSources.secure());
    }

    /** GNMax drawing its noise from {@code random}. */
    public GnmaxMechanism(double sigma, int vocabularySize, int teachers, UniformSource random) {
        this.sigma = checkPositive("sigma", sigma);
        this.vocabularySize = checkPositive("vocabularySize", vocabularySize);
        this.teachers = checkPositive("teachers", teachers);
        this.random = checkNotNull("random", random);
        this.noise = DiscreteGaussian.withSigma(sigma);
    }

    @Override
    public String name() {
        return NAME;
    }

    public double sigma() {
        return sigma;
    }

    @Override
    public Release release(VoteHistogram histogram) {
        NoisyArgmax.checkHistogram(histogram, vocabularySize, teachers);
        int token = NoisyArgmax.argmax(histogram, vocabularySize, noise, random.forCurrentThread());
        return Release.token(token, new PrivacyEvent.Gnmax(sigma));
    }

    /** Every release costs the same: GNMax with σ. */
    @Override
    public PrivacyEvent worstCaseEvent() {
        return new PrivacyEvent.Gnmax(sigma);
    }

    @Override
    public String toString() {
        return "GNMax(sigma=" + sigma + ", |V|=" + vocabularySize + ", n=" + teachers + ")";
    }
}
