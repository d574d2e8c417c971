package org.hotpate.model;

/**
 * A privacy ledger entry (schemas/ledger_event.avsc) on the operator-only {@code ledger} topic.
 * {@code kind}: CHARGE, REFUSED, ABANDONED (a step closed below the quorum: not aggregated, not
 * charged), TEACHER_RETIRED, TEACHER_CHARGE or TEACHER_FEEDBACK; {@code teacherId} is -1 unless
 * TEACHER_RETIRED or TEACHER_CHARGE; {@code votesCast} is the number of teachers that answered the
 * step (-1 when not applicable); {@code datasetEpsilonAfter} is the dataset's ε over all runs after
 * the entry (NaN when not applicable).
 */
public record LedgerEntry(
        String runId,
        String kind,
        long sequenceId,
        int step,
        int attempt,
        String mechanism,
        String privacyEvent,
        double epsilonAfter,
        double delta,
        long releases,
        long teacherId,
        long atMs,
        int votesCast,
        double datasetEpsilonAfter) {

    public static final String CHARGE = "CHARGE";
    public static final String REFUSED = "REFUSED";
    public static final String ABANDONED = "ABANDONED";
    public static final String TEACHER_RETIRED = "TEACHER_RETIRED";

    /**
     * A per-teacher charge (scheme-a/scheme-b): {@code teacherId}, {@code releases} = the teacher's
     * charges on the dataset so far, {@code epsilonAfter} = its ε at {@code delta} (the per-teacher
     * target δ). Operator-only.
     */
    public static final String TEACHER_CHARGE = "TEACHER_CHARGE";

    /**
     * Scheme A: an admitted release's outcome sent back to its involved teachers (one {@link
     * TeacherFeedback} each, in the same transaction): {@code releases} = the teachers it charges
     * (every involved teacher on BETWEEN, else 0), {@code votesCast} = the involved teachers.
     * Written by the accountant; the run is finished only once the vote operator's {@link
     * #TEACHER_CHARGE} entries for every charged teacher are visible. Operator-only.
     */
    public static final String TEACHER_FEEDBACK = "TEACHER_FEEDBACK";

    /** An entry without votes cast or dataset ε. */
    public LedgerEntry(
            String runId,
            String kind,
            long sequenceId,
            int step,
            int attempt,
            String mechanism,
            String privacyEvent,
            double epsilonAfter,
            double delta,
            long releases,
            long teacherId,
            long atMs) {
        this(
                runId,
                kind,
                sequenceId,
                step,
                attempt,
                mechanism,
                privacyEvent,
                epsilonAfter,
                delta,
                releases,
                teacherId,
                atMs,
                -1,
                Double.NaN);
    }
}
