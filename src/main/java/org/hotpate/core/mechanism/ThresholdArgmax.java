package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkFinite;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.vote.VoteHistogram;

/**
 * TARGMAX_T — <b>NOT DIFFERENTIALLY PRIVATE. A reference for evaluation only; never use it on
 * sensitive data.</b> Returns argmax_j c_j (ties to the smallest token id) if max_j c_j ≥ T, else
 * ⊥. No noise at all: the output is a deterministic function of the votes.
 *
 * <p>Every release carries {@link PrivacyEvent.NotPrivate}: its cost is +∞, so a budget filter with
 * a finite budget refuses it before the first step ({@link Mechanisms#checkRunnable}). It runs only
 * without a budget (ε = ∞), and then its output must never leave the data owner.
 */
public final class ThresholdArgmax implements AggregationMechanism, Serializable {
    private static final long serialVersionUID = 1L;
    public static final String NAME = MechanismRegistry.TARGMAX;

    private final double threshold;
    private final int vocabularySize;
    private final int teachers;

    public ThresholdArgmax(double threshold, int vocabularySize, int teachers) {
        this.threshold = checkFinite("threshold", threshold);
        this.vocabularySize = checkPositive("vocabularySize", vocabularySize);
        this.teachers = checkPositive("teachers", teachers);
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
        if (histogram.distinctTokens() == 0 || histogram.maxCount() < threshold) {
            return Release.fail(event);
        }
        return Release.token(histogram.argmax().getAsInt(), event);
    }

    /** Not private: a marker that no finite budget admits. */
    @Override
    public PrivacyEvent worstCaseEvent() {
        return new PrivacyEvent.NotPrivate(NAME);
    }

    @Override
    public String toString() {
        return "TARGMAX(T=" + threshold + ", NOT PRIVATE)";
    }
}
