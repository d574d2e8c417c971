package org.hotpate.stream;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.privacy.OrderGrid;
import org.hotpate.core.privacy.PateAccounting;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;
import org.hotpate.core.vote.VoteHistogram;
import org.hotpate.model.BudgetRecord;

/**
 * The one place where a run's own budget ({@code budget.epsilon}) and its dataset's durable budget
 * ({@code budget.dataset-epsilon}, over all runs) meet. Built on today's {@link
 * EnsembleBudgetFilter} API: one filter for the run, and one for the dataset restored from the
 * composition of every earlier run's RDP curve (RDP adds order by order, also across runs); a
 * release is admitted only if <em>both</em> admit it, so the run stops at whichever budget comes
 * first. Both filters decide on data-independent costs, so the stop rule stays safe.
 *
 * <p>TODO(lead, merge with privacy-core): switch {@link Pair} to privacy-core's valid filter and
 * its helper that composes a run's filter with a dataset's prior curves; nothing else in the stream
 * layer builds these filters.
 */
public final class Budgets {
    private Budgets() {}

    /** The filter's ε standing for "no cap" ({@link PrivacyBudget} needs a finite ε). */
    static final double NO_CAP = Double.MAX_VALUE;

    /** The order grid of every run's curve (the filter's default grid). */
    public static OrderGrid grid() {
        return EnsembleBudgetFilter.Config.of(new PrivacyBudget(1, 0.5)).grid();
    }

    /** The run's filter configuration: ε = budget.epsilon (no cap for .inf), δ = budget.delta. */
    public static EnsembleBudgetFilter.Config runConfig(JobConfig.Budget b) {
        return EnsembleBudgetFilter.Config.of(new PrivacyBudget(cap(b.epsilon()), b.delta()));
    }

    /** The dataset's filter configuration: ε = budget.dataset-epsilon, δ = budget.delta. */
    public static EnsembleBudgetFilter.Config datasetConfig(JobConfig.Budget b) {
        return EnsembleBudgetFilter.Config.of(
                new PrivacyBudget(cap(b.datasetEpsilon()), b.delta()));
    }

    private static double cap(double epsilon) {
        return Double.isInfinite(epsilon) ? NO_CAP : epsilon;
    }

    /**
     * What earlier runs spent on a dataset: their curves summed order by order. {@code nonPrivate}
     * if one of them ran a non-private mechanism — the dataset then has no finite ε.
     */
    public record Prior(
            String dataset,
            double[] rdp,
            double approxDelta,
            long releases,
            long answered,
            int runs,
            boolean nonPrivate)
            implements Serializable {
        private static final long serialVersionUID = 1L;

        public static Prior empty(String dataset) {
            return new Prior(dataset, new double[grid().size()], 0, 0, 0, 0, false);
        }
    }

    /**
     * Composes the runs of {@code dataset} among {@code records} (the run {@code excludeRunId}
     * itself left out: a redeployed run must not count its own earlier curve twice).
     */
    public static Prior compose(String dataset, List<BudgetRecord> records, String excludeRunId) {
        double[] orders = grid().orders();
        double[] rdp = new double[orders.length];
        double approx = 0;
        long releases = 0;
        long answered = 0;
        int runs = 0;
        boolean nonPrivate = false;
        for (BudgetRecord r : records) {
            if (!r.dataset().equals(dataset) || r.runId().equals(excludeRunId)) {
                continue;
            }
            if (!Arrays.equals(r.orders(), orders)) {
                throw new IllegalStateException(
                        "budget ledger entry "
                                + r.key()
                                + " uses another order grid than this version of hotpate;"
                                + " cannot compose it");
            }
            for (int i = 0; i < rdp.length; i++) {
                rdp[i] += r.rdp()[i];
            }
            approx += r.approxDelta();
            releases += r.releases();
            answered += r.answered();
            nonPrivate |= !r.differentiallyPrivate();
            runs++;
        }
        return new Prior(dataset, rdp, Math.min(1, approx), releases, answered, runs, nonPrivate);
    }

    /** ε of a prior at {@code delta} (+∞ once a non-private run touched the dataset). */
    public static double epsilon(Prior p, double delta) {
        if (p.nonPrivate()) {
            return Double.POSITIVE_INFINITY;
        }
        return EnsembleBudgetFilter.restore(
                        EnsembleBudgetFilter.Config.of(new PrivacyBudget(NO_CAP, delta)),
                        p.rdp(),
                        p.approxDelta(),
                        p.releases(),
                        p.answered())
                .spentEpsilon();
    }

    /**
     * The worst-case (data-independent) cost of one release of the run's mechanism: a probe release
     * on a unanimous histogram, its event taken at the worst realized outcome (Confident-GNMax /
     * Hot PATE: answered). TODO(lead, merge with privacy-core): use {@code
     * AggregationMechanism.worstCaseEvent()}.
     */
    public static PrivacyEvent worstCaseEvent(JobConfig cfg) {
        int n = cfg.ensemble().teachers();
        VoteHistogram.Builder b = VoteHistogram.builder(n);
        for (int i = 0; i < n; i++) {
            b.vote(i, 0);
        }
        PrivacyEvent e =
                CoreBindings.mechanism(cfg.mechanism(), cfg.ensemble().effectiveVocabulary(), n)
                        .release(b.build())
                        .event();
        if (e instanceof PrivacyEvent.ConfidentGnmax c && !c.answered()) {
            return new PrivacyEvent.ConfidentGnmax(
                    c.sigma1(), c.threshold(), c.sigma2(), true, c.profile());
        }
        return e;
    }

