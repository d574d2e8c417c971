package org.hotpate.protocol;

import java.util.Arrays;
import org.hotpate.core.accounting.DatasetBudget;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.privacy.OrderGrid;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;
import org.hotpate.model.BudgetRecord;

/**
 * The run's budget: where a run's own budget ({@code budget.epsilon}) and its dataset's durable
 * budget ({@code budget.dataset-epsilon}, over all runs) meet, on core's valid filter ({@link
 * EnsembleBudgetFilter}: a Rényi filter at one order fixed in advance, admitting on the mechanism's
 * worst-case event). The run's filter is planned once, from the run's terms and the mechanism's
 * worst case, by its {@link BudgetPlan} (which builds it: {@link BudgetPlan#start}); the dataset's
 * filter ({@link DatasetBudget}) keeps the plan fixed at the dataset's first use — stored in every
 * ledger entry ({@link BudgetRecord#datasetPlan()}), later runs take the earliest one — plus the
 * composition of every earlier run's curve ({@link DatasetPrior}). A release is admitted ({@link
 * #admit}) only if both admit its worst case, and is then charged with its realized event, so the
 * run stops at whichever budget comes first.
 *
 * <p>A non-private mechanism runs only with {@code budget.epsilon: .inf} (the spec refuses
 * otherwise): its run has no filter, every release is counted, and its ε is +∞. A DP mechanism with
 * {@code budget.epsilon: .inf} has no run cap either; its curve is still composed and recorded.
 *
 * <p>Mutable (one per run, owned by the accountant); its state is {@link #snapshot()}, restored
 * with {@link #restore}.
 */
public final class RunBudget {
    private final BudgetPlan plan;
    private final BudgetTerms terms;
    private final DatasetPrior prior;
    private final PrivacyEvent worst;
    private final PriorPlan.Charge preCharge; // the population prior's release, or null
    private final DatasetBudget dataset;
    private final EnsembleBudgetFilter filter; // null: no run cap
    private final double[] uncapped; // the curve without a run cap: rdp..., Σδ, releases, answered

    /** Built by {@link BudgetPlan#start} and {@link BudgetPlan#restore}. */
    RunBudget(BudgetPlan plan, DatasetPrior prior, PriorPlan priorPlan, double[] snapshot) {
        this.plan = plan;
        this.terms = plan.terms();
        this.prior = prior;
        this.worst = plan.worstCase();
        this.preCharge = plan.priorCharge(prior, priorPlan);
        this.dataset = plan.datasetBudget(prior);
        EnsembleBudgetFilter.Config run = plan.runConfig(eventOf(preCharge));
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

    private static PrivacyEvent eventOf(PriorPlan.Charge c) {
        return c == null ? null : c.event();
    }

    /** The order grid of every run's curve (the filter's default grid). */
    public static OrderGrid grid() {
        return OrderGrid.dpAccountingDefault();
    }

    /** The plan ({@link BudgetRecord#datasetPlan()}) of a dataset budget; empty for null. */
    private static double[] planOf(DatasetBudget d) {
        return d == null ? new double[0] : Arrays.copyOf(d.toState(), 5);
    }

    private boolean datasetBlocked() {
        return prior.nonPrivate() && terms.datasetCapped(prior);
    }

    /** A release without a DP guarantee costs +∞: never admitted under a finite budget. */
    private boolean notPrivateUnderABudget() {
        return worst instanceof PrivacyEvent.NotPrivate
                && (terms.runCapped() || terms.datasetCapped(prior));
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
                .epsilon(terms.delta(), plan.runConfig());
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
