package org.hotpate.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.mechanism.AutoPlanner;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.hotpate.core.mechanism.PrivacyAnalysis;
import org.hotpate.core.privacy.Conversion;
import org.hotpate.core.privacy.EpsilonAtOrder;
import org.hotpate.core.privacy.OrderGrid;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;
import org.hotpate.core.privacy.RdpConversions;

/**
 * {@code ./hotpate privacy cost|convert|plan}: plan a run's privacy. Pure computation over {@code
 * org.hotpate.core.privacy} and {@code org.hotpate.core.accounting}; prints one JSON object.
 */
public final class PrivacyCommand implements Command {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double[] DEFAULT_COST_ORDERS = {1.5, 2, 5, 10, 20, 50, 100};
    static final String DATA_DEPENDENT_NOTE =
            "PATE 2018 data-dependent analysis for CONTINUOUS noise: not a guarantee for hotpate's"
                    + " discrete noise (it can under-charge), not sanitised, computed from private"
                    + " votes; hotpate never charges or publishes it";

    @Override
    public String name() {
        return "privacy";
    }

    @Override
    public String summary() {
        return "RDP cost of a PATE step, RDP→(ε,δ) conversion, and run planning (JSON)";
    }

    @Override
    public String help() {
        return """
                usage: ./hotpate privacy cost    --mechanism gnmax|lnmax|threshold [OPTIONS]
                       ./hotpate privacy convert --orders A1,A2,.. --rdp R1,R2,.. (--delta D | --epsilon E)
                       ./hotpate privacy plan    (--mechanism M | --scheme a|b) --epsilon E --delta D [OPTIONS]

                cost: RDP per order of ONE step, data-independent and data-dependent (PATE 2018).
                  --mechanism gnmax     --votes C1,C2,.. --sigma S        GNMax, noise N(0,S²)
                  --mechanism lnmax     --votes C1,C2,.. --scale B        LNMax, noise Lap(B)
                  --mechanism threshold --votes C1,C2,.. --threshold T --sigma1 S1
                                        Confident-GNMax threshold step (max count + N(0,S1²) ≥ T)
                  --orders A1,A2,..     Rényi orders > 1 (default 1.5,2,5,10,20,50,100)
                  --vocabulary N        vocabulary size |V| >= number of votes; the tokens not
                                        listed have 0 votes and are grouped into one term
                                        (default: |V| = number of votes given)
                  prints {"orders":[..],"data_independent":[..],"data_dependent":[..],
                          "data_dependent_note":".."}
                  data_independent is what hotpate charges. data_dependent is PATE 2018's
                  analysis for CONTINUOUS noise, shown for comparison only: it is not a guarantee
                  for hotpate's discrete noise (it can under-charge), it is computed from the
                  votes (private) and it is not sanitised. Never publish or charge with it.

                convert: the (ε, δ) implied by an RDP curve.
                  --orders, --rdp       the curve (same length; orders > 1, rdp >= 0)
                  --delta D             prints {"epsilon":E,"order":A}
                  --epsilon E           (instead of --delta) prints {"delta":D}
                  --conversion improved|classic   (default improved; §7.3 of PRIVACY.md)

                plan: what fits a budget (all data-independent).
                  --epsilon E --delta D           the budget (per teacher for --scheme)
                  --mechanism gnmax --sigma S | lnmax --scale B
                            | confident-gnmax --sigma1 S1 --sigma2 S2 [--answered-fraction F]
                            | gaussian --sigma S [--sensitivity D]
                      -> "answered_queries": the largest N of answered queries that fit
                         (confident-gnmax: each answered query also pays 1/F threshold steps;
                         F defaults to 1, every query answered)
                  --scheme b --count-sigma S      Scheme B (default per-teacher scheme; mechanism
                      scheme-b): Gaussian count N(0,S²) with the Feldman-Zrnic Rényi filter ->
                      K, the number of involvements per teacher, α optimised (verified
                      statements). Without --mechanism, --sigma S may name the count's noise.
                      [--threshold T] [--sample-rate R]: echoed; with R also
                      "steps_at_full_agreement" = K/R, the steps a teacher that always votes the
                      tested token takes part in before it retires
                  --scheme a --step-epsilon e (--band-width W | --lower L --upper U)
                      Scheme A (explicit option, DERIVED proof, docs/proofs/scheme-a.md; mechanism
                      scheme-a): discrete-Laplace BetweenThresholds (noise ∝ e^{-e|k|}, band
                      W = U - L) with target charging -> τ, the charges per teacher (δ split in
                      halves). [--sample-rate R]: echoed
                  Per-teacher limits are planned under replace-one (hotpate's relation: one
                  user's data replaced by another's, n public), where a pair of worlds charges
                  both users: K (τ) is what fits the target when twice it is charged
                  (docs/proofs/replace-one.md). "epsilon_per_user": the ε at --delta of a user
                  at K (τ) charges against a replacement at K (τ). "add_remove": the larger
                  limit the add/remove statement would allow, for comparison only.
                  --mechanism auto --teachers N --vocabulary V --kind homogeneous|heterogeneous
                      --positions P   what mechanism: {name: auto} chooses for a run of n teachers,
                      |V| tokens and P = sequences x max-steps planned tokens: the mechanism, its
                      parameters and why (docs/privacy-efficiency.md; public inputs only)
                  --mechanism and --scheme may be combined; output keys "ensemble", "per_teacher".
                  --orders A1,..      orders for --mechanism (default: dp_accounting's default grid)
                  --conversion improved|classic   (default improved)

                Bad arguments exit with code 2.
                """;
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length == 0) {
            throw new UsageException("missing sub-command: cost, convert or plan (see --help)");
        }
        String sub = args[0];
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        Map<String, Object> result =
                switch (sub) {
                    case "cost" -> cost(rest);
                    case "convert" -> convert(rest);
                    case "plan" -> plan(rest);
                    default ->
                            throw new UsageException(
                                    "unknown sub-command '" + sub + "' (cost, convert or plan)");
                };
        out.println(JSON.writeValueAsString(result));
        return 0;
    }

    private static Map<String, Object> cost(String[] args) {
        CliArgs a =
                CliArgs.parse(
                        args,
                        Set.of(
                                "mechanism",
                                "votes",
                                "sigma",
                                "scale",
                                "threshold",
                                "sigma1",
                                "orders",
                                "vocabulary"),
                        Set.of());
        noPositional(a);
        String mech = a.required("mechanism");
        double[] orders = orders(a, DEFAULT_COST_ORDERS);
        int[] votes = a.intList("votes", null);
        if (votes.length == 0) {
            throw new UsageException("--votes must list at least one count");
        }
        double[] counts = new double[votes.length];
        for (int i = 0; i < votes.length; i++) {
            if (votes[i] < 0) {
                throw new UsageException("--votes must be counts >= 0; got " + votes[i]);
            }
            counts[i] = votes[i];
        }
        int vocab = a.intValue("vocabulary", votes.length);
        if (vocab < votes.length || vocab < 2) {
            throw new UsageException(
                    "--vocabulary must be >= the number of votes ("
                            + votes.length
                            + ") and >= 2; got "
                            + vocab);
        }
        PrivacyAnalysis.StepRdp step =
                MechanismRegistry.stepRdp(mech)
                        .orElseThrow(
                                () ->
                                        new UsageException(
                                                "--mechanism must be "
                                                        + orList(MechanismRegistry.stepRdpNames())
                                                        + "; got '"
                                                        + mech
                                                        + "'"));
        PrivacyAnalysis.Curves c = step.of(inputs(a), counts, vocab, orders);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("orders", orders);
        m.put("data_independent", c.dataIndependent());
        m.put("data_dependent", c.dataDependent());
        m.put("data_dependent_note", DATA_DEPENDENT_NOTE);
        return m;
    }

    private static Map<String, Object> convert(String[] args) {
        CliArgs a =
                CliArgs.parse(
                        args, Set.of("orders", "rdp", "delta", "epsilon", "conversion"), Set.of());
        noPositional(a);
        double[] orders = orders(a, null);
        double[] rdp = a.doubleList("rdp", null);
        if (rdp.length != orders.length) {
            throw new UsageException(
                    "--rdp must have one value per order ("
                            + orders.length
                            + "); got "
                            + rdp.length);
        }
        for (double r : rdp) {
            if (r < 0) {
                throw new UsageException("--rdp values must be >= 0; got " + r);
            }
        }
        Conversion conv = conversion(a);
        Map<String, Object> m = new LinkedHashMap<>();
        if (a.has("delta") == a.has("epsilon")) {
            throw new UsageException("give exactly one of --delta or --epsilon");
        }
        if (a.has("delta")) {
            double delta = a.doubleValue("delta", null);
            if (!(delta > 0 && delta < 1)) {
                throw new UsageException("--delta must be in (0, 1); got " + delta);
            }
            EpsilonAtOrder e = RdpConversions.epsilon(orders, rdp, delta, conv);
            m.put("epsilon", finiteOrNull(e.epsilon()));
            m.put("order", finiteOrNull(e.order()));
        } else {
            double eps = a.doubleValue("epsilon", null);
            if (eps < 0) {
                throw new UsageException("--epsilon must be >= 0; got " + eps);
            }
            m.put("delta", RdpConversions.delta(orders, rdp, eps, conv));
        }
        return m;
    }

    private static Map<String, Object> plan(String[] args) {
        CliArgs a =
                CliArgs.parse(
                        args,
                        Set.of(
                                "mechanism",
                                "scheme",
                                "epsilon",
                                "delta",
                                "sigma",
                                "scale",
                                "sigma1",
                                "sigma2",
                                "answered-fraction",
                                "sensitivity",
                                "step-epsilon",
                                "band-width",
                                "count-sigma",
                                "threshold",
                                "sample-rate",
                                "lower",
                                "upper",
                                "orders",
                                "conversion",
                                "teachers",
                                "vocabulary",
                                "kind",
                                "positions"),
                        Set.of());
        noPositional(a);
        double eps = positive(a, "epsilon");
        double delta = a.doubleValue("delta", null);
        if (!(delta > 0 && delta < 1)) {
            throw new UsageException("--delta must be in (0, 1); got " + delta);
        }
        if (!a.has("mechanism") && !a.has("scheme")) {
            throw new UsageException(
                    "give --mechanism (ensemble budget) and/or --scheme a|b (per-teacher limit)");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("epsilon", eps);
        b.put("delta", delta);
        m.put("budget", b);
        if (a.has("mechanism")) {
            m.put("ensemble", planMechanism(a, new PrivacyBudget(eps, delta)));
        }
        if (a.has("scheme")) {
            m.put("per_teacher", planScheme(a, eps, delta));
        }
        return m;
    }

    private static Map<String, Object> planMechanism(CliArgs a, PrivacyBudget budget) {
        String mech = a.required("mechanism");
        if (MechanismRegistry.is(mech, MechanismRegistry.Kind.AUTO)) {
            return planAuto(a, budget);
        }
        OrderGrid grid = OrderGrid.of(orders(a, OrderGrid.dpAccountingDefault().orders()));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mechanism", mech);
        List<String> planned = new ArrayList<>(List.of(MechanismRegistry.AUTO));
        planned.addAll(MechanismRegistry.answeredStepNames());
        PrivacyAnalysis.AnsweredStep step =
                MechanismRegistry.answeredStep(mech)
                        .orElseThrow(
                                () ->
                                        new UsageException(
                                                "--mechanism must be "
                                                        + orList(planned)
                                                        + "; got '"
                                                        + mech
                                                        + "'"));
        PrivacyAnalysis.Cost cost = step.costOf(inputs(a));
        double[] perAnswered = new double[grid.size()];
        for (PrivacyAnalysis.Share share : cost.shares()) {
            double[] rdp = rdpOf(share.event(), grid);
            for (int i = 0; i < perAnswered.length; i++) {
                perAnswered[i] += rdp[i] / share.answeredFraction();
            }
        }
        m.putAll(new TreeMap<>(cost.assumptions()));
        // an option only some analyses read is refused where it would be ignored
        for (String option : ONLY_WHERE_READ) {
            if (a.has(option) && !step.parameters().contains(option)) {
                throw new UsageException(
                        "--"
                                + option
                                + " applies to --mechanism "
                                + orList(
                                        MechanismRegistry.answeredStepNames().stream()
                                                .filter(
                                                        n ->
                                                                MechanismRegistry.answeredStep(n)
                                                                        .orElseThrow()
                                                                        .parameters()
                                                                        .contains(option))
                                                .toList())
                                + " only");
            }
        }
        // The run's filter fixes one order in advance: plan it for this per-answer cost.
        EnsembleBudgetFilter.Config cfg =
                EnsembleBudgetFilter.Config.plan(budget, grid, conversion(a), perAnswered, 0);
        long n = EnsembleBudgetFilter.maxReleases(cfg, perAnswered, 0);
        m.put("answered_queries", n);
        if (n > 0) {
            EpsilonAtOrder e = EnsembleBudgetFilter.epsilonAfter(cfg, perAnswered, 0, n);
            m.put("epsilon_spent", e.epsilon());
            m.put("order", e.order());
        }
        return m;
    }

    /** {@code --mechanism auto}: the plan a job spec's {@code mechanism: {name: auto}} gets. */
    private static Map<String, Object> planAuto(CliArgs a, PrivacyBudget budget) {
        int n = a.intValue("teachers", null);
        int v = a.intValue("vocabulary", null);
        long positions = a.longValue("positions", null);
        String kind = a.required("kind");
        if (n < 1 || v < 1 || positions < 1) {
            throw new UsageException("--teachers, --vocabulary and --positions must be >= 1");
        }
        if (!kind.equals("homogeneous") && !kind.equals("heterogeneous")) {
            throw new UsageException(
                    "--kind must be homogeneous or heterogeneous; got '" + kind + "'");
        }
        AutoPlanner.Plan p =
                AutoPlanner.plan(
                        new AutoPlanner.Inputs(
                                n, v, kind.equals("heterogeneous"), budget, positions));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mechanism", MechanismRegistry.AUTO);
        m.put("chosen", p.mechanism());
        m.put("params", p.params());
        m.put("threshold_share", p.thresholdShare());
        m.put("affordable_releases", p.affordableReleases());
        m.put("planned_steps", p.plannedSteps());
        m.put("budget_limited", p.budgetLimited());
        m.put("explanation", p.explanation());
        return m;
    }

    private static Map<String, Object> planScheme(CliArgs a, double eps, double delta) {
        String scheme = a.required("scheme");
        MechanismRegistry.PerTeacherEntry e =
                MechanismRegistry.perTeacherByLetter(scheme)
                        .orElseThrow(
                                () ->
                                        new UsageException(
                                                "--scheme must be "
                                                        + orList(
                                                                MechanismRegistry
                                                                        .perTeacherLetters())
                                                        + "; got '"
                                                        + scheme
                                                        + "'"));
        // --sigma names the count's noise when no --mechanism claims it
        PrivacyAnalysis.Inputs in =
                inputs(a, a.has("mechanism") ? Map.of() : Map.of("count-sigma", "sigma"));
        return e.report().report(in, eps, delta);
    }

    /** "x", "x or y", "x, y or z". */
    private static String orList(List<String> names) {
        int n = names.size();
        return n <= 1
                ? String.join("", names)
                : String.join(", ", names.subList(0, n - 1)) + " or " + names.get(n - 1);
    }

    /** Options the answered-query analyses read that are refused where they would be ignored. */
    private static final List<String> ONLY_WHERE_READ = List.of("sensitivity");

    private static PrivacyAnalysis.Inputs inputs(CliArgs a) {
        return inputs(a, Map.of());
    }

    /**
     * The command's options as a hook's inputs; {@code fallback}: a key read from another option
     * when its own is not given.
     */
    private static PrivacyAnalysis.Inputs inputs(CliArgs a, Map<String, String> fallback) {
        return new PrivacyAnalysis.Inputs() {
            private String key(String key) {
                return a.has(key) ? key : fallback.getOrDefault(key, key);
            }

            @Override
            public boolean has(String key) {
                return a.has(key);
            }

            @Override
            public double value(String key) {
                return a.doubleValue(key(key), null);
            }

            @Override
            public double value(String key, double dflt) {
                return a.doubleValue(key(key), dflt);
            }

            @Override
            public double positive(String key) {
                return PrivacyCommand.positive(a, key(key));
            }

            @Override
            public double unitFraction(String key, double dflt) {
                String k = key(key);
                double f = a.doubleValue(k, dflt);
                if (!(f > 0 && f <= 1)) {
                    throw new UsageException("--" + k + " must be in (0, 1]; got " + f);
                }
                return f;
            }

            @Override
            public String spell(String key) {
                return "--" + key;
            }

            @Override
            public RuntimeException invalid(String message) {
                return new UsageException(message);
            }
        };
    }

    private static double[] rdpOf(PrivacyEvent e, OrderGrid grid) {
        return RdpAccountant.rdpOf(e, grid);
    }

    private static double[] orders(CliArgs a, double[] dflt) {
        double[] o = a.doubleList("orders", dflt);
        if (o.length == 0) {
            throw new UsageException("--orders must not be empty");
        }
        for (double x : o) {
            if (!(x > 1)) {
                throw new UsageException("--orders must all be > 1; got " + x);
            }
        }
        return o;
    }

    private static double positive(CliArgs a, String key) {
        double v = a.doubleValue(key, null);
        if (!(v > 0)) {
            throw new UsageException("--" + key + " must be > 0; got " + v);
        }
        return v;
    }

    private static Conversion conversion(CliArgs a) {
        String c = a.string("conversion", "improved");
        return switch (c) {
            case "improved" -> Conversion.IMPROVED;
            case "classic" -> Conversion.CLASSIC;
            default ->
                    throw new UsageException(
                            "--conversion must be improved or classic; got '" + c + "'");
        };
    }

    private static void noPositional(CliArgs a) {
        if (!a.positional().isEmpty()) {
            throw new UsageException("unexpected argument '" + a.positional().get(0) + "'");
        }
    }

    private static Double finiteOrNull(double x) {
        return Double.isFinite(x) ? x : null;
    }
}
