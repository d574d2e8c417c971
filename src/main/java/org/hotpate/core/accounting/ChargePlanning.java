package org.hotpate.core.accounting;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkOpenUnit;
import static org.hotpate.core.util.Preconditions.checkPositive;

import org.apache.commons.math3.special.Beta;

/**
 * Offline computation of the per-teacher charge limits (PRIVACY.md Appendix A §A.2.3–A.2.4, §A.6):
 * Scheme A's τ from the derived q-target lemma and target-charging theorem, Scheme B's K from the
 * Feldman–Zrnic Rényi filter. Precompute once per run and ship as constants; every rounding here is
 * conservative (larger m, smaller τ or K).
 *
 * <p>Scheme A rests on [DERIVED] statements (docs/proofs/scheme-a.md); Scheme B on verified ones.
 */
public final class ChargePlanning {
    private ChargePlanning() {}

    /**
     * Lemma 1 [DERIVED]: {B} is a q-target of the ε-Laplace BetweenThresholds step, q = (1 −
     * e^{−εW})/(1 + e^ε).
     */
    public static double qTarget(double epsilon, double bandWidth) {
        checkPositive("epsilon", epsilon);
        checkArgument(bandWidth >= 0, "bandWidth must be >= 0; got " + bandWidth);
        return -Math.expm1(-epsilon * bandWidth) / (1 + Math.exp(epsilon));
    }

    /**
     * Discrete Laplace with w integers in the band (w = t_u − t_l + 1): (1 − e^{−εw})/(1 + e^ε).
     */
    public static double qTargetDiscrete(double epsilon, int bandIntegers) {
        checkPositive("bandIntegers", bandIntegers);
        return qTarget(epsilon, bandIntegers);
    }

    /** Pr[Binomial(m, q) ≤ k], computed as the regularized incomplete beta I_{1−q}(m−k, k+1). */
    public static double binomialCdf(long k, long m, double q) {
        if (k < 0) {
            return 0;
        }
        if (k >= m) {
            return 1;
        }
        return Beta.regularizedBeta(1 - q, m - k, k + 1, 1e-15, 100_000);
    }

    /** m = min{m : Pr[Binomial(m, q) ≤ τ − 1] ≤ δ1}. */
    public static long minTrials(int tau, double q, double delta1) {
        checkPositive("tau", tau);
        checkOpenUnit("q", q);
        checkOpenUnit("delta1", delta1);
        long hi = tau;
        while (binomialCdf(tau - 1, hi, q) > delta1) {
            hi *= 2;
            checkArgument(hi < (1L << 50), "no m found (q too small?)");
        }
        long lo = Math.max(tau, hi / 2);
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (binomialCdf(tau - 1, mid, q) <= delta1) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return hi;
    }

    /** Theorem 2 [DERIVED]: ε' = mε²/2 + ε√(2m·ln(1/δ2)). */
    public static double epsilonPrime(long m, double epsilon, double delta2) {
        checkOpenUnit("delta2", delta2);
        return m * epsilon * epsilon / 2 + epsilon * Math.sqrt(2 * m * Math.log(1 / delta2));
    }

    /** Scheme A's (ε', δ1 + δ2) for a given τ. */
    public static double schemeAEpsilon(
            int tau, double epsilon, double bandWidth, double delta1, double delta2) {
        double q = qTarget(epsilon, bandWidth);
        return epsilonPrime(minTrials(tau, q, delta1), epsilon, delta2);
    }

    /**
     * Scheme A under add/remove: the largest τ with ε'(m(τ)) ≤ ε_T, δ1 = δ2 = δ_T/2 (0 if even τ =
     * 1 does not fit). Reproduces the §A.6.1 table. hotpate's relation is replace-one: use {@link
     * #schemeATau(double, double, double, double, NeighbourRelation)}.
     */
    public static int schemeATau(
            double targetEpsilon, double targetDelta, double epsilon, double bandWidth) {
        return schemeATau(
                targetEpsilon, targetDelta, epsilon, bandWidth, NeighbourRelation.ADD_REMOVE);
    }

