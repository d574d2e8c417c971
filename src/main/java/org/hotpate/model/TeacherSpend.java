package org.hotpate.model;

/**
 * One teacher's individual privacy spending on a dataset (per-teacher accounting, {@code
 * mechanism.name: scheme-b|scheme-a}): its durable-ledger entry {@code <dataset>/teacher/<id>}
 * ({@link BudgetRecord#teacherKey}). {@code plan} names the scheme and the parameters that fix the
 * unit and the limit ({@code protocol.IndividualScheme#planId}); {@code charges} counts every
 * charge on the dataset under that plan (earlier runs included) and never decreases; {@code
 * pending} (scheme-a) counts the teacher's involvements whose outcome has not come back yet —
 * <b>provisional charges</b>: written ahead, before anything that depends on them can be released,
 * so a run that ends without its outcomes coming back (crash, cancel, stop-with-savepoint) still
 * leaves them in the ledger, and a later run starts the teacher from {@link #total()}; {@code
 * version} counts the account changes written for the teacher on the dataset (monotone for one
 * writer; a later run starts from the durable version). {@code epsilon} is the teacher's ε after
 * {@code charges} at {@code delta} (the per-teacher target δ); {@code runId} the run that wrote
 * this version. Data-dependent: operator-only, never public.
 */
public record TeacherSpend(
        String dataset,
        long teacherId,
        String plan,
        long charges,
        long pending,
        long version,
        double epsilon,
        double delta,
        boolean retired,
        String runId,
        long updatedAtMs) {

    public TeacherSpend {
        if (charges < 0) {
            throw new IllegalArgumentException("charges must be >= 0; got " + charges);
        }
        if (pending < 0) {
            throw new IllegalArgumentException("pending must be >= 0; got " + pending);
        }
        if (version < 0) {
            throw new IllegalArgumentException("version must be >= 0; got " + version);
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
     * Charges plus provisional charges (pending involvements): what a later run must start the
     * teacher from (every unresolved involvement counted as a charge — a sound over-count).
     */
    public long total() {
        return charges + pending;
    }

    /** This entry under {@code v} (the local ledger's writer orders its own writes). */
    public TeacherSpend withVersion(long v) {
        return new TeacherSpend(
                dataset,
                teacherId,
                plan,
                charges,
                pending,
                v,
                epsilon,
                delta,
                retired,
                runId,
                updatedAtMs);
    }

    /**
     * Two versions of one teacher's entry merged. The later version wins — {@link #version} larger;
     * on equal versions the one with more charges + pending (then more charges, then the later
     * {@code updatedAtMs}) — so pending involvements can be resolved downward, but only by the same
     * writer's later version. Whatever wins, charges never decrease: the result holds the larger
     * charges of the two, and at least as many charges + pending as the winner ({@code pending} =
     * the winner's total − the merged charges, never below 0). Entries under different plans are
     * not comparable.
     */
    public static TeacherSpend merge(TeacherSpend a, TeacherSpend b) {
        if (!a.key().equals(b.key())) {
            throw new IllegalArgumentException("cannot merge " + a.key() + " and " + b.key());
        }
        if (!a.plan.equals(b.plan)) {
            throw new IllegalArgumentException(
                    "teacher "
                            + a.key()
                            + " has entries under two plans: "
                            + a.plan
                            + ", "
                            + b.plan);
        }
        TeacherSpend win = newer(a, b) ? a : b;
        TeacherSpend lose = win == a ? b : a;
        if (lose.charges <= win.charges) {
            return win;
        }
        // The loser holds charges the winner does not show (a restore that rolled the writer
        // back): keep them; the winner's total still bounds what is in flight.
        long charges = lose.charges;
        long pending = Math.max(0, win.total() - charges);
        return new TeacherSpend(
                win.dataset,
                win.teacherId,
                win.plan,
                charges,
                pending,
                win.version,
                Math.max(win.epsilon, lose.epsilon),
                win.delta,
                win.retired || lose.retired,
                win.runId,
                win.updatedAtMs);
    }

    /** Whether {@code a} wins over {@code b} ({@link #merge}); ties resolved to one side. */
    private static boolean newer(TeacherSpend a, TeacherSpend b) {
        if (a.version != b.version) {
            return a.version > b.version;
        }
        if (a.total() != b.total()) {
            return a.total() > b.total();
        }
        if (a.charges != b.charges) {
            return a.charges > b.charges;
        }
        if (a.updatedAtMs != b.updatedAtMs) {
            return a.updatedAtMs > b.updatedAtMs;
        }
        return a.runId.compareTo(b.runId) >= 0;
    }
}
