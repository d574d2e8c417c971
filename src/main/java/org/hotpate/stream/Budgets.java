package org.hotpate.stream;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.hotpate.core.accounting.DatasetBudget;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.privacy.Conversion;
import org.hotpate.core.privacy.OrderGrid;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;
import org.hotpate.core.privacy.RdpConversions;
import org.hotpate.model.BudgetRecord;

/**
 * The one place where a run's own budget ({@code budget.epsilon}) and its dataset's durable budget
 * ({@code budget.dataset-epsilon}, over all runs) meet, on core's valid filter ({@link
 * EnsembleBudgetFilter}: a Rényi filter at one order fixed in advance, admitting on the mechanism's
 * worst-case event). The run's filter is planned from the run's budget and the mechanism's {@link
 * org.hotpate.core.mechanism.AggregationMechanism#worstCaseEvent() worst case}; the dataset's
 * filter ({@link DatasetBudget}) keeps the plan fixed at the dataset's first use — it is stored in
 * every ledger entry ({@link BudgetRecord#datasetPlan()}) and later runs take the earliest one —
 * plus the composition of every earlier run's RDP curve (RDP adds order by order, also across
 * runs). A release is admitted only if both admit it, so the run stops at whichever budget comes
 * first.
 *
 * <p>A non-private mechanism runs only with {@code budget.epsilon: .inf} (JobConfig refuses
 * otherwise): its run has no filter, every release is counted, and its ε is +∞. A DP mechanism with
 * {@code budget.epsilon: .inf} has no run cap either; its curve is still composed and recorded.
 */
public final class Budgets {
    private Budgets() {}

    /** The order grid of every run's curve (the filter's default grid). */
    public static OrderGrid grid() {
        return OrderGrid.dpAccountingDefault();
    }

    private static final Map<List<Object>, EnsembleBudgetFilter.Config> PLANS =
            new ConcurrentHashMap<>();

    /**
     * The run's filter configuration, planned from public inputs only (ε = budget.epsilon, δ =
     * budget.delta, the mechanism's worst case); null without a run cap (ε = .inf). Cached: the
     * same plan every time.
     */
    public static EnsembleBudgetFilter.Config runConfig(JobConfig.Budget b, PrivacyEvent worst) {
        if (Double.isInfinite(b.epsilon()) || worst instanceof PrivacyEvent.NotPrivate) {
            return null;
        }
        return PLANS.computeIfAbsent(
                List.of(b.epsilon(), b.delta(), worst),
                k ->
                        EnsembleBudgetFilter.Config.plan(
                                new PrivacyBudget(b.epsilon(), b.delta()), worst));
    }

    /**
     * What earlier runs spent on a dataset: their curves summed order by order, and the dataset
     * filter's plan fixed at its first use ({@code plan}, empty if none was fixed yet). {@code
     * nonPrivate} if one of them ran a non-private mechanism — the dataset then has no finite ε.
     */
    public record Prior(
            String dataset,
            double[] rdp,
            double approxDelta,
            long releases,
            long answered,
            int runs,
            boolean nonPrivate,
            double[] plan)
            implements Serializable {
        private static final long serialVersionUID = 2L;

        public static Prior empty(String dataset) {
            return new Prior(dataset, new double[grid().size()], 0, 0, 0, 0, false, new double[0]);
        }
    }

