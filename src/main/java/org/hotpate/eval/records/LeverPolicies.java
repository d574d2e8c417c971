package org.hotpate.eval.records;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.accounting.IndividualPlan;
import org.hotpate.core.accounting.PublicChargingRandomness;
import org.hotpate.core.accounting.SchemeAStep;
import org.hotpate.core.accounting.SchemeBStep;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.AutoPlanner;
import org.hotpate.core.mechanism.ConfidentGnmaxMechanism;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.hotpate.core.mechanism.Mechanisms;
import org.hotpate.core.noise.DiscreteGaussian;
import org.hotpate.core.noise.DiscreteLaplace;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.Rational;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;

/**
 * The {@link LeverStudy}'s levers: each parses its {@code --lever} spec into a step policy with its
 * own accountant (see LeverStudy for the list).
 */
final class LeverPolicies {
    private LeverPolicies() {}

    /** The step policy of a lever: a token, −1 for ⊥, or −2 when its budget refuses the step. */
    interface Policy {
        int decide(LeverStep s);

        String accounting();
    }

    /** The policy of a {@code --lever} spec ({@code name:parameter:...}), its filter fresh. */
    static Policy of(
            LeverStudySetup s,
            String lever,
            PrivacyBudget budget,
            LeverStudy.Generation g,
            boolean[] active) {
        String[] a = lever.split(":");
        UniformSource noise = NoiseSources.secure();
        int v = s.tok().vocabularySize();
        var entry = MechanismRegistry.find(a[0]);
        if (entry.isEmpty()) {
            return studyOnly(s, budget, lever, a, noise);
        }
        MechanismRegistry.Entry e = entry.get();
        switch (e.kind()) {
            case AUTO -> {
                AutoPlanner.Plan plan =
                        AutoPlanner.plan(
                                new AutoPlanner.Inputs(
                                        s.n(),
                                        v,
                                        true,
                                        budget,
                                        (long) g.sequences() * g.maxSteps()));
                // the mechanism the job runs for mechanism: auto, with every planned parameter
                return ensemble(
                        s,
                        budget,
                        Mechanisms.create(plan.mechanism(), plan.params(), v, s.n(), noise),
                        plan.explanation());
            }
            case ENSEMBLE -> {
                // named parameters through the registry, listed in the entry's shorthand order
                // (confident-gnmax: σ1:T:σ2)
                return ensemble(
                        s, budget, e.create(positional(e, a, false), v, s.n(), noise), lever);
            }
            case PER_TEACHER -> {
                // the scheme's own table and plan (replace-one); the lever simulates its steps
                IndividualPlan plan =
                        e.plan(positional(e, a, true), budget.epsilon(), budget.delta());
                if (plan instanceof SchemeAStep.Plan pa) {
                    checkArgument(
                            pa.sampleRate() == 1,
                            "the scheme-a lever takes no sample-rate (no inclusion coin)");
                    return schemeA(s, pa, active, noise);
                }
                if (plan instanceof SchemeBStep.Plan pb) {
                    return schemeB(s, pb, active, noise);
                }
                throw new IllegalArgumentException("no lever simulates " + plan.scheme());
            }
            default -> throw new IllegalArgumentException("unknown lever " + lever);
        }
    }

    /** The levers that are no registry name: the study's own variants. */
    private static Policy studyOnly(
            LeverStudySetup s,
            PrivacyBudget budget,
            String lever,
            String[] a,
            UniformSource noise) {
        switch (a[0]) {
            case "checked":
                return checked(
                        s,
                        budget,
                        d(a[1]),
                        d(a[2]),
                        d(a[3]),
                        d(a[4]),
                        a.length > 5 ? d(a[5]) : d(a[2]),
                        noise);
            case "stability":
                return stability(budget, d(a[1]), d(a[2]), noise);
            default:
                throw new IllegalArgumentException(
                        "unknown lever "
                                + lever
                                + "; levers: "
                                + MechanismRegistry.names()
                                + ", checked, stability");
        }
    }

