package org.hotpate.model;

/**
 * One teacher's individual privacy spending on a dataset (per-teacher accounting, {@code
 * mechanism.name: scheme-b|scheme-a}): its durable-ledger entry {@code <dataset>/teacher/<id>}
 * ({@link BudgetRecord#teacherKey}). {@code plan} names the scheme and the parameters that fix the
 * unit and the limit ({@code stream.IndividualAccounting#planId}); {@code charges} counts every
 * charge on the dataset under that plan (earlier runs included) and only grows; {@code epsilon} is
 * the teacher's ε at {@code delta} (the per-teacher target δ); {@code runId} the run that wrote
 * this version. Data-dependent: operator-only, never public.
 */
public record TeacherSpend(
        String dataset,
        long teacherId,
        String plan,
        long charges,
        double epsilon,
        double delta,
        boolean retired,
        String runId,
        long updatedAtMs) {

    public TeacherSpend {
        if (charges < 0) {
            throw new IllegalArgumentException("charges must be >= 0; got " + charges);
        }
        if (dataset == null || plan == null || runId == null) {
            throw new IllegalArgumentException("dataset, plan and runId must not be null");
        }
    }

    /** {@code <dataset>/teacher/<id>}. */
    public String key() {
        return BudgetRecord.teacherKey(dataset, teacherId);
    }

    /**
     * The version with more charges (a restore that rolls the job back can never lower what the
     * ledger holds); entries under different plans are not comparable.
     */
    public TeacherSpend max(TeacherSpend other) {
        if (!key().equals(other.key())) {
            throw new IllegalArgumentException("cannot merge " + key() + " and " + other.key());
        }
        if (!plan.equals(other.plan)) {
            throw new IllegalArgumentException(
                    "teacher "
                            + key()
                            + " has entries under two plans: "
                            + plan
                            + ", "
                            + other.plan);
        }
        return other.charges > charges
                        || (other.charges == charges && other.updatedAtMs > updatedAtMs)
                ? other
                : this;
    }
}
