package org.hotpate.protocol;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.hotpate.core.accounting.DatasetBudget;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.privacy.OrderGrid;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;
import org.hotpate.model.BudgetRecord;

/**
 * The run's budget: where a run's own budget ({@code budget.epsilon}) and its dataset's durable
 * budget ({@code budget.dataset-epsilon}, over all runs) meet, on core's valid filter ({@link
 * EnsembleBudgetFilter}: a Rényi filter at one order fixed in advance, admitting on the mechanism's
 * worst-case event). The run's filter is planned from the run's terms and the mechanism's worst
 * case; the dataset's filter ({@link DatasetBudget}) keeps the plan fixed at the dataset's first
 * use — stored in every ledger entry ({@link BudgetRecord#datasetPlan()}), later runs take the
 * earliest one — plus the composition of every earlier run's curve ({@link DatasetPrior}). A
 * release is admitted ({@link #admit}) only if both admit its worst case, and is then charged with
 * its realized event, so the run stops at whichever budget comes first.
 *
 * <p>A non-private mechanism runs only with {@code budget.epsilon: .inf} (the spec refuses
 * otherwise): its run has no filter, every release is counted, and its ε is +∞. A DP mechanism with
 * {@code budget.epsilon: .inf} has no run cap either; its curve is still composed and recorded.
 *
 * <p>Mutable (one per run, owned by the accountant); its state is {@link #snapshot()}, restored
 * with {@link #restore}.
 */
public final class RunBudget {
    private static final Map<List<Object>, EnsembleBudgetFilter.Config> PLANS =
            new ConcurrentHashMap<>();

    private final BudgetTerms terms;
    private final DatasetPrior prior;
    private final PrivacyEvent worst;
    private final PriorPlan.Charge preCharge; // the population prior's release, or null
    private final DatasetBudget dataset;
    private final EnsembleBudgetFilter filter; // null: no run cap
    private final double[] uncapped; // the curve without a run cap: rdp..., Σδ, releases, answered

    private RunBudget(
            BudgetTerms terms,
            DatasetPrior prior,
            PrivacyEvent worst,
            PriorPlan priorPlan,
            double[] snapshot) {
        this.terms = terms;
        this.prior = prior;
        this.worst = worst;
        this.preCharge = priorCharge(terms, prior, worst, priorPlan);
        this.dataset = datasetBudget(prior, terms, worst);
        EnsembleBudgetFilter.Config run = runConfig(terms, worst, eventOf(preCharge));
        if (run == null) {
            this.filter = null;
            this.uncapped = snapshot == null ? new double[grid().size() + 3] : snapshot.clone();
        } else {
            this.uncapped = null;
            this.filter =
                    snapshot == null
                            ? (dataset == null
                                    ? EnsembleBudgetFilter.create(run)
                                    : EnsembleBudgetFilter.create(run, dataset))
                            : EnsembleBudgetFilter.restore(run, dataset, snapshot);
            if (snapshot == null && preCharge != null) {
                filter.precharge(preCharge.event()); // before any step: the run's ε covers it
            }
        }
    }

    /** A fresh run on a dataset with this prior, whose releases have worst case {@code worst}. */
    public static RunBudget start(BudgetTerms terms, DatasetPrior prior, PrivacyEvent worst) {
        return new RunBudget(terms, prior, worst, null, null);
    }

    /**
     * A fresh run that released a population prior planned by {@code priorPlan} before its first
     * step (null: none): its filter (and the dataset's, with a cap) charges it first ({@link
     * PriorPlan#charge}). A run with a prior needs a run cap.
     */
    public static RunBudget start(
            BudgetTerms terms, DatasetPrior prior, PrivacyEvent worst, PriorPlan priorPlan) {
        return new RunBudget(terms, prior, worst, priorPlan, null);
    }

    /** The prior's charge for a run with these inputs, or null without a prior. */
    public static PriorPlan.Charge priorCharge(
            BudgetTerms terms, DatasetPrior prior, PrivacyEvent worst, PriorPlan priorPlan) {
        return priorPlan == null ? null : priorPlan.charge(terms, worst, prior);
    }

    private static PrivacyEvent eventOf(PriorPlan.Charge c) {
        return c == null ? null : c.event();
    }

    /** A run restored from its own state ({@link #snapshot()}). */
    public static RunBudget restore(
            BudgetTerms terms, DatasetPrior prior, PrivacyEvent worst, double[] snapshot) {
        return new RunBudget(terms, prior, worst, null, snapshot);
    }