    /**
     * Composes the runs of {@code dataset} among {@code records} (the run {@code excludeRunId}
     * itself left out: a redeployed run must not count its own earlier curve twice). The plan is
     * the earliest entry's (by update time) that has one.
     */
    public static Prior compose(String dataset, List<BudgetRecord> records, String excludeRunId) {
        double[] orders = grid().orders();
        double[] rdp = new double[orders.length];
        double approx = 0;
        long releases = 0;
        long answered = 0;
        int runs = 0;
        boolean nonPrivate = false;
        double[] plan = new double[0];
        long planAt = Long.MAX_VALUE;
        for (BudgetRecord r : records) {
            if (!r.dataset().equals(dataset)) {
                continue;
            }
            if (r.datasetPlan().length > 0 && r.updatedAtMs() < planAt) {
                plan = r.datasetPlan(); // a redeployed run keeps the plan it started with
                planAt = r.updatedAtMs();
            }
            if (r.runId().equals(excludeRunId)) {
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
        return new Prior(
                dataset, rdp, Math.min(1, approx), releases, answered, runs, nonPrivate, plan);
    }

    /**
     * The dataset's budget for a run: the stored plan if the dataset has one, else the plan of its
     * first use (this run's order); null without a dataset cap (or without a run filter to take the
     * order from).
     */
    public static DatasetBudget datasetBudget(Prior p, JobConfig.Budget b, PrivacyEvent worst) {
        if (Double.isInfinite(b.datasetEpsilon())) {
            return null;
        }
        EnsembleBudgetFilter.Config run = runConfig(b, worst);
        if (p.plan().length == 5) {
            double[] state = new double[6 + p.rdp().length];
            System.arraycopy(p.plan(), 0, state, 0, 5);
            state[5] = p.approxDelta();
            System.arraycopy(p.rdp(), 0, state, 6, p.rdp().length);
            return DatasetBudget.fromState(grid(), state);
        }
        if (run == null) {
            return null;
        }
        DatasetBudget first =
                DatasetBudget.firstUse(
                        new PrivacyBudget(b.datasetEpsilon(), b.delta()), run, worst);
        return DatasetBudget.of(first.config(), List.of(p.rdp()), p.approxDelta());
    }

    /** The plan ({@link BudgetRecord#datasetPlan()}) of a dataset budget; empty for null. */
    static double[] planOf(DatasetBudget d) {
        return d == null ? new double[0] : Arrays.copyOf(d.toState(), 5);
    }

    /**
     * ε of a prior at {@code delta} (+∞ once a non-private run touched the dataset): at the
     * dataset's fixed order when it has a plan; otherwise (no dataset cap) the best order for the
     * curve, which is informational — a statement about these releases as a fixed sequence.
     */
    public static double epsilon(Prior p, double delta) {
        if (p.nonPrivate()) {
            return Double.POSITIVE_INFINITY;
        }
        if (p.runs() == 0) {
            return 0;
        }
        if (p.plan().length == 5) {
            double[] state = new double[6 + p.rdp().length];
            System.arraycopy(p.plan(), 0, state, 0, 5);
            state[5] = p.approxDelta();
            System.arraycopy(p.rdp(), 0, state, 6, p.rdp().length);
            return DatasetBudget.fromState(grid(), state).spentEpsilon();
        }
        if (p.approxDelta() >= delta) {
            return Double.POSITIVE_INFINITY;
        }
        return RdpConversions.epsilon(
                        grid().orders(), p.rdp(), delta - p.approxDelta(), Conversion.IMPROVED)
                .epsilon();
    }

    /**
     * The worst-case (data-independent) cost of one release of the run's mechanism: {@link
     * org.hotpate.core.mechanism.AggregationMechanism#worstCaseEvent()}.
     */
    public static PrivacyEvent worstCaseEvent(JobConfig cfg) {
        return CoreBindings.mechanism(
                        cfg.mechanism(),
                        cfg.ensemble().effectiveVocabulary(),
                        cfg.ensemble().teachers())
                .worstCaseEvent();
    }

    /**
     * Admission of a run on its dataset: whether the dataset can afford this run spending its whole
     * {@code budget.epsilon} on worst-case releases ({@code worst}), composed with the earlier runs
     * — so a run that starts is never cut short by the dataset cap in the expected case, and a run
     * for which not enough is left exits before it starts. (The per-release dataset filter still
     * enforces the cap exactly.) Always true without a dataset cap.
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

    /**
     * The dataset's ε (at its fixed order) if this run spent its whole budget on {@code worst}
     * releases (+∞ past the dataset's δ share).
     */
    public static double epsilonWithFullRun(Prior p, JobConfig.Budget b, PrivacyEvent worst) {
        DatasetBudget d = datasetBudget(p, b, worst);
        EnsembleBudgetFilter.Config run = runConfig(b, worst);
        if (d == null || run == null) {
            return Double.POSITIVE_INFINITY;
        }
        long k = Math.max(1, EnsembleBudgetFilter.maxReleases(run, worst));
        double[] per = RdpAccountant.rdpOf(worst, grid());
        double[] full = new double[per.length];
        for (int i = 0; i < full.length; i++) {
            full[i] = k * per[i];
        }
        return d.plusRun(full, Math.min(1, k * RdpAccountant.deltaOf(worst))).spentEpsilon();
    }

    /** A fresh run on a dataset with this prior, whose releases have worst case {@code worst}. */
    public static Pair start(JobConfig.Budget b, Prior prior, PrivacyEvent worst) {
        return new Pair(b, prior, worst, null);
    }

    /** A run restored from its own state ({@link Pair#runSnapshot()}). */
    public static Pair restore(
            JobConfig.Budget b, Prior prior, PrivacyEvent worst, double[] runSnapshot) {
        return new Pair(b, prior, worst, runSnapshot);
    }

    /**
     * The run's filter composed with the dataset's ({@link EnsembleBudgetFilter#create(
     * EnsembleBudgetFilter.Config, DatasetBudget)} checks both); without a run cap, a plain curve.
     */
    public static final class Pair {
        private final JobConfig.Budget budget;
        private final Prior prior;
        private final PrivacyEvent worst;
        private final DatasetBudget dataset;
        private final EnsembleBudgetFilter filter; // null: no run cap
        private final double[]
                uncapped; // the curve without a run cap: rdp..., Σδ, releases, answered

        private Pair(JobConfig.Budget budget, Prior prior, PrivacyEvent worst, double[] snapshot) {
            this.budget = budget;
            this.prior = prior;
            this.worst = worst;
            this.dataset = datasetBudget(prior, budget, worst);
            EnsembleBudgetFilter.Config run = runConfig(budget, worst);
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
            }
        }

        private boolean datasetBlocked() {
            return prior.nonPrivate() && !Double.isInfinite(budget.datasetEpsilon());
        }

        /** A release without a DP guarantee costs +∞: never admitted under a finite budget. */
        private boolean notPrivateUnderABudget() {
            return worst instanceof PrivacyEvent.NotPrivate
                    && !(Double.isInfinite(budget.epsilon())
                            && Double.isInfinite(budget.datasetEpsilon()));
        }

        /** Whether the run's and the dataset's filter both admit a release of the worst case. */
        public boolean canAfford() {
            if (datasetBlocked() || notPrivateUnderABudget()) {
                return false;
            }
            return filter == null || filter.canAfford(worst);
        }

        /**
         * Charges a release admitted on the worst case with its {@code realized} event; throws
         * {@link IllegalStateException}, leaving the state unchanged, if it does not fit.
         */
        public void charge(PrivacyEvent realized) {
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
        public double[] runSnapshot() {
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
            double[] s = runSnapshot();
            int k = grid().size();
            double[] rdp = new double[k];
            for (int i = 0; i < k; i++) {
                rdp[i] = prior.rdp()[i] + s[i];
            }
            return epsilon(
                    new Prior(
                            prior.dataset(),
                            rdp,
                            Math.min(1, prior.approxDelta() + s[k]),
                            0,
                            0,
                            prior.runs() + 1,
                            false,
                            planOf(dataset)),
                    budget.delta());
        }

        public long releases() {
            return (long) runSnapshot()[grid().size() + 1];
        }

        /** This run's entry for the durable ledger, with the dataset's plan. */
        public BudgetRecord record(
                String runId, boolean isPrivate, String mechanism, long releases, long nowMs) {
            double[] s = runSnapshot();
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
                    isPrivate ? runEpsilon() : Double.POSITIVE_INFINITY,
                    nowMs,
                    planOf(dataset));
        }
    }
}
