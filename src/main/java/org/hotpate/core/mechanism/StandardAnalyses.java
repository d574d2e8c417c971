package org.hotpate.core.mechanism;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hotpate.core.accounting.ChargePlanning;
import org.hotpate.core.accounting.NeighbourRelation;
import org.hotpate.core.accounting.SchemeBStep;
import org.hotpate.core.mechanism.PrivacyAnalysis.AnsweredStep;
import org.hotpate.core.mechanism.PrivacyAnalysis.Cost;
import org.hotpate.core.mechanism.PrivacyAnalysis.Curves;
import org.hotpate.core.mechanism.PrivacyAnalysis.Inputs;
import org.hotpate.core.mechanism.PrivacyAnalysis.Share;
import org.hotpate.core.mechanism.PrivacyAnalysis.StepRdp;
import org.hotpate.core.privacy.PateRdp;
import org.hotpate.core.privacy.PrivacyEvent;

/**
 * The registry's {@link PrivacyAnalysis} hooks and per-teacher plan reports: what {@code ./hotpate
 * privacy cost|plan} computes for each name (docs/privacy.md). Package-private: callers reach them
 * through {@link MechanismRegistry}.
 */
final class StandardAnalyses {
    private StandardAnalyses() {}

    // ---- privacy cost: one step's RDP per order (replace one teacher, n public; the statements
    // and their published sources are PateRdp's, PRIVACY.md §3) ------------------------------

    /**
     * GNMax, noise N(0, σ²): data-independent λ/σ² (Papernot et al. 2018, Prop. 8), data-dependent
     * Thm 6 with Prop. 7's bound on q.
     */
    static final StepRdp GNMAX_STEP =
            (in, counts, vocab, orders) -> {
                double sigma = in.positive("sigma");
                double logq = PateRdp.logqGaussian(counts, vocab, sigma);
                return perOrder(
                        orders,
                        o -> PateRdp.gnmaxDataIndependent(sigma, o),
                        o -> PateRdp.rdpGaussian(logq, sigma, o));
            };

    /**
     * LNMax, noise Lap(b): ε = 2/b pure DP, data-dependent by Papernot et al. 2017, Thm 3 ({@link
     * PateRdp#rdpPureEps}).
     */
    static final StepRdp LNMAX_STEP =
            (in, counts, vocab, orders) -> {
                double b = in.positive("scale");
                double logq = PateRdp.logqLaplace(counts, vocab, b);
                return perOrder(
                        orders,
                        o -> PateRdp.lnmaxDataIndependent(b, o),
                        o -> PateRdp.rdpPureEps(logq, 2 / b, o));
            };

    /**
     * Confident-GNMax's threshold step, max count + N(0, σ1²) ≥ T: data-independent λ/(2σ1²)
     * (Gaussian mechanism, sensitivity 1), data-dependent Papernot et al. 2018 Thm 6 with σ = √2·σ1
     * on q = min(Pr[answer], 1 − Pr[answer]).
     */
    static final StepRdp THRESHOLD_STEP =
            (in, counts, vocab, orders) -> {
                double t = in.value("threshold");
                double s1 = in.positive("sigma1");
                double logPr = PateRdp.logPrAnswered(t, s1, counts);
                return perOrder(
                        orders,
                        o -> PateRdp.thresholdDataIndependent(s1, o),
                        o -> PateRdp.thresholdDataDependent(logPr, s1, o));
            };

    /** Both curves at every order. */
    private static Curves perOrder(
            double[] orders,
            java.util.function.DoubleUnaryOperator dataIndependent,
            java.util.function.DoubleUnaryOperator dataDependent) {
        double[] di = new double[orders.length];
        double[] dd = new double[orders.length];
        for (int i = 0; i < orders.length; i++) {
            di[i] = dataIndependent.applyAsDouble(orders[i]);
            dd[i] = dataDependent.applyAsDouble(orders[i]);
        }
        return new Curves(di, dd);
    }

    // ---- privacy plan: one answered query's data-independent cost
    // --------------------------------

    static final AnsweredStep GNMAX_ANSWER =
            new AnsweredStep(
                    List.of("sigma"), in -> Cost.of(new PrivacyEvent.Gnmax(in.positive("sigma"))));

    static final AnsweredStep LNMAX_ANSWER =
            new AnsweredStep(
                    List.of("scale"), in -> Cost.of(new PrivacyEvent.Lnmax(in.positive("scale"))));

    /** A Gaussian mechanism N(0, σ²) of L2 sensitivity D (default 1). */
    static final AnsweredStep GAUSSIAN_ANSWER =
            new AnsweredStep(
                    List.of("sigma", "sensitivity"),
                    in ->
                            Cost.of(
                                    new PrivacyEvent.Gaussian(
                                            in.positive("sigma"), in.value("sensitivity", 1.0))));

    /**
     * Confident-GNMax (and hot-pate, its homogeneous form): every query pays the threshold step
     * (σ1), an answered one also the argmax (σ2); a fraction F of the queries is answered (default
     * 1).
     */
    static final AnsweredStep THRESHOLDED_ANSWER =
            new AnsweredStep(
                    List.of("answered-fraction", "sigma1", "sigma2"),
                    in -> {
                        double f = in.unitFraction("answered-fraction", 1.0);
                        double s1 = in.positive("sigma1");
                        double s2 = in.positive("sigma2");
                        return new Cost(
                                List.of(
                                        new Share(
                                                new PrivacyEvent.ConfidentGnmax(s1, 0, s2, false),
                                                f),
                                        new Share(new PrivacyEvent.Gnmax(s2), 1.0)),
                                Map.of("answered_fraction", f));
                    });

