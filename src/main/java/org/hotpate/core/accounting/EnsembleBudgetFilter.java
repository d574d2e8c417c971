package org.hotpate.core.accounting;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkState;

import java.util.Arrays;
import org.hotpate.core.privacy.Conversion;
import org.hotpate.core.privacy.EpsilonAtOrder;
import org.hotpate.core.privacy.OrderGrid;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;
import org.hotpate.core.privacy.RdpConversions;

/**
 * The ensemble-level privacy filter of a run: a <b>Rényi filter at one order α fixed in
 * advance</b>. It refuses any release that would take the run past its (ε, δ) budget — and, when
 * built with a {@link DatasetBudget}, past the dataset's budget over all runs (STYLE principle 4:
 * budget enforcement is its own component).
 *
 * <p><b>Statement.</b> Neighbouring relation: the events' (replace one teacher's data, n fixed and
 * public). Let α be {@link Config#order()}, B = {@link Config#rdpBudget()} the largest RDP value
 * whose conversion at α (at δ − δ_share) is ≤ ε, and δ_share = {@link Config#approxDeltaShare()}
 * the part of δ set aside for the δ terms of (ε, δ) events. α, B and δ_share are fixed before the
 * run from data-independent inputs only (the budget and the mechanism's worst-case event, {@link
 * Config#plan}). A release is admitted only if, with ρ_t(α) the RDP at α of release t,
 *
 * <pre>  Σ_{admitted t} ρ_t(α) + ρ_next(α) ≤ B   and   Σ_{admitted t} δ_t + δ_next ≤ δ_share,</pre>
 *
 * where ρ_next, δ_next describe the next release's <em>worst case</em>, known before it runs (it
 * depends only on public parameters and earlier outputs). Then the whole adaptively chosen sequence
 * of releases is (α, B)-RDP apart from the δ parts, hence (ε, δ)-DP: Feldman &amp; Zrnic 2021,
 * "Individual Privacy Accounting via a Rényi Filter" (NeurIPS), Thm 3.1 (adaptive composition with
 * predictable costs whose sum is bounded almost surely) and Thm 4.3 (the Rényi filter); the δ parts
 * compose additively against a δ fixed in advance as in the approximate-zCDP filter of Whitehouse,
 * Ramdas, Rogers &amp; Wu 2023, "Fully-Adaptive Composition in Differential Privacy" (ICML), each
 * (ε_t, δ_t) event being a post-processing of (ε_t, δ_t) randomized response (Kairouz–Oh–Viswanath
 * 2015). The conversion from (α, B)-RDP to (ε, δ − δ_share) at the single order α is {@link
 * Config#conversion()}: CKS 2020 Prop. 12 (improved) or Mironov 2017 Prop. 3 (classic).
 *
 * <p>Why one fixed order: taking the minimum over orders at every step (the rule this class used
 * before) lets different outcome paths lean on different orders; no single RDP statement then
 * covers the run, and that rule is not a valid filter (Whitehouse et al. 2023 discuss exactly this
 * for privacy filters over RDP). {@code EnsembleBudgetFilterTest} shows an adversary for which no
 * order would have covered what the old rule admitted.
 *
 * <p><b>What a printed ε means.</b> {@link #spentEpsilon()} is the conversion, at the fixed order α
 * and δ − δ_share, of the realized RDP sum Σρ_t(α) of the admitted releases. It is ≤ the budget ε
 * (a release is admitted only if it keeps it so), it is a function of public parameters and of the
 * released outputs only (so publishing it reveals nothing more), and it says how much of the budget
 * the releases used. The run's <em>guarantee</em> is its budget (ε, δ); spentEpsilon is itself a
 * guarantee when the sequence of charges is fixed in advance (every release costs the same and the
 * number of releases does not depend on the data), not in general (that would be a privacy
 * odometer).
 *
 * <p><b>Use.</b> Before a step, {@link #canAfford} (or {@link #judge}) with the mechanism's {@link
 * org.hotpate.core.mechanism.AggregationMechanism#worstCaseEvent()}; after the release, {@link
 * #charge(PrivacyEvent, PrivacyEvent)} with the realized event and that worst case. Deciding on the
 * realized event would let the step's own outcome decide whether it runs (a Confident-GNMax ⊥ costs
 * less than an answer), which is not a predictable cost.
 *
 * <p><b>State for Flink</b>: {@link #snapshot()} is one {@code double[]} of length |grid| + 4 (the
 * run's RDP per order, Σδ of (ε, δ) events, releases, answered, and the filter order as a check);
 * {@link #restore} rebuilds the filter from it with the same {@link Config} (and dataset prior).
 * The config is job configuration, re-planned identically from public inputs, not state.
 */