    /** A run with a prior restored from its own state (which already holds the prior's charge). */
    public static RunBudget restore(
            BudgetTerms terms,
            DatasetPrior prior,
            PrivacyEvent worst,
            PriorPlan priorPlan,
            double[] snapshot) {
        return new RunBudget(terms, prior, worst, priorPlan, snapshot);
    }

    /** The order grid of every run's curve (the filter's default grid). */
    public static OrderGrid grid() {
        return OrderGrid.dpAccountingDefault();
    }

    /**
     * The run's filter configuration, planned from public inputs only (ε, δ, the mechanism's worst
     * case); null without a run cap (ε = .inf). Cached: the same plan every time.
     */
    public static EnsembleBudgetFilter.Config runConfig(BudgetTerms b, PrivacyEvent worst) {
        if (!b.runCapped() || worst instanceof PrivacyEvent.NotPrivate) {
            return null;
        }
        return PLANS.computeIfAbsent(
                List.of(b.epsilon(), b.delta(), worst),
                k ->
                        EnsembleBudgetFilter.Config.plan(
                                new PrivacyBudget(b.epsilon(), b.delta()), worst));
    }

    /**
     * The run's filter configuration when {@code preCharge} (the population prior) is charged
     * before the first step: the same order (planned as if there were no prior, so the prior's own
     * plan does not depend on itself), with the prior's δ term added to the δ share.
     */
    public static EnsembleBudgetFilter.Config runConfig(
            BudgetTerms b, PrivacyEvent worst, PrivacyEvent preCharge) {
        EnsembleBudgetFilter.Config c = runConfig(b, worst);
        if (c == null || preCharge == null || RdpAccountant.deltaOf(preCharge) == 0) {
            return c;
        }
        return new EnsembleBudgetFilter.Config(
                c.budget(),
                c.grid(),
                c.conversion(),
                c.order(),
                c.approxDeltaShare() + RdpAccountant.deltaOf(preCharge) * (1 + 1e-6));
    }

    /**
     * The dataset's budget for a run: the stored plan if the dataset has one, else the plan of its
     * first use (this run's order); null without a dataset cap (or without a run filter to take the
     * order from).
     */
    static DatasetBudget datasetBudget(DatasetPrior p, BudgetTerms b, PrivacyEvent worst) {
        if (p.hasPlan()) {
            return p.plannedBudget(); // whatever this run's budget.dataset-epsilon says
        }
        if (!b.datasetCapped()) {
            return null;
        }
        EnsembleBudgetFilter.Config run = runConfig(b, worst);
        if (run == null) {
            return null;
        }
        DatasetBudget first =
                DatasetBudget.firstUse(
                        new PrivacyBudget(b.datasetEpsilon(), b.delta()), run, worst);
        return DatasetBudget.of(first.config(), List.of(p.rdp()), p.approxDelta());
    }

    /**
     * The dataset cap the filter actually enforces for a run: the ε of the dataset's plan, fixed at
     * its first use and never re-planned ({@link DatasetPrior#plannedBudget()}) — so a later run's
     * {@code budget.dataset-epsilon} ({@code b.datasetEpsilon()}, the requested cap) does not
     * change it; the requested cap for a dataset without a plan yet (this run plans it); +∞ without
     * one.
     */
    public static double enforcedDatasetEpsilon(DatasetPrior p, BudgetTerms b, PrivacyEvent worst) {
        if (!datasetCapped(p, b)) {
            return Double.POSITIVE_INFINITY;
        }
        DatasetBudget d = datasetBudget(p, b, worst);
        return d == null ? b.datasetEpsilon() : d.config().budget().epsilon();
    }

    /**
     * Whether the dataset has a cap: this run asks for one, or an earlier run fixed one (its plan).
     * A cap, once planned, binds every later run — one with {@code budget.dataset-epsilon: .inf}
     * included — or any run could lift it.
     */
    public static boolean datasetCapped(DatasetPrior p, BudgetTerms b) {
        return b.datasetCapped() || p.hasPlan();
    }

    /**
     * Whether this run would plan the dataset's cap after the dataset was already used without one
     * (issue 23): the order and the cap would be chosen after earlier runs' outputs were seen, so
     * the cap would not be a guarantee. A dataset's cap is planned at its first run or never.
     */
    public static boolean capPlannedAfterUse(DatasetPrior p, BudgetTerms b) {
        return b.datasetCapped() && !p.hasPlan() && p.runs() > 0 && !p.nonPrivate();
    }

