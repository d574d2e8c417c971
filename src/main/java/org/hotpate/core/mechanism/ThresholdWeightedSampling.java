package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkFinite;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.vote.VoteHistogram;

/**
 * TWS_T (threshold weighted sampling) — <b>NOT DIFFERENTIALLY PRIVATE. A reference for evaluation
 * only; never use it on sensitive data.</b> Among the tokens with c_j ≥ T (and c_j &gt; 0), returns
 * token j with probability c_j / Σ_{h: c_h ≥ T} c_h; ⊥ if there is none. This is the non-private
 * ideal that Hot PATE's heterogeneous aggregation approximates.
 *
 * <p>Its randomness is not DP noise and may be seeded for reproducible evaluation ({@link
 * NoiseSources#seededForNonPrivateReferences}). Every release carries {@link
 * PrivacyEvent.NotPrivate} (cost +∞): no finite budget admits it ({@link
 * Mechanisms#checkRunnable}).
 */
public final class ThresholdWeightedSampling implements AggregationMechanism, Serializable {
    private static final long serialVersionUID = 1L;
    public static final String NAME = MechanismRegistry.TWS;

    private final double threshold;
    private final int vocabularySize;
    private final int teachers;
    private final UniformSource random;

    public ThresholdWeightedSampling(
            double threshold, int vocabularySize, int teachers, UniformSource random) {
        this.threshold = checkFinite("threshold", threshold);
        this.vocabularySize = checkPositive("vocabularySize", vocabularySize);
        this.teachers = checkPositive("teachers", teachers);
        this.random = checkNotNull("random", random);
    }

    @Override
    public String name() {
        return NAME;
    }

    public double threshold() {
        return threshold;
    }

    @Override
    public Release release(VoteHistogram histogram) {
        NoisyArgmax.checkHistogram(histogram, vocabularySize, teachers);
        PrivacyEvent event = worstCaseEvent();
        long total = 0;
        for (int i = 0; i < histogram.distinctTokens(); i++) {
            if (histogram.countAt(i) >= threshold) {
                total += histogram.countAt(i);
            }
        }
        if (total == 0) {
            return Release.fail(event);
        }
        long u = random.nextLong(total); // one draw: no per-thread view needed
        for (int i = 0; i < histogram.distinctTokens(); i++) {
            int c = histogram.countAt(i);
            if (c >= threshold) {
                if (u < c) {
                    return Release.token(histogram.tokenAt(i), event);
                }
                u -= c;
            }
        }
        throw new AssertionError("unreachable: u < total");
    }

    /** Not private: a marker that no finite budget admits. */
    @Override
    public PrivacyEvent worstCaseEvent() {
        return new PrivacyEvent.NotPrivate(NAME);
    }

    @Override
    public String toString() {
        return "TWS(T=" + threshold + ", NOT PRIVATE)";
    }
}