    /**
     * A lever's values {@code name:v1:v2:…} as the entry's named parameters, in its {@link
     * MechanismRegistry.Entry#shorthand()} order; a per-teacher lever's sample-rate, when not
     * listed, is 1.
     */
    private static Map<String, Double> positional(
            MechanismRegistry.Entry e, String[] a, boolean perTeacher) {
        List<String> keys = e.shorthand();
        checkArgument(
                a.length - 1 <= keys.size(),
                "lever " + e.name() + " takes at most " + keys.size() + " values: " + keys);
        Map<String, Double> params = new java.util.LinkedHashMap<>();
        for (int i = 1; i < a.length; i++) {
            params.put(keys.get(i - 1), d(a[i]));
        }
        if (perTeacher) {
            params.putIfAbsent("sample-rate", 1.0);
        }
        return params;
    }

    private static double d(String x) {
        return Double.parseDouble(x);
    }

    private static Policy ensemble(
            LeverStudySetup s, PrivacyBudget budget, AggregationMechanism m, String what) {
        PrivacyEvent worst = m.worstCaseEvent();
        EnsembleBudgetFilter f = LeverStudySetup.filter(s, budget, worst);
        long[] noiseTokens = new long[1];
        return new Policy() {
            @Override
            public int decide(LeverStep st) {
                if (!f.canAfford(worst)) {
                    return -2;
                }
                var r = m.release(st.histogram);
                f.charge(r.event(), worst);
                if (!r.isFail() && st.histogram.count(r.token().getAsInt()) == 0) {
                    noiseTokens[0]++; // a token no teacher voted for won the noisy argmax
                }
                return r.isFail() ? -1 : r.token().getAsInt();
            }

            @Override
            public String accounting() {
                return String.format(
                        Locale.ROOT,
                        "ensemble filter, eps %.3f; noise tokens %d; %s",
                        f.spentEpsilon(),
                        noiseTokens[0],
                        what);
            }
        };
    }

    /**
     * Confident-GNMax whose answer is checked: after the noisy argmax j, j is released only if c_j
     * + N_ℤ(0, σ3²) ≥ T (a sensitivity-1 count of the chosen token; adaptive composition), else ⊥.
     */
    private static Policy checked(
            LeverStudySetup s,
            PrivacyBudget budget,
            double s1,
            double t,
            double s2,
            double s3,
            double checkThreshold,
            UniformSource noise) {
        ConfidentGnmaxMechanism m =
                new ConfidentGnmaxMechanism(s1, t, s2, s.tok().vocabularySize(), s.n(), noise);
        PrivacyEvent check = new PrivacyEvent.DiscreteGaussian(s3, 1);
        PrivacyEvent worst = new PrivacyEvent.Composed(List.of(m.worstCaseEvent(), check));
        EnsembleBudgetFilter f = LeverStudySetup.filter(s, budget, worst);
        DiscreteGaussian g3 = DiscreteGaussian.withSigma(s3);
        long[] st = new long[3];
        return new Policy() {
            @Override
            public int decide(LeverStep step) {
                if (!f.canAfford(worst)) {
                    return -2;
                }
                var r = m.release(step.histogram);
                if (r.isFail()) {
                    f.charge(r.event(), worst);
                    return -1;
                }
                f.charge(new PrivacyEvent.Composed(List.of(r.event(), check)), worst);
                int j = r.token().getAsInt();
                int c = step.histogram.count(j);
                if (c + g3.sample(noise.forCurrentThread()) < checkThreshold) {
                    st[c == 0 ? 0 : 1]++;
                    return -1;
                }
                if (c == 0) {
                    st[2]++;
                }
                return j;
            }

            @Override
            public String accounting() {
                return String.format(
                        Locale.ROOT,
                        "ensemble filter, eps %.3f; checked out: %d noise, %d voted; noise"
                                + " released %d",
                        f.spentEpsilon(),
                        st[0],
                        st[1],
                        st[2]);
            }
        };
    }