    /** The plan ({@link BudgetRecord#datasetPlan()}) of a dataset budget; empty for null. */
    private static double[] planOf(DatasetBudget d) {
        return d == null ? new double[0] : Arrays.copyOf(d.toState(), 5);
    }

    /**
     * Admission of a run on its dataset: whether the dataset can afford this run spending its whole
     * {@code budget.epsilon} on worst-case releases ({@code worst}), composed with the earlier runs
     * — so a run that starts is never cut short by the dataset cap in the expected case, and a run
     * for which not enough is left exits before it starts. (The per-release dataset filter still
     * enforces the cap exactly.) Always true without a dataset cap.
     */
    public static boolean hasRoom(DatasetPrior p, BudgetTerms b, PrivacyEvent worst) {
        return hasRoom(p, b, worst, null);
    }

    /**
     * {@link #hasRoom(DatasetPrior, BudgetTerms, PrivacyEvent)} for a run that releases a
     * population prior first ({@code priorPlan}; null: none): the prior's RDP and its δ term count
     * in the full run, so a prior that does not fit the dataset (its δ share included) is refused
     * before it is drawn.
     */
    public static boolean hasRoom(
            DatasetPrior p, BudgetTerms b, PrivacyEvent worst, PriorPlan priorPlan) {
        if (!datasetCapped(p, b)) {
            return true;
        }
        if (p.nonPrivate()) {
            return false;
        }
        // the requested cap and the enforced one (the plan's, which a later run cannot change)
        return epsilonWithFullRun(p, b, worst, priorPlan)
                <= Math.min(b.datasetEpsilon(), enforcedDatasetEpsilon(p, b, worst));
    }

    /**
     * The dataset's ε (at its fixed order) if this run spent its whole budget on {@code worst}
     * releases (+∞ past the dataset's δ share).
     */
    public static double epsilonWithFullRun(DatasetPrior p, BudgetTerms b, PrivacyEvent worst) {
        return epsilonWithFullRun(p, b, worst, null);
    }

    /**
     * {@link #epsilonWithFullRun(DatasetPrior, BudgetTerms, PrivacyEvent)} with the population
     * prior {@code priorPlan} (null: none) charged first: its RDP and δ term, then the worst-case
     * releases that fit the run's budget after it.
     */
    public static double epsilonWithFullRun(
            DatasetPrior p, BudgetTerms b, PrivacyEvent worst, PriorPlan priorPlan) {
        DatasetBudget d = datasetBudget(p, b, worst);
        EnsembleBudgetFilter.Config run = runConfig(b, worst);
        if (d == null || run == null) {
            return Double.POSITIVE_INFINITY;
        }
        long k = Math.max(1, EnsembleBudgetFilter.maxReleases(run, worst));
        double[] per = RdpAccountant.rdpOf(worst, grid());
        double[] pre = new double[per.length];
        double preDelta = 0;
        if (priorPlan != null) {
            PriorPlan.Charge c = priorPlan.charge(b, worst, p);
            pre = RdpAccountant.rdpOf(c.event(), grid());
            preDelta = c.coupling();
            int a = run.orderIndex();
            if (per[a] > 0) { // the releases that still fit the run's Rényi budget after the prior
                k =
                        Math.max(
                                1,
                                Math.min(
                                        k, (long) Math.floor((run.rdpBudget() - pre[a]) / per[a])));
            }
        }
        double[] full = new double[per.length];
        for (int i = 0; i < full.length; i++) {
            full[i] = pre[i] + k * per[i];
        }
        return d.plusRun(full, Math.min(1, preDelta + k * RdpAccountant.deltaOf(worst)))
                .spentEpsilon();
    }

    private boolean datasetBlocked() {
        return prior.nonPrivate() && datasetCapped(prior, terms);
    }

    /** A release without a DP guarantee costs +∞: never admitted under a finite budget. */
    private boolean notPrivateUnderABudget() {
        return worst instanceof PrivacyEvent.NotPrivate
                && (terms.runCapped() || datasetCapped(prior, terms));
    }

    /** Whether the run's and the dataset's filter both admit a release of the worst case. */
    public boolean canAfford() {
        if (datasetBlocked() || notPrivateUnderABudget()) {
            return false;
        }
        return filter == null || filter.canAfford(worst);
    }