public final class EnsembleBudgetFilter {
    static final long MAX_RELEASES = 1_000_000_000_000_000L;

    /**
     * Immutable filter configuration: budget, order grid, conversion, the fixed order α (one of the
     * grid's orders) and δ_share ∈ [0, δ) set aside for (ε, δ) events.
     */
    public record Config(
            PrivacyBudget budget,
            OrderGrid grid,
            Conversion conversion,
            double order,
            double approxDeltaShare)
            implements java.io.Serializable {
        public Config {
            checkNotNull("budget", budget);
            checkNotNull("grid", grid);
            checkNotNull("conversion", conversion);
            checkArgument(
                    indexOf(grid, order) >= 0,
                    "order must be one of the grid's orders; got " + order);
            checkArgument(
                    approxDeltaShare >= 0 && approxDeltaShare < budget.delta(),
                    "approxDeltaShare must be in [0, delta) = [0, "
                            + budget.delta()
                            + "); got "
                            + approxDeltaShare);
        }

        /** The fixed order's index in the grid. */
        public int orderIndex() {
            return indexOf(grid, order);
        }

        /**
         * The δ at which the RDP part is converted: δ − δ_share, rounded down (so that it plus the
         * δ share never exceeds δ).
         */
        public double rdpDelta() {
            return approxDeltaShare == 0
                    ? budget.delta()
                    : Math.nextDown(budget.delta() - approxDeltaShare);
        }

        /**
         * ε of an RDP value at the fixed order (this config's conversion, at {@link #rdpDelta}); 0
         * for RDP 0 (identical output laws), which the classic formula would not give.
         */
        public double epsilonAt(double rdpAtOrder) {
            if (rdpAtOrder == 0) {
                return 0;
            }
            return Math.max(
                    0, RdpConversions.epsilonAtOrder(order, rdpAtOrder, rdpDelta(), conversion));
        }

        /**
         * B: the largest double r with {@link #epsilonAt}(r) ≤ ε (≥ 0, since RDP 0 is ε 0). The
         * filter admits while the RDP sum at the order stays ≤ B, so it refuses exactly at the
         * budget. Computed from the closed form of the conversion and corrected ulp by ulp
         * (epsilonAt is non-decreasing in r).
         */
        public double rdpBudget() {
            double eps = budget.epsilon();
            double d = rdpDelta();
            double guess =
                    conversion == Conversion.CLASSIC
                            ? eps + Math.log(d) / (order - 1)
                            : order > 1.01
                                    ? eps
                                            - Math.log1p(-1 / order)
                                            + (Math.log(d) + Math.log(order)) / (order - 1)
                                    : 0;
            if (conversion == Conversion.IMPROVED) {
                guess = Math.max(guess, -Math.log1p(-d * d)); // the Pinsker region converts to 0
            }
            double r = Math.max(0, guess);
            for (int step = 0; step < 256; step++) {
                if (!(epsilonAt(r) <= eps)) {
                    r = Math.nextDown(r);
                } else if (r < Double.MAX_VALUE && epsilonAt(Math.nextUp(r)) <= eps) {
                    r = Math.nextUp(r);
                } else {
                    return r;
                }
            }
            return bisect(eps);
        }

        private double bisect(double eps) {
            // non-negative doubles are ordered like their bit patterns
            long lo = Double.doubleToLongBits(0.0);
            long hi = Double.doubleToLongBits(Double.MAX_VALUE);
            if (epsilonAt(Double.MAX_VALUE) <= eps) {
                return Double.MAX_VALUE;
            }
            while (hi - lo > 1) {
                long mid = lo + (hi - lo) / 2;
                if (epsilonAt(Double.longBitsToDouble(mid)) <= eps) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            return Double.longBitsToDouble(lo);
        }

        /** {@link #plan(PrivacyBudget, OrderGrid, Conversion, PrivacyEvent)} with the defaults. */
        public static Config plan(PrivacyBudget budget, PrivacyEvent worstCasePerRelease) {
            return plan(
                    budget,
                    OrderGrid.dpAccountingDefault(),
                    Conversion.IMPROVED,
                    worstCasePerRelease);
        }

        /** Plans the order and δ share for a mechanism's worst-case release (data-independent). */
        public static Config plan(
                PrivacyBudget budget,
                OrderGrid grid,
                Conversion conversion,
                PrivacyEvent worstCasePerRelease) {
            checkNotNull("worstCasePerRelease", worstCasePerRelease);
            checkNotNull("grid", grid);
            return plan(
                    budget,
                    grid,
                    conversion,
                    RdpAccountant.rdpOf(worstCasePerRelease, grid),
                    RdpAccountant.deltaOf(worstCasePerRelease));
        }

        /**
         * The order (of the grid) and δ share that admit the most releases of the given worst-case
         * cost; ties go to the order with the smaller ε after that many releases, then to the
         * smaller order. The inputs are public, so the plan is data-independent.
         */
        public static Config plan(
                PrivacyBudget budget,
                OrderGrid grid,
                Conversion conversion,
                double[] rdpPerRelease,
                double deltaPerRelease) {
            return FilterPlanning.plan(budget, grid, conversion, rdpPerRelease, deltaPerRelease);
        }

        /**
         * The δ share at a given order that admits the most releases of the given cost: 0 when
         * releases have no δ part, else N·δ·(1 + 10⁻⁶) for the largest feasible N (the slack
         * absorbs the rounding of the running Σδ). Used for a dataset's first use, whose order is
         * the first run's.
         */
        public static Config planAtOrder(
                PrivacyBudget budget,
                OrderGrid grid,
                Conversion conversion,
                double order,
                double[] rdpPerRelease,
                double deltaPerRelease) {
            return FilterPlanning.planAtOrder(
                    budget, grid, conversion, order, rdpPerRelease, deltaPerRelease);
        }

        static int indexOf(OrderGrid grid, double order) {
            for (int i = 0; i < grid.size(); i++) {
                if (grid.order(i) == order) {
                    return i;
                }
            }
            return -1;
        }
    }

    /** The filter's verdict on a worst-case event. */
    public enum Verdict {
        ADMIT,
        /** This run's budget would be passed. */
        RUN_BUDGET_EXHAUSTED,
        /** The run fits, but the dataset's budget over all runs would be passed. */
        DATASET_BUDGET_EXHAUSTED
    }

    /** What is spent and what is left; {@code order} is the filter's fixed order. */
    public record Report(
            double budgetEpsilon,
            double delta,
            double spentEpsilon,
            double remainingEpsilon,
            double order,
            long releases,
            long answered) {}

    private final Config config;
    private final double rdpBudget;
    private final DatasetBudget dataset; // null: no dataset budget
    private final double datasetRdpBudget;
    private final double[] rdp;
    private double approxDelta;
    private long releases;
    private long answered;

    private EnsembleBudgetFilter(
            Config config,
            DatasetBudget dataset,
            double[] rdp,
            double approxDelta,
            long releases,
            long answered) {
        this.config = config;
        this.rdpBudget = config.rdpBudget();
        this.dataset = dataset;
        this.datasetRdpBudget =
                dataset == null ? Double.POSITIVE_INFINITY : dataset.config().rdpBudget();
        this.rdp = rdp;
        this.approxDelta = approxDelta;
        this.releases = releases;
        this.answered = answered;
    }

    /** A fresh filter for one run. */
    public static EnsembleBudgetFilter create(Config config) {
        checkNotNull("config", config);
        return new EnsembleBudgetFilter(config, null, new double[config.grid().size()], 0, 0, 0);
    }

    /**
     * A fresh filter for one run on a dataset that earlier runs have used: it admits a release only
     * if it fits both this run's budget and the dataset's budget over all runs (the earlier runs'
     * composed curve in {@code dataset} plus this run). Both filters have orders fixed in advance,
     * so checking them together is valid (stopping for either reason is an adaptive choice).
     */
    public static EnsembleBudgetFilter create(Config config, DatasetBudget dataset) {
        checkNotNull("config", config);
        checkNotNull("dataset", dataset);
        checkArgument(
                dataset.config().grid().equals(config.grid()),
                "the dataset budget and the run must use the same order grid");
        return new EnsembleBudgetFilter(config, dataset, new double[config.grid().size()], 0, 0, 0);
    }

    /** Rebuilds a run's filter from {@link #snapshot()}. */
    public static EnsembleBudgetFilter restore(Config config, double[] snapshot) {
        return restore(config, null, snapshot);
    }

    /**
     * Rebuilds a run's filter from {@link #snapshot()} and the dataset prior it was created with
     * ({@code dataset} may be null: no dataset budget).
     */
    public static EnsembleBudgetFilter restore(
            Config config, DatasetBudget dataset, double[] snapshot) {
        checkNotNull("config", config);
        checkNotNull("snapshot", snapshot);
        int k = config.grid().size();
        checkArgument(
                snapshot.length == k + 4,
                "snapshot must have " + (k + 4) + " values for this grid; got " + snapshot.length);
        checkArgument(
                snapshot[k + 3] == config.order(),
                "snapshot was taken with filter order "
                        + snapshot[k + 3]
                        + "; the config has "
                        + config.order());
        double[] rdp = Arrays.copyOf(snapshot, k);
        for (double r : rdp) {
            checkArgument(r >= 0, "rdp values must be >= 0; got " + r);
        }
        long rel = (long) snapshot[k + 1];
        long ans = (long) snapshot[k + 2];
        checkArgument(
                rel >= 0 && ans >= 0 && ans <= rel,
                "need 0 <= answered <= releases; got answered=" + ans + ", releases=" + rel);
        checkArgument(snapshot[k] >= 0 && snapshot[k] <= 1, "approxDelta must be in [0, 1]");
        if (dataset != null) {
            checkArgument(
                    dataset.config().grid().equals(config.grid()),
                    "the dataset budget and the run must use the same order grid");
        }
        return new EnsembleBudgetFilter(config, dataset, rdp, snapshot[k], rel, ans);
    }

    /** The whole state: RDP per order, then Σδ, releases, answered and the filter order. */
    public double[] snapshot() {
        double[] s = Arrays.copyOf(rdp, rdp.length + 4);
        s[rdp.length] = approxDelta;
        s[rdp.length + 1] = releases;
        s[rdp.length + 2] = answered;
        s[rdp.length + 3] = config.order();
        return s;
    }

    /** Whether a release whose worst case is {@code worstCaseEvent} may run. */
    public boolean canAfford(PrivacyEvent worstCaseEvent) {
        return judge(worstCaseEvent) == Verdict.ADMIT;
    }

    /** The verdict on a release whose worst case is {@code worstCaseEvent}. */
    public Verdict judge(PrivacyEvent worstCaseEvent) {
        checkNotNull("worstCaseEvent", worstCaseEvent);
        return judge(
                RdpAccountant.rdpOf(worstCaseEvent, config.grid()),
                RdpAccountant.deltaOf(worstCaseEvent));
    }

    private Verdict judge(double[] add, double addDelta) {
        int i = config.orderIndex();
        if (!(rdp[i] + add[i] <= rdpBudget)
                || !(approxDelta + addDelta <= config.approxDeltaShare())) {
            return Verdict.RUN_BUDGET_EXHAUSTED;
        }
        if (dataset != null) {
            int j = dataset.config().orderIndex();
            double total = dataset.priorRdpAtOrder() + rdp[j] + add[j];
            double deltaTotal = dataset.priorApproxDelta() + approxDelta + addDelta;
            if (!(total <= datasetRdpBudget)
                    || !(deltaTotal <= dataset.config().approxDeltaShare())) {
                return Verdict.DATASET_BUDGET_EXHAUSTED;
            }
        }
        return Verdict.ADMIT;
    }

    /**
     * Charges a release that was admitted on {@code admittedWorstCase}: the realized event is
     * charged (it must not cost more than the worst case at any order, else {@link
     * IllegalArgumentException}); {@link IllegalStateException}, state unchanged, if the worst case
     * does not fit.
     */
    public void charge(PrivacyEvent realized, PrivacyEvent admittedWorstCase) {
        checkNotNull("realized", realized);
        checkNotNull("admittedWorstCase", admittedWorstCase);
        double[] worst = RdpAccountant.rdpOf(admittedWorstCase, config.grid());
        double[] real = RdpAccountant.rdpOf(realized, config.grid());
        for (int i = 0; i < worst.length; i++) {
            checkArgument(
                    real[i] <= worst[i],
                    "the realized event "
                            + realized
                            + " costs more than its worst case "
                            + admittedWorstCase
                            + " at order "
                            + config.grid().order(i));
        }
        checkArgument(
                RdpAccountant.deltaOf(realized) <= RdpAccountant.deltaOf(admittedWorstCase),
                "the realized event's delta exceeds its worst case's");
        Verdict v = judge(worst, RdpAccountant.deltaOf(admittedWorstCase));
        checkState(v == Verdict.ADMIT, refusalMessage(admittedWorstCase, v));
        apply(realized, real);
    }

    /**
     * Charges a release whose event is known to be its own worst case (data-independent events,
     * tools, tests); answered is inferred (ConfidentGnmax: its flag; NoOp: not a release; others:
     * answered). {@link IllegalStateException}, state unchanged, past the budget.
     */
    public void charge(PrivacyEvent event) {
        checkNotNull("event", event);
        if (event instanceof PrivacyEvent.NoOp) {
            return;
        }
        double[] add = RdpAccountant.rdpOf(event, config.grid());
        Verdict v = judge(add, RdpAccountant.deltaOf(event));
        checkState(v == Verdict.ADMIT, refusalMessage(event, v));
        apply(event, add);
    }

    /**
     * Charges a release made before the run's steps (the population prior, {@code
     * protocol.PriorPlan}): its cost counts like any release, but it is not a step — the release
     * and answer counts stay as they are. {@link IllegalStateException}, state unchanged, past the
     * budget.
     */
    public void precharge(PrivacyEvent event) {
        checkNotNull("event", event);
        double[] add = RdpAccountant.rdpOf(event, config.grid());
        Verdict v = judge(add, RdpAccountant.deltaOf(event));
        checkState(v == Verdict.ADMIT, refusalMessage(event, v));
        for (int i = 0; i < rdp.length; i++) {
            rdp[i] += add[i];
        }
        approxDelta = Math.min(1, approxDelta + RdpAccountant.deltaOf(event));
    }

    private void apply(PrivacyEvent event, double[] add) {
        if (event instanceof PrivacyEvent.NoOp) {
            return;
        }
        for (int i = 0; i < rdp.length; i++) {
            rdp[i] += add[i];
        }
        approxDelta = Math.min(1, approxDelta + RdpAccountant.deltaOf(event));
        releases++;
        if (!(event instanceof PrivacyEvent.ConfidentGnmax c) || c.answered()) {
            answered++;
        }
    }

    private String refusalMessage(PrivacyEvent event, Verdict v) {
        return "privacy budget exhausted: releasing "
                + event.getClass().getSimpleName()
                + (v == Verdict.DATASET_BUDGET_EXHAUSTED
                        ? " would exceed the dataset's epsilon="
                                + dataset.config().budget().epsilon()
                        : " would exceed epsilon=" + config.budget().epsilon())
                + " at delta="
                + config.budget().delta()
                + " (spent "
                + spentEpsilon()
                + " at order "
                + config.order()
                + ")";
    }

    /**
     * ε spent so far: the conversion at the fixed order of the realized RDP sum (see the class
     * Javadoc for what it means); ≤ the budget.
     */
    public double spentEpsilon() {
        return config.epsilonAt(rdp[config.orderIndex()]);
    }

    public double remainingEpsilon() {
        return Math.max(0, config.budget().epsilon() - spentEpsilon());
    }

    /**
     * The dataset's ε over all runs so far including this one (the same conversion at the dataset's
     * fixed order); NaN without a dataset budget.
     */
    public double datasetEpsilon() {
        if (dataset == null) {
            return Double.NaN;
        }
        int j = dataset.config().orderIndex();
        return dataset.config().epsilonAt(dataset.priorRdpAtOrder() + rdp[j]);
    }

    public Report report() {
        double spent = spentEpsilon();
        return new Report(
                config.budget().epsilon(),
                config.budget().delta(),
                spent,
                Math.max(0, config.budget().epsilon() - spent),
                config.order(),
                releases,
                answered);
    }

    public long releases() {
        return releases;
    }

    public long answered() {
        return answered;
    }

    public Config config() {
        return config;
    }

    /** The dataset budget this filter also enforces, or null. */
    public DatasetBudget dataset() {
        return dataset;
    }

    /** A copy of this run's RDP curve (all orders of the grid; for the durable ledger). */
    public double[] rdp() {
        return rdp.clone();
    }

    /** Σδ of this run's (ε, δ) events. */
    public double approxDelta() {
        return approxDelta;
    }

    /**
     * Planning under the filter's rule: the largest N such that N releases, each costing {@code
     * rdpPerRelease} (on the config's grid) and {@code deltaPerRelease}, fit at the config's fixed
     * order and δ share (0 if not even one fits; capped at 10¹⁵). The filter sums release by
     * release, so at the boundary it may admit one fewer when that running sum rounds up.
     */
    public static long maxReleases(Config config, double[] rdpPerRelease, double deltaPerRelease) {
        return FilterPlanning.maxReleases(config, rdpPerRelease, deltaPerRelease);
    }

    /** {@link #maxReleases(Config, double[], double)} for a worst-case event. */
    public static long maxReleases(Config config, PrivacyEvent worstCaseEvent) {
        return maxReleases(
                config,
                RdpAccountant.rdpOf(worstCaseEvent, config.grid()),
                RdpAccountant.deltaOf(worstCaseEvent));
    }

    /** ε at the config's fixed order after n releases of the given cost (∞ past the δ share). */
    public static EpsilonAtOrder epsilonAfter(
            Config config, double[] rdpPerRelease, double deltaPerRelease, long n) {
        checkNotNull("config", config);
        if (n * deltaPerRelease > config.approxDeltaShare()) {
            return new EpsilonAtOrder(Double.POSITIVE_INFINITY, config.order());
        }
        return new EpsilonAtOrder(
                config.epsilonAt(n * rdpPerRelease[config.orderIndex()]), config.order());
    }
}