    // ---- privacy plan --scheme: the per-teacher plans
    // --------------------------------------------

    private static final String ADD_REMOVE_NOTE =
            "the limit the add/remove statement would allow, for comparison only: hotpate's"
                    + " relation is replace-one (docs/proofs/replace-one.md)";

    /** Scheme B: Gaussian count with the Feldman-Zrnic individual Rényi filter. */
    static Map<String, Object> schemeBReport(Inputs in, double eps, double delta) {
        Map<String, Object> m = new LinkedHashMap<>();
        double sigma = in.positive("count-sigma");
        ChargePlanning.SchemeBPlan p =
                ChargePlanning.schemeB(eps, delta, sigma, NeighbourRelation.REPLACE_ONE);
        m.put("scheme", "B");
        m.put("label", "Feldman-Zrnic individual Renyi filter (verified statements; default)");
        m.put("relation", NeighbourRelation.REPLACE_ONE.label());
        m.put("sigma", sigma);
        m.put("k", Math.max(0, p.k()));
        m.put("order", p.order());
        m.put("rdp_budget", p.rdpBudget());
        m.put("charge_per_involvement", p.order() / (2 * sigma * sigma));
        SchemeBStep.Params params =
                new SchemeBStep.Params(
                        sigma, in.value("threshold", 0.0), in.unitFraction("sample-rate", 1.0));
        SchemeBStep.Plan plan = SchemeBStep.Plan.forTarget(params, eps, delta);
        // the pair (user, replacement) both at K
        m.put("epsilon_per_user", plan.epsilon(plan.limit(), delta));
        if (in.has("threshold")) {
            m.put("threshold", in.value("threshold"));
        }
        if (in.has("sample-rate")) {
            double rate = in.unitFraction("sample-rate", 1.0);
            m.put("sample_rate", rate);
            // a teacher that always votes the tested token is involved in a fraction ν
            m.put("steps_at_full_agreement", plan.limit() / rate);
        }
        SchemeBStep.Plan ar =
                SchemeBStep.Plan.forTarget(params, eps, delta, NeighbourRelation.ADD_REMOVE);
        Map<String, Object> addRemove = new LinkedHashMap<>();
        addRemove.put("note", ADD_REMOVE_NOTE);
        addRemove.put("k", ar.k());
        addRemove.put("epsilon_per_user", ar.epsilonAddRemove(ar.k(), delta));
        m.put("add_remove", addRemove);
        return m;
    }

    /** Scheme A: BetweenThresholds target charging (DERIVED proof). */
    static Map<String, Object> schemeAReport(Inputs in, double eps, double delta) {
        Map<String, Object> m = new LinkedHashMap<>();
        double stepEps = in.positive("step-epsilon");
        if (in.has("band-width") == (in.has("lower") || in.has("upper"))) {
            throw in.invalid(
                    in.spell("scheme")
                            + " a needs the band as "
                            + in.spell("band-width")
                            + " W or as "
                            + in.spell("lower")
                            + " L "
                            + in.spell("upper")
                            + " U");
        }
        double w =
                in.has("band-width")
                        ? in.positive("band-width")
                        : in.value("upper") - in.value("lower");
        if (!(w > 0)) {
            throw in.invalid(
                    in.spell("upper") + " must be > " + in.spell("lower") + "; got a band of " + w);
        }
        int tau = ChargePlanning.schemeATau(eps, delta, stepEps, w, NeighbourRelation.REPLACE_ONE);
        double q = ChargePlanning.qTarget(stepEps, w);
        m.put("scheme", "A");
        m.put(
                "label",
                "BetweenThresholds target charging (rests on the DERIVED proof docs/proofs/scheme-a.md)");
        m.put("relation", NeighbourRelation.REPLACE_ONE.label());
        m.put("step_epsilon", stepEps);
        m.put("band_width", w);
        m.put("q", q);
        m.put("tau", tau);
        if (tau > 0) {
            // the pair (user, replacement): m for 2τ target hits
            long mm = ChargePlanning.minTrials(2 * tau, q, delta / 2);
            m.put("m", mm);
            m.put("epsilon_prime", ChargePlanning.epsilonPrime(mm, stepEps, delta / 2));
            m.put("epsilon_per_user", ChargePlanning.epsilonPrime(mm, stepEps, delta / 2));
        }
        if (in.has("lower")) {
            m.put("lower", in.value("lower"));
            m.put("upper", in.value("upper"));
        }
        if (in.has("sample-rate")) {
            m.put("sample_rate", in.unitFraction("sample-rate", 1.0));
        }
        int tauAr = ChargePlanning.schemeATau(eps, delta, stepEps, w);
        Map<String, Object> addRemove = new LinkedHashMap<>();
        addRemove.put("note", ADD_REMOVE_NOTE);
        addRemove.put("tau", tauAr);
        if (tauAr > 0) {
            long mm = ChargePlanning.minTrials(tauAr, q, delta / 2);
            addRemove.put("m", mm);
            addRemove.put("epsilon_per_user", ChargePlanning.epsilonPrime(mm, stepEps, delta / 2));
        }
        m.put("add_remove", addRemove);
        return m;
    }
}