    /**
     * Admits a release on the worst case and charges its {@code realized} event — or, if either
     * filter refuses it, changes nothing and returns false. Admission never looks at the realized
     * event (its cost could reveal the outcome).
     */
    public boolean admit(PrivacyEvent realized) {
        if (!canAfford()) {
            return false;
        }
        try {
            charge(realized);
            return true;
        } catch (IllegalStateException e) {
            return false; // does not fit: nothing changed
        }
    }

    /**
     * Charges a release admitted on the worst case with its {@code realized} event; throws {@link
     * IllegalStateException}, leaving the state unchanged, if it does not fit.
     */
    void charge(PrivacyEvent realized) {
        if (datasetBlocked()) {
            throw new IllegalStateException(
                    "dataset " + prior.dataset() + " was used by a non-private run");
        }
        if (notPrivateUnderABudget()) {
            throw new IllegalStateException(
                    "a release without a DP guarantee cannot be charged to a finite budget");
        }
        if (filter != null) {
            filter.charge(realized, worst);
            return;
        }
        int k = grid().size();
        if (!(realized instanceof PrivacyEvent.NotPrivate)) {
            double[] add = RdpAccountant.rdpOf(realized, grid());
            for (int i = 0; i < k; i++) {
                uncapped[i] += add[i];
            }
            uncapped[k] = Math.min(1, uncapped[k] + RdpAccountant.deltaOf(realized));
        }
        uncapped[k + 1]++;
        if (!(realized instanceof PrivacyEvent.ConfidentGnmax c) || c.answered()) {
            uncapped[k + 2]++;
        }
    }

    /** The run's own state (what the accountant keeps in Flink state). */
    public double[] snapshot() {
        return filter != null ? filter.snapshot() : uncapped.clone();
    }

    /** The run's ε (+∞ without a run cap: no finite guarantee was planned). */
    public double runEpsilon() {
        return filter != null ? filter.spentEpsilon() : Double.POSITIVE_INFINITY;
    }

    /** The dataset's ε over all runs, this one included (+∞ after a non-private run). */
    public double datasetEpsilon() {
        if (prior.nonPrivate() || worst instanceof PrivacyEvent.NotPrivate) {
            return Double.POSITIVE_INFINITY;
        }
        if (filter != null && dataset != null) {
            return filter.datasetEpsilon();
        }
        double[] s = snapshot();
        int k = grid().size();
        double[] rdp = new double[k];
        for (int i = 0; i < k; i++) {
            rdp[i] = prior.rdp()[i] + s[i];
        }
        return new DatasetPrior(
                        prior.dataset(),
                        rdp,
                        Math.min(1, prior.approxDelta() + approxDeltaWithoutPrior(s[k])),
                        0,
                        0,
                        prior.runs() + 1,
                        false,
                        planOf(dataset),
                        Math.min(1, prior.priorSlack() + priorSlack()))
                .epsilon(terms.delta(), runConfig(terms, worst));
    }

    /** η of the run's population prior (0 without one). */
    public double priorSlack() {
        return preCharge == null ? 0 : preCharge.slack();
    }

    /**
     * The run's Σδ without its prior's δ term, which the ledger records as η instead (the dataset
     * composes it at its own ε). Rounded up: never below the other terms' sum.
     */
    private double approxDeltaWithoutPrior(double sum) {
        if (preCharge == null || preCharge.coupling() == 0) {
            return sum;
        }
        double rest = sum - preCharge.coupling();
        return rest <= 0 ? 0 : Math.min(1, Math.nextUp(rest + Math.ulp(sum)));
    }

    /** The releases charged so far. */
    public long releases() {
        return (long) snapshot()[grid().size() + 1];
    }

    /**
     * This run's entry for the durable ledger, with the dataset's plan; with a prior, its η in
     * {@link BudgetRecord#priorSlack()} and its δ term out of {@code approxDelta}.
     */
    public BudgetRecord record(
            String runId, boolean isPrivate, String mechanism, long releases, long nowMs) {
        double[] s = snapshot();
        int k = grid().size();
        return new BudgetRecord(
                prior.dataset(),
                runId,
                isPrivate,
                mechanism,
                grid().orders(),
                Arrays.copyOf(s, k),
                approxDeltaWithoutPrior(s[k]),
                terms.delta(),
                Math.max(releases, (long) s[k + 1]),
                (long) s[k + 2],
                isPrivate ? runEpsilon() : Double.POSITIVE_INFINITY,
                nowMs,
                planOf(dataset),
                priorSlack());
    }
}