    /**
     * Algorithm 2 with a stability test: d = the fewest votes to change so that the argmax changes
     * (sensitivity 1); release the exact argmax iff d + N_ℤ(0, σ²) ≥ T. Accounted as
     * DiscreteGaussian(σ, 1) per step in the run filter plus δ₀ = Pr[N ≥ T − 1] per step (reported:
     * when the argmax differs between neighbours, d = 1 in both).
     */
    private static Policy stability(
            PrivacyBudget budget, double sigma, double t, UniformSource noise) {
        PrivacyEvent ev = new PrivacyEvent.DiscreteGaussian(sigma, 1);
        EnsembleBudgetFilter f = LeverStudySetup.filter(null, budget, ev);
        DiscreteGaussian g = DiscreteGaussian.withSigma(sigma);
        double delta0 = upperTail(sigma, t - 1);
        long[] n = new long[1];
        return new Policy() {
            @Override
            public int decide(LeverStep st) {
                if (!f.canAfford(ev)) {
                    return -2;
                }
                f.charge(ev, ev);
                n[0]++;
                int[] tk = st.histogram.tokens();
                int[] ct = st.histogram.counts();
                if (tk.length == 0) {
                    return -1;
                }
                int j = st.histogram.argmax().getAsInt();
                int c1 = st.histogram.count(j);
                long dist = Math.max(1, (c1 + 1) / 2); // a token nobody voted for
                for (int i = 0; i < tk.length; i++) {
                    if (tk[i] != j) {
                        long m = tk[i] < j ? (c1 - ct[i] + 1) / 2 : (c1 - ct[i]) / 2 + 1;
                        dist = Math.min(dist, m);
                    }
                }
                return dist + g.sample(noise.forCurrentThread()) >= t ? j : -1;
            }

            @Override
            public String accounting() {
                return String.format(
                        Locale.ROOT,
                        "ensemble filter, eps %.3f (Gaussian part), delta %.2e over %d steps",
                        f.spentEpsilon(),
                        delta0 * n[0],
                        n[0]);
            }
        };
    }

    private static double upperTail(double sigma, double x) {
        double s = 0;
        for (long k = (long) Math.ceil(x); k < x + 40 * sigma; k++) {
            s += DiscreteGaussian.pmf(sigma * sigma, k);
        }
        return s;
    }

    /** Scheme A (BetweenThresholds, target charging) on the public proposal, replace-one τ. */
    private static Policy schemeA(
            LeverStudySetup s, SchemeAStep.Plan plan, boolean[] active, UniformSource noise) {
        double eps = plan.params().epsilon();
        long lower = plan.params().lower();
        long upper = plan.params().upper();
        int tau = plan.tau();
        Rational e = Rational.atMost(eps); // scale 1/e never below 1/ε
        DiscreteLaplace lap =
                DiscreteLaplace.withScale(Rational.of(e.denominator(), e.numerator()));
        int[] charges = new int[s.n()];
        long[] stat = new long[3];
        return new Policy() {
            @Override
            public int decide(LeverStep st) {
                List<Integer> inv = new ArrayList<>();
                for (int i = 0; i < s.n(); i++) {
                    if (active[i] && st.votes[i] == st.proposal) {
                        inv.add(i);
                    }
                }
                long z = inv.size() + lap.sample(noise.forCurrentThread());
                if (z < lower) {
                    return -1;
                }
                if (z <= upper) {
                    stat[0]++;
                    for (int i : inv) {
                        stat[1]++;
                        if (++charges[i] >= tau) {
                            active[i] = false;
                            stat[2]++;
                        }
                    }
                }
                return st.proposal;
            }

            @Override
            public String accounting() {
                return "per-user tau "
                        + tau
                        + " (replace-one), between "
                        + stat[0]
                        + ", charges "
                        + stat[1]
                        + ", retired "
                        + stat[2];
            }
        };
    }

    /** Scheme B (Gaussian count, Feldman–Zrnic filter) on the public proposal, replace-one K. */
    private static Policy schemeB(
            LeverStudySetup s, SchemeBStep.Plan plan, boolean[] active, UniformSource noise) {
        double sigma = plan.params().sigma();
        double threshold = plan.params().threshold();
        double rate = plan.params().sampleRate();
        long k = plan.limit();
        DiscreteGaussian g = DiscreteGaussian.withSigma(sigma);
        int[] charges = new int[s.n()];
        long[] stat = new long[2];
        return new Policy() {
            @Override
            public int decide(LeverStep st) {
                PublicChargingRandomness pr =
                        PublicChargingRandomness.of(st.randomness.stepSeed(), rate, st.proposal);
                int c = 0;
                for (int i = 0; i < s.n(); i++) {
                    if (active[i] && st.votes[i] == st.proposal && pr.included(i)) {
                        c++;
                        stat[0]++;
                        if (++charges[i] >= k) {
                            active[i] = false;
                            stat[1]++;
                        }
                    }
                }
                return c + g.sample(noise.forCurrentThread()) >= threshold ? st.proposal : -1;
            }

            @Override
            public String accounting() {
                return "per-user K "
                        + k
                        + " (replace-one), charges "
                        + stat[0]
                        + ", retired "
                        + stat[1];
            }
        };
    }
}
