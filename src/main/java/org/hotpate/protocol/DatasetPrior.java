package org.hotpate.protocol;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import org.hotpate.core.accounting.DatasetBudget;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.prior.DpNgramExtraction;
import org.hotpate.core.privacy.RdpConversions;
import org.hotpate.model.BudgetRecord;

/**
 * What earlier runs spent on a dataset (from the durable per-dataset ledger): their RDP curves
 * summed order by order on {@link RunBudget#grid()} (RDP adds order by order, also across runs),
 * their Σδ, release counts, how many runs, whether one of them ran a non-private mechanism (the
 * dataset then has no finite ε), and the dataset filter's plan fixed at its first use ({@code
 * plan}, empty if none was fixed yet; {@code DatasetBudget.toState()}'s first five values), and the
 * runs' Σ η of their population priors ({@code priorSlack}): the priors' δ term is composed at the
 * dataset's ε, (1 + e^ε_D)·Σ η, never at each run's own ε (docs/proofs/dp-ngram-prior.md, "Across
 * runs").
 */
public record DatasetPrior(
        String dataset,
        double[] rdp,
        double approxDelta,
        long releases,
        long answered,
        int runs,
        boolean nonPrivate,
        double[] plan,
        double priorSlack)
        implements Serializable {
    private static final long serialVersionUID = 3L;

    /** The runs of a dataset none of which released a population prior. */
    public DatasetPrior(
            String dataset,
            double[] rdp,
            double approxDelta,
            long releases,
            long answered,
            int runs,
            boolean nonPrivate,
            double[] plan) {
        this(dataset, rdp, approxDelta, releases, answered, runs, nonPrivate, plan, 0);
    }

    /** A dataset no run has used yet. */
    public static DatasetPrior empty(String dataset) {
        return new DatasetPrior(
                dataset, new double[RunBudget.grid().size()], 0, 0, 0, 0, false, new double[0]);
    }

    /**
     * Composes the runs of {@code dataset} among {@code records} (the run {@code excludeRunId}
     * itself left out: a redeployed run must not count its own earlier curve twice). The plan is
     * the earliest entry's (by update time) that has one.
     */
    public static DatasetPrior compose(
            String dataset, List<BudgetRecord> records, String excludeRunId) {
        double[] orders = RunBudget.grid().orders();
        double[] rdp = new double[orders.length];
        double approx = 0;
        long releases = 0;
        long answered = 0;
        int runs = 0;
        boolean nonPrivate = false;
        double[] plan = new double[0];
        long planAt = Long.MAX_VALUE;
        double slack = 0;
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
            slack += r.priorSlack();
            releases += r.releases();
            answered += r.answered();
            nonPrivate |= !r.differentiallyPrivate();
            runs++;
        }
        return new DatasetPrior(
                dataset,
                rdp,
                Math.min(1, approx),
                releases,
                answered,
                runs,
                nonPrivate,
                plan,
                Math.min(1, slack));
    }

    /**
     * Whether {@code runId} already has an entry on {@code dataset} among {@code records}. A fresh
     * run must never take a run id the dataset's ledger already holds: its entry (key {@code
     * <dataset>/run/<runId>}) would merge with the earlier run's and {@link #compose} would leave
     * the earlier curve out of the prior. Only a resume (the same run continued) may reuse one.
     */
    public static boolean usesRunId(String dataset, List<BudgetRecord> records, String runId) {
        return records.stream()
                .anyMatch(r -> r.dataset().equals(dataset) && r.runId().equals(runId));
    }

    /** Whether the dataset filter's plan was fixed by an earlier run. */
    boolean hasPlan() {
        return plan.length == 5;
    }

    /**
     * The dataset filter with the stored plan and these runs' curve ({@link #hasPlan()}); their
     * priors' δ term at the plan's cap ε_D, which the dataset never ends above.
     */
    DatasetBudget plannedBudget() {
        double[] state = new double[6 + rdp.length];
        System.arraycopy(plan, 0, state, 0, 5);
        state[5] = Math.min(1, approxDelta + DpNgramExtraction.couplingDelta(plan[0], priorSlack));
        System.arraycopy(rdp, 0, state, 6, rdp.length);
        return DatasetBudget.fromState(RunBudget.grid(), state);
    }

    /**
     * The dataset's ε at {@code delta} from the stored plan alone: at the dataset's fixed order
     * when it has a plan; +∞ without one (no order was fixed in advance, so the composed curve has
     * no valid single conversion — see {@link #epsilon(double, EnsembleBudgetFilter.Config)}); 0
     * for no runs, +∞ once a non-private run touched the dataset.
     */
    public double epsilon(double delta) {
        return epsilon(delta, null);
    }

    /**
     * The dataset's ε at {@code delta} (+∞ once a non-private run touched the dataset; 0 for no
     * runs). With a plan: the conversion at the dataset's fixed order. Without one (no dataset
     * cap): the composed curve converted at the order {@code runOrder} planned — a run filter's
     * order, fixed before its releases from public inputs (docs/privacy-accounting.md §4) — with
     * its conversion, at δ − its δ share (or δ − Σδ once the runs' Σδ exceeds that share); +∞ for a
     * null {@code runOrder}. Never the minimum over orders: after adaptively chosen releases that
     * minimum is not a valid conversion (different outcomes would lean on different orders). Like
     * the run's {@code epsilon}, this is progress (what the releases used, at that order), not a
     * guarantee; for a dataset's first run it equals the run's ε.
     */
    public double epsilon(double delta, EnsembleBudgetFilter.Config runOrder) {
        if (nonPrivate) {
            return Double.POSITIVE_INFINITY;
        }
        if (runs == 0) {
            return 0;
        }
        if (hasPlan()) {
            return plannedBudget().spentEpsilon();
        }
        if (runOrder == null) {
            return Double.POSITIVE_INFINITY;
        }
        double atOrder = rdp[runOrder.orderIndex()];
        if (priorSlack == 0) {
            return atDelta(delta, runOrder, atOrder, approxDelta);
        }
        // The priors' δ term (1 + e^ε)·Σ η depends on the ε claimed: the least ε whose conversion,
        // with that term taken from δ, is ≤ ε. The conversion only grows with ε, so iterating from
        // below climbs to it; the answer is checked, never trusted.
        double e = 0;
        for (int i = 0; i < 200; i++) {
            double next = atDelta(delta, runOrder, atOrder, coupled(e));
            if (!Double.isFinite(next)) {
                return Double.POSITIVE_INFINITY;
            }
            if (next <= e) {
                return e;
            }
            e = next + 1e-12 * (1 + next); // a step past the limit, so the check can pass
        }
        return Double.POSITIVE_INFINITY;
    }

    /** The runs' δ terms under a claim of {@code epsilon}: Σδ + (1 + e^ε)·Σ η. */
    public double coupled(double epsilon) {
        return Math.min(1, approxDelta + DpNgramExtraction.couplingDelta(epsilon, priorSlack));
    }

    /** The curve's ε at {@code runOrder}'s order with {@code deltas} of δ spent on δ terms. */
    private static double atDelta(
            double delta, EnsembleBudgetFilter.Config runOrder, double atOrder, double deltas) {
        if (deltas <= runOrder.approxDeltaShare()) {
            return runOrder.epsilonAt(atOrder);
        }
        if (deltas >= delta) {
            return Double.POSITIVE_INFINITY;
        }
        return Math.max(
                0,
                RdpConversions.epsilonAtOrder(
                        runOrder.order(), atOrder, delta - deltas, runOrder.conversion()));
    }
}
