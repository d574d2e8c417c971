package org.hotpate.protocol;

import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.StepRef;

/**
 * The shape of each kind of operator-only ledger entry ({@link LedgerKind}), in one place: which
 * fields each kind fills and which it leaves "not applicable" (teacher −1, votes cast −1, ε and δ
 * NaN).
 */
public final class LedgerEntries {
    private LedgerEntries() {}

    /**
     * CHARGE or REFUSED (accountant): the release's public event ({@code ""} when refused before a
     * charge), the run's ε at δ after it, the run's releases, the teachers that answered, those
     * that voted for the released token (-1 for ⊥) and the dataset's ε over all runs.
     */
    public static LedgerEntry release(
            StepRef step,
            boolean charged,
            String mechanism,
            String publicEvent,
            double runEpsilon,
            double delta,
            long releases,
            int votesCast,
            int releasedVotes,
            double datasetEpsilon,
            long atMs) {
        return new LedgerEntry(
                step.runId(),
                charged ? LedgerKind.CHARGE : LedgerKind.REFUSED,
                step.sequenceId(),
                step.step(),
                step.attempt(),
                mechanism,
                publicEvent,
                runEpsilon,
                delta,
                releases,
                -1,
                atMs,
                votesCast,
                datasetEpsilon,
                charged ? releasedVotes : -1);
    }

    /** ABANDONED (reducer): the step closed with {@code answered} teachers, below the quorum. */
    public static LedgerEntry abandoned(StepRef step, String mechanism, int answered, long atMs) {
        return new LedgerEntry(
                step.runId(),
                LedgerKind.ABANDONED,
                step.sequenceId(),
                step.step(),
                step.attempt(),
                mechanism,
                "",
                Double.NaN,
                Double.NaN,
                -1,
                -1,
                atMs,
                answered,
                Double.NaN,
                -1);
    }

    /**
     * TEACHER_CHARGE or TEACHER_RETIRED (vote operator): the teacher, the scheme ({@code ""} under
     * a vote cap), its ε at the per-teacher δ and its charges (0 under a vote cap).
     */
    public static LedgerEntry teacher(
            LedgerKind kind,
            StepRef step,
            long teacherId,
            String scheme,
            double epsilon,
            double delta,
            long charges,
            long atMs) {
        return new LedgerEntry(
                step.runId(),
                kind,
                step.sequenceId(),
                step.step(),
                step.attempt(),
                scheme,
                "",
                epsilon,
                delta,
                charges,
                teacherId,
                atMs,
                -1,
                Double.NaN,
                -1);
    }

    /**
     * TEACHER_FEEDBACK (accountant, scheme-a): an admitted release's outcome sent to its {@code
     * involved} teachers, of which {@code charged} are charged (all on BETWEEN, else none).
     */
    public static LedgerEntry feedback(
            StepRef step, String mechanism, int involved, int charged, long atMs) {
        return new LedgerEntry(
                step.runId(),
                LedgerKind.TEACHER_FEEDBACK,
                step.sequenceId(),
                step.step(),
                step.attempt(),
                mechanism,
                "",
                Double.NaN,
                Double.NaN,
                charged,
                -1,
                atMs,
                involved,
                Double.NaN,
                -1);
    }
}
