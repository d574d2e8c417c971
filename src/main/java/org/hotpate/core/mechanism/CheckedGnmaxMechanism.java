package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkFinite;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import java.util.List;
import org.hotpate.core.noise.DiscreteGaussian;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.vote.VoteHistogram;

/**
 * Confident-GNMax whose answer is checked ({@code checked-gnmax}): run {@link
 * ConfidentGnmaxMechanism} (σ1, T, σ2); if it answers token j, release j only if c_j + Z ≥ T_c with
 * Z ~ N_ℤ(0, σ3²) — the chosen token's own count must clear a noisy bar — and ⊥ otherwise.
 *
 * <p><b>Why.</b> GNMax adds noise to every token of the vocabulary; over an LLM-sized vocabulary
 * (|V| ≈ 10⁵) the largest of the zero-count tokens' noise is about σ2·√(2 ln |V|) ≈ 4.8σ2, so a
 * step whose top count passed the threshold test by luck often releases a token nobody voted for.
 * The check rejects those (a zero-count token passes it with probability Pr[Z ≥ T_c]), which lets
 * σ2 be larger — cheaper — than Confident-GNMax alone could afford (docs/privacy-efficiency.md).
 *
 * <p><b>Guarantee.</b> Neighbouring relation: replace one teacher's data, n fixed and public. Three
 * steps, composed adaptively in RDP: the threshold step on the max count (sensitivity 1): α/(2σ1²);
 * when it answers, GNMax (Papernot et al. 2018, Prop. 8): α/σ2²; then the count of the token GNMax
 * released — a counting query chosen from the previous step's output, sensitivity 1 under
 * replace-one — with discrete Gaussian noise (Canonne, Kamath &amp; Steinke 2020, the discrete
 * Gaussian is (α, α/(2σ3²))-RDP): α/(2σ3²). Every intermediate output may be public under adaptive
 * composition, so the event says which step ended the release: {@link PrivacyEvent.ConfidentGnmax}
 * with {@code answered = false} (⊥ at the threshold), or {@link PrivacyEvent.Composed} of the
 * answered Confident-GNMax event and {@code DiscreteGaussian(σ3, 1)} (a token, or ⊥ at the check).
 * The worst case — admitted before the step runs — is the latter. Tested: {@code
 * CheckedGnmaxDpTest} (neighbouring histograms against the charged event's δ(ε), each stage on its
 * own; a halved or quartered σ1, σ2 or σ3, and a check without noise, are caught).
 *
 * <p>Noise from {@link NoiseSources#secure()} unless a source is injected; the check draws after
 * Confident-GNMax from the same source, so a keyed replay releases the same answer.
 */
public final class CheckedGnmaxMechanism implements AggregationMechanism, Serializable {
    private static final long serialVersionUID = 1L;
    public static final String NAME = MechanismRegistry.CHECKED_GNMAX;

    private final ConfidentGnmaxMechanism confident;
    private final double sigma3;
    private final double checkThreshold;
    private final DiscreteGaussian checkNoise;
    private final UniformSource random;

    /** With noise from {@code random} ({@link NoiseSources#secure()} in production). */
    public CheckedGnmaxMechanism(
            double sigma1,
            double threshold,
            double sigma2,
            double sigma3,
            double checkThreshold,
            int vocabularySize,
            int teachers,
            UniformSource random) {
        this.random = checkNotNull("random", random);
        this.confident =
                new ConfidentGnmaxMechanism(
                        sigma1, threshold, sigma2, vocabularySize, teachers, random);
        this.sigma3 = checkPositive("sigma3", sigma3);
        this.checkThreshold = checkFinite("check-threshold", checkThreshold);
        this.checkNoise = DiscreteGaussian.withSigma(sigma3);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Release release(VoteHistogram histogram) {
        Release r = confident.release(histogram);
        if (r.isFail()) {
            return r; // ⊥ at the threshold: Confident-GNMax's own event
        }
        int token = r.token().getAsInt();
        PrivacyEvent event = new PrivacyEvent.Composed(List.of(r.event(), checkEvent()));
        long z = histogram.count(token) + checkNoise.sample(random.forCurrentThread());
        return z >= checkThreshold ? Release.token(token, event) : Release.fail(event);
    }

    private PrivacyEvent checkEvent() {
        return new PrivacyEvent.DiscreteGaussian(sigma3, 1);
    }

    /** Confident-GNMax answered, then the check. */
    @Override
    public PrivacyEvent worstCaseEvent() {
        return new PrivacyEvent.Composed(List.of(confident.worstCaseEvent(), checkEvent()));
    }

    @Override
    public String toString() {
        return "CheckedGNMax(" + confident + ", sigma3=" + sigma3 + ", Tc=" + checkThreshold + ")";
    }
}