    /**
     * Scheme A's per-user limit under {@code relation}: the largest τ with ε'(m(u·τ)) ≤ ε_T, u =
     * {@link NeighbourRelation#usersPerPair()}, δ1 = δ2 = δ_T/2 (0 if even τ = 1 does not fit).
     * Under replace-one the pair of worlds holds the target hits of the real user and of its
     * replacement, each retired at τ, so Theorem 2 is applied with 2τ hits (docs/proofs/
     * replace-one.md §3). Since ε'(m(t)) grows with t, the replace-one τ is ⌊τ_add/remove / 2⌋.
     */
    public static int schemeATau(
            double targetEpsilon,
            double targetDelta,
            double epsilon,
            double bandWidth,
            NeighbourRelation relation) {
        checkPositive("targetEpsilon", targetEpsilon);
        checkOpenUnit("targetDelta", targetDelta);
        checkPositive("epsilon", epsilon);
        int pairs = relation.usersPerPair();
        double half = targetDelta / 2;
        int tau = 0;
        while (schemeAEpsilon(pairs * (tau + 1), epsilon, bandWidth, half, half) <= targetEpsilon) {
            tau++;
            checkArgument(tau < 10_000_000, "tau does not converge");
        }
        return tau;
    }

    /**
     * Scheme B for a fixed order: K = ⌊2σ²B/α⌋ involvements per teacher for an (α, B)-RDP filter.
     */
    public static long schemeBK(double sigma, double order, double rdpBudget) {
        checkPositive("sigma", sigma);
        checkArgument(order > 1, "order must be > 1; got " + order);
        checkArgument(rdpBudget >= 0, "rdpBudget must be >= 0; got " + rdpBudget);
        return (long) Math.floor(2 * sigma * sigma * rdpBudget / order);
    }

    /**
     * Scheme B for a fixed order under {@code relation}: K = ⌊2σ²B/(u·α)⌋ per user, u = {@link
     * NeighbourRelation#usersPerPair()} — under replace-one the pair's loss is at most (charges of
     * the real user + charges of its replacement)·α/(2σ²) ≤ 2K·α/(2σ²) ≤ B.
     */
    public static long schemeBK(
            double sigma, double order, double rdpBudget, NeighbourRelation relation) {
        return schemeBK(sigma, order, rdpBudget) / relation.usersPerPair();
    }

    /** Scheme B's order and K for a target (ε_T, δ_T) with ε_T = B + ln(1/δ)/(α−1). */
    public record SchemeBPlan(long k, double order, double rdpBudget) {}

    /**
     * Scheme B under {@code relation}: the order and RDP budget of {@link #schemeB(double, double,
     * double)} (the order maximising K does not depend on how many users share it) and K = ⌊2σ²B/(u
     * ·α)⌋ ({@link #schemeBK(double, double, double, NeighbourRelation)}).
     */
    public static SchemeBPlan schemeB(
            double targetEpsilon, double targetDelta, double sigma, NeighbourRelation relation) {
        SchemeBPlan p = schemeB(targetEpsilon, targetDelta, sigma);
        return new SchemeBPlan(
                schemeBK(sigma, p.order(), p.rdpBudget(), relation), p.order(), p.rdpBudget());
    }

    /**
     * Scheme B under add/remove with α optimised: maximise (ε_T − L/(α−1))/α, L = ln(1/δ_T); the
     * optimum solves ε_T(α−1)² = L(2α−1), i.e. α* = (ε_T + L + √((ε_T + L)L))/ε_T. Reproduces the
     * §A.6.2 table.
     */
    public static SchemeBPlan schemeB(double targetEpsilon, double targetDelta, double sigma) {
        checkPositive("targetEpsilon", targetEpsilon);
        checkOpenUnit("targetDelta", targetDelta);
        checkPositive("sigma", sigma);
        double l = Math.log(1 / targetDelta);
        double e = targetEpsilon;
        double alpha = (e + l + Math.sqrt((e + l) * l)) / e;
        double budget = e - l / (alpha - 1);
        return new SchemeBPlan(schemeBK(sigma, alpha, budget), alpha, budget);
    }
}
