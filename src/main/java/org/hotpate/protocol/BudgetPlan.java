package org.hotpate.protocol;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import org.hotpate.core.accounting.DatasetBudget;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;

/**
 * A run's budget plan, made once from public inputs only: the run's terms ({@code budget.epsilon},
 * {@code budget.delta}, {@code budget.dataset-epsilon}), the mechanism's worst-case event, and the
 * run filter's configuration planned from them ({@link #runConfig()}: the order and δ share; null
 * without a run cap). Every budget fact the driver, the ledger, the accountant and the report need
 * is an instance method here — the dataset's budget for a dataset's earlier runs, the enforced cap,
 * the admission of a run ({@link #hasRoom}) — and {@link #start}/{@link #restore} build the run's
 * mutable {@link RunBudget}.
 */
public final class BudgetPlan implements Serializable {
    private static final long serialVersionUID = 1L;

    private final BudgetTerms terms;
    private final PrivacyEvent worst;
    // planned on first use, then kept (null: no run cap); again once after deserialisation
    private transient volatile EnsembleBudgetFilter.Config run;
    private transient volatile boolean planned;

    public BudgetPlan(BudgetTerms terms, PrivacyEvent worst) {
        this.terms = Objects.requireNonNull(terms, "terms");
        this.worst = Objects.requireNonNull(worst, "worst");
    }

    /** The run's budget terms. */
    public BudgetTerms terms() {
        return terms;
    }

    /** The worst-case event of one release: what every budget filter admits on. */
    public PrivacyEvent worstCase() {
        return worst;
    }

    /**
     * The run's filter configuration, planned from public inputs only (ε, δ, the mechanism's worst
     * case) the first time it is asked for, then the same object; null without a run cap (ε = .inf
     * or a non-private mechanism).
     */
    public EnsembleBudgetFilter.Config runConfig() {
        if (!planned) {
            run =
                    !terms.runCapped() || worst instanceof PrivacyEvent.NotPrivate
                            ? null
                            : EnsembleBudgetFilter.Config.plan(
                                    new PrivacyBudget(terms.epsilon(), terms.delta()), worst);
            planned = true; // after run: a reader that sees planned sees run
        }
        return run;
    }

    /**
     * The run's filter configuration when {@code preCharge} (the population prior) is charged
     * before the first step: the same order (planned as if there were no prior, so the prior's own
     * plan does not depend on itself), with the prior's δ term added to the δ share.
     */
    public EnsembleBudgetFilter.Config runConfig(PrivacyEvent preCharge) {
        EnsembleBudgetFilter.Config run = runConfig();
        if (run == null || preCharge == null || RdpAccountant.deltaOf(preCharge) == 0) {
            return run;
        }
        return new EnsembleBudgetFilter.Config(
                run.budget(),
                run.grid(),
                run.conversion(),
                run.order(),
                run.approxDeltaShare() + RdpAccountant.deltaOf(preCharge) * (1 + 1e-6));
    }

    /**
     * A fresh run on dataset {@code p} that releases the prior {@code priorPlan} first (null:
     * none).
     */
    public RunBudget start(DatasetPrior p, PriorPlan priorPlan) {
        return new RunBudget(this, p, priorPlan, null);
    }

    /** A fresh run on dataset {@code p} without a population prior. */
    public RunBudget start(DatasetPrior p) {
        return start(p, null);
    }

    /**
     * A run restored from its own state ({@link RunBudget#snapshot()}, which already holds the
     * prior's charge).
     */
    public RunBudget restore(DatasetPrior p, PriorPlan priorPlan, double[] snapshot) {
        return new RunBudget(this, p, priorPlan, Objects.requireNonNull(snapshot, "snapshot"));
    }

    /** The prior's charge for a run on dataset {@code p}, or null without a prior. */
    public PriorPlan.Charge priorCharge(DatasetPrior p, PriorPlan priorPlan) {
        return priorPlan == null ? null : priorPlan.charge(this, p);
    }