    /**
     * Admission of a run on its dataset: whether the dataset can afford this run spending its whole
     * {@code budget.epsilon} on worst-case releases ({@code worst}), composed with the earlier runs
     * — so a run that starts is never cut short by the dataset cap in the expected case, and a run
     * for which not enough is left exits before it starts. (The per-release dataset filter of
     * {@link Pair} still enforces the cap exactly.) Always true without a dataset cap.
     */
    public static boolean hasRoom(Prior p, JobConfig.Budget b, PrivacyEvent worst) {
        if (Double.isInfinite(b.datasetEpsilon())) {
            return true;
        }
        if (p.nonPrivate()) {
            return false;
        }
        return epsilonWithFullRun(p, b, worst) <= b.datasetEpsilon();
    }

    /** The dataset's ε if this run spent its whole budget on {@code worst} releases. */
    public static double epsilonWithFullRun(Prior p, JobConfig.Budget b, PrivacyEvent worst) {
        OrderGrid grid = grid();
        double[] per = RdpAccountant.rdpOf(worst, grid, PateAccounting.DATA_INDEPENDENT);
        double d = RdpAccountant.deltaOf(worst);
        long k =
                Double.isInfinite(b.epsilon())
                        ? 1
                        : Math.max(1, EnsembleBudgetFilter.maxReleases(runConfig(b), worst));
        double[] rdp = new double[per.length];
        for (int i = 0; i < rdp.length; i++) {
            rdp[i] = p.rdp()[i] + k * per[i];
        }
        double approx = p.approxDelta() + k * d;
        if (approx >= 1) {
            return Double.POSITIVE_INFINITY;
        }
        return EnsembleBudgetFilter.restore(
                        EnsembleBudgetFilter.Config.of(new PrivacyBudget(NO_CAP, b.delta())),
                        rdp,
                        approx,
                        0,
                        0)
                .spentEpsilon();
    }

    /** A fresh run on a dataset with this prior. */
    public static Pair start(JobConfig.Budget b, Prior prior) {
        return new Pair(b, prior, EnsembleBudgetFilter.create(runConfig(b)));
    }

    /** A run restored from its own filter snapshot ({@link Pair#runSnapshot()}). */
    public static Pair restore(JobConfig.Budget b, Prior prior, double[] runSnapshot) {
        return new Pair(b, prior, EnsembleBudgetFilter.restore(runConfig(b), runSnapshot));
    }

    /** The run's filter and the dataset's filter (prior + this run); both must admit. */
    public static final class Pair {
        private final JobConfig.Budget budget;
        private final Prior prior;
        private EnsembleBudgetFilter run;
        private EnsembleBudgetFilter dataset;

        private Pair(JobConfig.Budget budget, Prior prior, EnsembleBudgetFilter run) {
            this.budget = budget;
            this.prior = prior;
            this.run = run;
            this.dataset = datasetFilter();
        }

        private EnsembleBudgetFilter datasetFilter() {
            double[] s = run.snapshot();
            int k = prior.rdp().length;
            double[] rdp = new double[k];
            for (int i = 0; i < k; i++) {
                rdp[i] = prior.rdp()[i] + s[i];
            }
            return EnsembleBudgetFilter.restore(
                    datasetConfig(budget),
                    rdp,
                    Math.min(1, prior.approxDelta() + s[k]),
                    prior.releases() + (long) s[k + 1],
                    prior.answered() + (long) s[k + 2]);
        }

        private boolean datasetBlocked() {
            return prior.nonPrivate() && !Double.isInfinite(budget.datasetEpsilon());
        }

        /** Whether both the run's and the dataset's filter admit {@code worstCaseEvent}. */
        public boolean canAfford(PrivacyEvent worstCaseEvent) {
            return !datasetBlocked()
                    && run.canAfford(worstCaseEvent)
                    && dataset.canAfford(worstCaseEvent);
        }

        /**
         * Charges both filters; throws {@link IllegalStateException}, leaving both unchanged, if
         * either would pass its budget.
         */
        public void charge(PrivacyEvent event) {
            if (datasetBlocked()) {
                throw new IllegalStateException(
                        "dataset " + prior.dataset() + " was used by a non-private run");
            }
            double[] before = run.snapshot();
            run.charge(event);
            try {
                dataset.charge(event);
            } catch (IllegalStateException e) {
                run = EnsembleBudgetFilter.restore(runConfig(budget), before);
                throw e;
            }
        }

        /** The run's own filter state (what the accountant keeps in Flink state). */
        public double[] runSnapshot() {
            return run.snapshot();
        }

        public double runEpsilon() {
            return run.spentEpsilon();
        }

        /** The dataset's ε over all runs, this one included, at the run's δ. */
        public double datasetEpsilon() {
            return prior.nonPrivate() ? Double.POSITIVE_INFINITY : dataset.spentEpsilon();
        }

        public long releases() {
            return run.releases();
        }

        /**
         * This run's entry for the durable ledger; {@code releases} counts every release (the
         * filter does not count the no-op events of non-private mechanisms).
         */
        public BudgetRecord record(
                String runId, boolean isPrivate, String mechanism, long releases, long nowMs) {
            double[] s = run.snapshot();
            int k = grid().size();
            return new BudgetRecord(
                    prior.dataset(),
                    runId,
                    isPrivate,
                    mechanism,
                    grid().orders(),
                    Arrays.copyOf(s, k),
                    s[k],
                    budget.delta(),
                    Math.max(releases, (long) s[k + 1]),
                    (long) s[k + 2],
                    isPrivate ? run.spentEpsilon() : Double.POSITIVE_INFINITY,
                    nowMs);
        }
    }
}
