package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import org.hotpate.core.noise.DiscreteLaplace;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.vote.VoteHistogram;

/**
 * LNMax (Papernot et al. 2017; PRIVACY.md §3.1): returns argmax_j (c_j + Z_j) with independent
 * discrete Laplace Z_j of scale b (Pr[Z = z] ∝ e^{−|z|/b}) on <b>every</b> token of the vocabulary,
 * zero-count tokens included. Ties go to the smallest token id. Never returns ⊥.
 *
 * <p><b>Guarantee: pure ε-DP with ε = 2/b</b> per release. Neighbouring relation: replace one
 * teacher's data, n fixed and public (PRIVACY.md §0); the count vector has L1 sensitivity 2, so the
 * noisy vector c + Z is (2/b)-DP (discrete Laplace, PRIVACY.md §6.3 [DERIVED]: the pmf ratio at a
 * shift of 1 is at most e^{1/b} per coordinate, two coordinates move) and the argmax is
 * post-processing. Emits {@link PrivacyEvent.Lnmax}(b), every release the same.
 *
 * <p>Caller's duties: one vote per teacher per step, n fixed, every release charged. b is converted
 * to an exact rational by {@link DiscreteLaplace#withScale(double)}. Noise from {@link
 * NoiseSources#secure()} unless a source is injected.
 */
public final class LnmaxMechanism implements AggregationMechanism, Serializable {
    private static final long serialVersionUID = 1L;
    public static final String NAME = MechanismRegistry.LNMAX;

    private final double scale;
    private final int vocabularySize;
    private final int teachers;
    private final DiscreteLaplace noise;
    private final UniformSource random;

    /** LNMax with secure noise. */
    public LnmaxMechanism(double scale, int vocabularySize, int teachers) {
        this(scale, vocabularySize, teachers, NoiseSources.secure());
    }

    /** LNMax drawing its noise from {@code random}. */
    public LnmaxMechanism(double scale, int vocabularySize, int teachers, UniformSource random) {
        this.scale = checkPositive("scale", scale);
        this.vocabularySize = checkPositive("vocabularySize", vocabularySize);
        this.teachers = checkPositive("teachers", teachers);
        this.random = checkNotNull("random", random);
        this.noise = DiscreteLaplace.withScale(scale);
    }

    @Override
    public String name() {
        return NAME;
    }

    public double scale() {
        return scale;
    }

    /** The pure-DP ε of one release: 2/b. */
    public double epsilon() {
        return 2 / scale;
    }

    @Override
    public Release release(VoteHistogram histogram) {
        NoisyArgmax.checkHistogram(histogram, vocabularySize, teachers);
        int token = NoisyArgmax.argmax(histogram, vocabularySize, noise, random.forCurrentThread());
        return Release.token(token, new PrivacyEvent.Lnmax(scale));
    }

    /** Every release costs the same: pure ε = 2/b. */
    @Override
    public PrivacyEvent worstCaseEvent() {
        return new PrivacyEvent.Lnmax(scale);
    }

    @Override
    public String toString() {
        return "LNMax(scale=" + scale + ", |V|=" + vocabularySize + ", n=" + teachers + ")";
    }
}