    /**
     * The dataset's budget for a run: the stored plan if the dataset has one, else the plan of its
     * first use (this run's order); null without a dataset cap (or without a run filter to take the
     * order from).
     */
    DatasetBudget datasetBudget(DatasetPrior p) {
        if (p.hasPlan()) {
            return p.plannedBudget(); // whatever this run's budget.dataset-epsilon says
        }
        EnsembleBudgetFilter.Config run = runConfig();
        if (!terms.datasetCapped() || run == null) {
            return null;
        }
        DatasetBudget first =
                DatasetBudget.firstUse(
                        new PrivacyBudget(terms.datasetEpsilon(), terms.delta()), run, worst);
        return DatasetBudget.of(first.config(), List.of(p.rdp()), p.approxDelta());
    }

    /**
     * The dataset cap the filter actually enforces for a run: the ε of the dataset's plan, fixed at
     * its first use and never re-planned ({@link DatasetPrior#plannedBudget()}) — so a later run's
     * {@code budget.dataset-epsilon} (the requested cap) does not change it; the requested cap for
     * a dataset without a plan yet (this run plans it); +∞ without one.
     */
    public double enforcedDatasetEpsilon(DatasetPrior p) {
        if (!terms.datasetCapped(p)) {
            return Double.POSITIVE_INFINITY;
        }
        DatasetBudget d = datasetBudget(p);
        return d == null ? terms.datasetEpsilon() : d.config().budget().epsilon();
    }

    /**
     * Admission of a run on its dataset: whether the dataset can afford this run spending its whole
     * {@code budget.epsilon} on worst-case releases, composed with the earlier runs and with the
     * population prior {@code priorPlan} (null: none; its RDP and δ term count, so a prior that
     * does not fit is refused before it is drawn) — so a run that starts is never cut short by the
     * dataset cap in the expected case, and a run for which not enough is left exits before it
     * starts. (The per-release dataset filter still enforces the cap exactly.) Always true without
     * a dataset cap.
     */
    public boolean hasRoom(DatasetPrior p, PriorPlan priorPlan) {
        if (!terms.datasetCapped(p)) {
            return true;
        }
        if (p.nonPrivate()) {
            return false;
        }
        // the requested cap and the enforced one (the plan's, which a later run cannot change)
        return epsilonWithFullRun(p, priorPlan)
                <= Math.min(terms.datasetEpsilon(), enforcedDatasetEpsilon(p));
    }

    /**
     * The dataset's ε (at its fixed order) if this run spent its whole budget on worst-case
     * releases (+∞ past the dataset's δ share), with the population prior {@code priorPlan} (null:
     * none) charged first: its RDP and δ term, then the worst-case releases that fit the run's
     * budget after it.
     */
    public double epsilonWithFullRun(DatasetPrior p, PriorPlan priorPlan) {
        DatasetBudget d = datasetBudget(p);
        EnsembleBudgetFilter.Config run = runConfig();
        if (d == null || run == null) {
            return Double.POSITIVE_INFINITY;
        }
        long k = Math.max(1, EnsembleBudgetFilter.maxReleases(run, worst));
        double[] per = RdpAccountant.rdpOf(worst, RunBudget.grid());
        double[] pre = new double[per.length];
        double preDelta = 0;
        if (priorPlan != null) {
            PriorPlan.Charge c = priorPlan.charge(this, p);
            pre = RdpAccountant.rdpOf(c.event(), RunBudget.grid());
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

    @Override
    public boolean equals(Object o) {
        return o instanceof BudgetPlan b && terms.equals(b.terms) && worst.equals(b.worst);
    }

    @Override
    public int hashCode() {
        return Objects.hash(terms, worst);
    }

    @Override
    public String toString() {
        return "BudgetPlan[" + terms + ", worst " + worst + "]";
    }
}
