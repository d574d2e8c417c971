package org.hotpate.model;

/**
 * What a privacy ledger entry ({@link LedgerEntry}) records; written by name on the operator-only
 * {@code ledger} topic (schemas/ledger_event.avsc, field {@code kind}) and in {@code ledger.jsonl}.
 */
public enum LedgerKind {
    /** A release charged to the run and the dataset (accountant). */
    CHARGE,
    /** A release withheld: the budget would have been exceeded (accountant). */
    REFUSED,
    /**
     * A step closed with fewer than {@code generation.min-teachers} answers: not aggregated, not
     * charged (reducer).
     */
    ABANDONED,
    /**
     * A teacher reached its vote cap or per-teacher budget and never votes again (vote operator).
     */
    TEACHER_RETIRED,
    /**
     * A per-teacher charge (scheme-a/scheme-b): {@code releases} = the teacher's charges on the
     * dataset so far, {@code epsilonAfter} = its ε at the per-teacher target δ (vote operator).
     */
    TEACHER_CHARGE,
    /**
     * Scheme A: an admitted release's outcome sent back to its involved teachers: {@code releases}
     * = the teachers it charges, {@code votesCast} = the involved teachers (accountant). The run is
     * finished only once the TEACHER_CHARGE entries of every charged teacher are visible.
     */
    TEACHER_FEEDBACK
}
