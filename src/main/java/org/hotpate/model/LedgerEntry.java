package org.hotpate.model;

/**
 * A privacy ledger entry (schemas/ledger_event.avsc) on the operator-only {@code ledger} topic.
 * {@code kind}: what it records ({@link LedgerKind}); {@code teacherId} is -1 unless
 * TEACHER_RETIRED or TEACHER_CHARGE; {@code votesCast} is the number of teachers that answered the
 * step (-1 when not applicable); {@code datasetEpsilonAfter} is the dataset's ε over all runs after
 * the entry (NaN when not applicable); {@code releasedVotes} is the number of teachers that voted
 * for the released token (CHARGE of a token; -1 otherwise) — private, like {@code votesCast}.
 */
public record LedgerEntry(
        String runId,
        LedgerKind kind,
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
        double datasetEpsilonAfter,
        int releasedVotes)
        implements StepRef {}
