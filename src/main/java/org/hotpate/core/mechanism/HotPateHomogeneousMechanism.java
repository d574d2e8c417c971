package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkOpenUnit;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.vote.VoteHistogram;

/**
 * Hot PATE for homogeneous ensembles (papers/hot-pate.txt Algorithm 2, App. D.1; PRIVACY.md §2.2),
 * <b>instantiated as Confident-GNMax</b> with the threshold n/2 + L, where
 *
 * <pre>  L = max(σ1, σ2) · √(2 · ln(|V| / β_fail))</pre>
 *
 * bounds every one of the |V| + 1 noise draws of a step with high probability (default β_fail =
 * {@value #DEFAULT_BETA_FAIL}).
 *
 * <p><b>What is released, exactly</b> (docs/proofs/algorithm-2.md): ⊥ if max_j c_j + Z_0 &lt; n/2 +
 * L with Z_0 ~ N_ℤ(0, σ1²); otherwise argmax_j (c_j + Z_j) with <em>fresh</em> Z_j ~ N_ℤ(0, σ2²) on
 * every token of the vocabulary (ties to the smallest id). The threshold looks at the true maximum
 * count, the token comes from a second, independent noisy argmax. This is not the paper's
 * NoisyArgMax_L, which thresholds the selected token's own noisy count ĉ_j.
 *
 * <p><b>Guarantee</b> — that of {@link ConfidentGnmaxMechanism} with T = n/2 + L (T depends only on
 * public n, |V|, σ1, σ2, β_fail): neighbouring relation replace one teacher, n fixed and public;
 * the threshold step is ρ = 1/(2σ1²) zCDP (the max count has sensitivity 1) and the argmax step,
 * run only when answered, ρ = 1/σ2² (GNMax, L2 sensitivity √2); by adaptive composition a release
 * costs rdp(λ) = λ/(2σ1²) + [answered]·λ/σ2², and {@link #worstCaseEvent()} is the sum. β_fail
 * affects utility only.
 *
 * <p><b>Utility (what of Lemma 3 holds).</b> Let E be the event that |Z_0| ≤ L and |Z_j| ≤ L for
 * every token; Pr[not E] ≤ 2β_fail(1 + 1/|V|) by the discrete Gaussian's sub-Gaussian tail. (1)
 * Coverage holds as in the paper with β = (1 − Pr[not E])·ln(μ)/2: on E, a token with c_j ≥ n/2 +
 * 2L clears the threshold and wins the fresh argmax (every other count is ≤ n/2 − 2L). (2)
 * Relevance is weaker than the paper's γ = 2: on E a released token only satisfies c_j ≥ max_h c_h
 * − 2L ≥ n/2 − 2L, so a token without a majority can be released (tested), and Pr[release j] ≤
 * (2n/(n − 4L))· (1/n)·Σ_i p_j^(i) + Pr[not E] for n &gt; 4L.
 */
public final class HotPateHomogeneousMechanism implements AggregationMechanism, Serializable {
    private static final long serialVersionUID = 1L;
    public static final String NAME = MechanismRegistry.HOT_PATE;
    public static final double DEFAULT_BETA_FAIL = 1e-3;

    private final double betaFail;
    private final double errorBound;
    private final ConfidentGnmaxMechanism delegate;

    /** Algorithm 2 with σ1 = σ2 = σ, β_fail = 10^−3 and secure noise. */
    public HotPateHomogeneousMechanism(double sigma, int vocabularySize, int teachers) {
        this(sigma, sigma, DEFAULT_BETA_FAIL, vocabularySize, teachers, NoiseSources.secure());
    }

    /** Algorithm 2 with separate noise for the threshold (σ1) and the argmax (σ2) step. */
    public HotPateHomogeneousMechanism(
            double sigma1,
            double sigma2,
            double betaFail,
            int vocabularySize,
            int teachers,
            UniformSource random) {
        checkPositive("sigma1", sigma1);
        checkPositive("sigma2", sigma2);
        this.betaFail = checkOpenUnit("beta_fail", betaFail);
        checkPositive("vocabularySize", vocabularySize);
        checkPositive("teachers", teachers);
        this.errorBound = errorBound(Math.max(sigma1, sigma2), vocabularySize, betaFail);
        double threshold = teachers / 2.0 + errorBound;
        this.delegate =
                new ConfidentGnmaxMechanism(
                        sigma1, threshold, sigma2, vocabularySize, teachers, random);
    }

    /** L = σ·√(2·ln(|V|/β_fail)): the high-probability bound on every one of |V| noise draws. */
    public static double errorBound(double sigma, int vocabularySize, double betaFail) {
        checkPositive("sigma", sigma);
        checkPositive("vocabularySize", vocabularySize);
        checkOpenUnit("beta_fail", betaFail);
        return sigma * Math.sqrt(2 * Math.log(vocabularySize / betaFail));
    }

    @Override
    public String name() {
        return NAME;
    }

    /** L. */
    public double errorBound() {
        return errorBound;
    }

    /** n/2 + L. */
    public double threshold() {
        return delegate.threshold();
    }

    public double betaFail() {
        return betaFail;
    }

    public double sigma1() {
        return delegate.sigma1();
    }

    public double sigma2() {
        return delegate.sigma2();
    }

    @Override
    public Release release(VoteHistogram histogram) {
        return delegate.release(histogram);
    }

    /** Confident-GNMax's worst case: the threshold step plus the argmax step. */
    @Override
    public PrivacyEvent worstCaseEvent() {
        return delegate.worstCaseEvent();
    }

    @Override
    public String toString() {
        return "HotPateHomogeneous(L=" + errorBound + ", " + delegate + ")";
    }
}
