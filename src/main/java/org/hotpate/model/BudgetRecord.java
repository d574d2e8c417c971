package org.hotpate.model;

import java.util.Arrays;

/**
 * One run's entry in the durable per-dataset budget ledger (schemas/budget_ledger_record.avsc; a
 * JSON file per run in the local ledger): the run's RDP curve on {@code orders}, the Σδ of its (ε,
 * δ) events, its release counts and its own ε at its δ. The curve only grows during a run, so two
 * versions of the same run merge by taking the larger value order by order ({@link #max}) — a
 * restore that rolls the run's state back can never lower what the ledger holds.
 *
 * <p>Keys: {@code <dataset>/run/<runId>} ({@link #key()}); {@code <dataset>/teacher/<id>} holds a
 * teacher's spending under per-teacher accounting ({@link TeacherSpend}). {@code
 * differentiallyPrivate} is false for a run of a non-private reference mechanism: the dataset then
 * has no finite ε any more.
 *
 * <p>{@code datasetPlan} is the dataset filter's plan as it was fixed at the dataset's first use
 * ({@code DatasetBudget.toState()}'s first five values: ε_D, δ_D, order, δ share, conversion);
 * empty without a dataset cap. Every later run keeps the plan of the earliest entry, so the
 * dataset's order is never chosen after seeing earlier outputs.
 *
 * <p>{@code priorSlack} is η of the run's population prior ({@code DpNgramExtraction
 * #thresholdSlack}; 0 without one): its δ term is not in {@code approxDelta} but composed over the
 * dataset's runs at the dataset's ε, (1 + e^ε_D)·Σ η ({@code protocol.DatasetPrior},
 * docs/proofs/dp-ngram-prior.md). An entry with η &gt; 0 holds the prior's charge: the driver
 * writes it before it draws the table.
 */
public record BudgetRecord(
        String dataset,
        String runId,
        boolean differentiallyPrivate,
        String mechanism,
        double[] orders,
        double[] rdp,
        double approxDelta,
        double delta,
        long releases,
        long answered,
        double epsilon,
        long updatedAtMs,
        double[] datasetPlan,
        double priorSlack) {

    public static final String RUN = "run";
    public static final String TEACHER = "teacher";

    /**
     * The kind of a dataset's pseudonym secret ({@code <dataset>/pseudonym-key}): the key of the
     * records runs' teacher pseudonyms ({@code protocol.TeacherIds}); readers of other kinds skip
     * it.
     */
    public static final String PSEUDONYM_KEY = "pseudonym-key";

    public BudgetRecord {
        datasetPlan = datasetPlan == null ? new double[0] : datasetPlan;
        if (!(priorSlack >= 0 && priorSlack <= 1)) {
            throw new IllegalArgumentException("priorSlack must be in [0, 1]; got " + priorSlack);
        }
        if (orders.length != rdp.length) {
            throw new IllegalArgumentException(
                    "orders and rdp must have the same length; got "
                            + orders.length
                            + " and "
                            + rdp.length);
        }
    }

    /** An entry of a run without a population prior ({@code priorSlack} 0). */
    public BudgetRecord(
            String dataset,
            String runId,
            boolean differentiallyPrivate,
            String mechanism,
            double[] orders,
            double[] rdp,
            double approxDelta,
            double delta,
            long releases,
            long answered,
            double epsilon,
            long updatedAtMs,
            double[] datasetPlan) {
        this(
                dataset,
                runId,
                differentiallyPrivate,
                mechanism,
                orders,
                rdp,
                approxDelta,
                delta,
                releases,
                answered,
                epsilon,
                updatedAtMs,
                datasetPlan,
                0);
    }

    /** Whether the run's population prior is charged in this entry (η &gt; 0). */
    public boolean holdsPrior() {
        return priorSlack > 0;
    }

    /** {@code <dataset>/run/<runId>}. */
    public String key() {
        return runKey(dataset, runId);
    }

    public static String runKey(String dataset, String runId) {
        return dataset + "/" + RUN + "/" + runId;
    }

    /** The dataset's pseudonym secret: {@code <dataset>/pseudonym-key}. */
    public static String pseudonymKeyKey(String dataset) {
        return dataset + "/" + PSEUDONYM_KEY;
    }

    /** A teacher's spending entry ({@link TeacherSpend}): {@code <dataset>/teacher/<id>}. */
    public static String teacherKey(String dataset, long teacherId) {
        return dataset + "/" + TEACHER + "/" + teacherId;
    }

    /**
     * The larger of two versions of the same run, order by order (and the larger counters): what
     * the ledger must keep when a restored run writes a curve below one it wrote before.
     */
    public BudgetRecord max(BudgetRecord other) {
        if (!dataset.equals(other.dataset) || !runId.equals(other.runId)) {
            throw new IllegalArgumentException(
                    "cannot merge ledger records of " + key() + " and " + other.key());
        }
        if (!Arrays.equals(orders, other.orders)) {
            throw new IllegalArgumentException(
                    "ledger records of " + key() + " use different order grids");
        }
        double[] m = new double[rdp.length];
        for (int i = 0; i < m.length; i++) {
            m[i] = Math.max(rdp[i], other.rdp[i]);
        }
        boolean newer = other.updatedAtMs >= updatedAtMs;
        return new BudgetRecord(
                dataset,
                runId,
                differentiallyPrivate && other.differentiallyPrivate,
                newer ? other.mechanism : mechanism,
                orders,
                m,
                Math.max(approxDelta, other.approxDelta),
                newer ? other.delta : delta,
                Math.max(releases, other.releases),
                Math.max(answered, other.answered),
                Math.max(epsilon, other.epsilon),
                Math.max(updatedAtMs, other.updatedAtMs),
                datasetPlan.length > 0 ? datasetPlan : other.datasetPlan,
                Math.max(priorSlack, other.priorSlack));
    }
}
