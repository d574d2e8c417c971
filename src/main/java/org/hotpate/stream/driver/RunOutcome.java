package org.hotpate.stream.driver;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.hotpate.core.generation.FinishReason;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.Outcome;
import org.hotpate.model.Rejected;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.protocol.SequenceSchedule;
import org.hotpate.protocol.StepId;

/**
 * What the driver knows of a run from its read_committed outputs ({@link RunFollower} adds them):
 * its results (one per step; a second one for a step is kept apart as a duplicate), finished
 * records, operator-only ledger entries and dead letters — and the rules the driver decides on:
 * whether every requested sequence has its record ({@link #complete()}), whether every charge
 * scheme-a's releases owe is applied ({@link #teacherFeedbackApplied()}), and the counts the
 * summaries print. Thread-safe (the follower adds while a caller reads).
 */
public final class RunOutcome {
    private double durableEpsilon; // the run's durable ledger entry, read at its end
    private final SequenceSchedule schedule;
    private final boolean feedsOutcomesBack;
    private final Map<StepId, StepResult> results = new HashMap<>();
    private final List<StepResult> ordered = new ArrayList<>();
    private final List<StepResult> duplicateResults = new ArrayList<>();
    private final Map<Long, SyntheticRecord> records = new TreeMap<>();
    private final List<LedgerEntry> ledger = new ArrayList<>();
    private final List<Rejected> rejected = new ArrayList<>();
    private long lateVotes;

    /**
     * A run of {@code sequences} sequences, {@code concurrency} in flight, whose accounting mode
     * {@code feedsOutcomesBack} (scheme-a) or not.
     */
    public RunOutcome(int sequences, int concurrency, boolean feedsOutcomesBack) {
        this.schedule = new SequenceSchedule(sequences, concurrency);
        this.feedsOutcomesBack = feedsOutcomesBack;
    }

    /** Adds a result; true if it is the step's first. */
    public synchronized boolean add(StepResult r) {
        if (results.putIfAbsent(StepId.of(r), r) != null) {
            duplicateResults.add(r);
            return false;
        }
        ordered.add(r);
        return true;
    }

    public synchronized void add(SyntheticRecord r) {
        records.put(r.sequenceId(), r);
    }

    public synchronized void add(LedgerEntry e) {
        ledger.add(e);
    }

    public synchronized void add(Rejected r) {
        rejected.add(r);
        if (Rejected.LATE_VOTE.equals(r.reason())) {
            lateVotes++;
        }
    }

    /** The LATE_VOTE rejections so far (votes for a step already closed). */
    public synchronized long lateVotes() {
        return lateVotes;
    }

    /**
     * Whether every requested sequence has its one record — text, or empty with its finish reason
     * (NOT_STARTED for those the budget never let start; {@link SequenceSchedule}): the run is
     * complete only then. Nothing is counted as accounted for without its record.
     */
    public synchronized boolean complete() {
        return unaccounted().isEmpty();
    }

    /** The requested sequences without a record so far, in order (empty once complete). */
    public synchronized List<Long> unaccounted() {
        return schedule.unaccounted(records.keySet());
    }

    /**
     * Scheme A: whether every charge the run's admitted releases owe is applied — for each
     * TEACHER_FEEDBACK entry of the accountant (a release and how many teachers its outcome
     * charges) the vote operator's TEACHER_CHARGE entries for that step are visible. The run is
     * finished only then, so it never ends with a BETWEEN outcome still in flight to a teacher's
     * charges (docs/privacy-accounting.md). Always true for other accounting modes.
     */
    public synchronized boolean teacherFeedbackApplied() {
        if (!feedsOutcomesBack) {
            return true;
        }
        Map<StepId, Long> owed = new HashMap<>();
        Map<StepId, Set<Long>> applied = new HashMap<>();
        for (LedgerEntry e : ledger) {
            if (e.kind() == LedgerKind.TEACHER_FEEDBACK) {
                owed.put(StepId.of(e), e.releases());
            } else if (e.kind() == LedgerKind.TEACHER_CHARGE) {
                applied.computeIfAbsent(StepId.of(e), x -> new HashSet<>()).add(e.teacherId());
            }
        }
        for (Map.Entry<StepId, Long> o : owed.entrySet()) {
            if (applied.getOrDefault(o.getKey(), Set.of()).size() < o.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** Whether the run is finished: {@link #complete()} and {@link #teacherFeedbackApplied()}. */
    public boolean finished() {
        return complete() && teacherFeedbackApplied();
    }

    /** Released tokens (TOKEN results). */
    public synchronized long tokens() {
        return ordered.stream().filter(r -> r.outcome() == Outcome.TOKEN).count();
    }

    /**
     * Released tokens (TOKEN results, each charged) of sequences without a record: the run ended (a
     * stall, a timeout, a savepoint) before those sequences finished, so no record holds them.
     */
    public synchronized long tokensWithoutRecord() {
        return ordered.stream()
                .filter(r -> r.outcome() == Outcome.TOKEN && !records.containsKey(r.sequenceId()))
                .count();
    }

    /** ⊥ results. */
    public synchronized long fails() {
        return ordered.stream().filter(r -> r.outcome() == Outcome.FAIL).count();
    }

    /**
     * The run's ε after its last charge (0 before any): the largest of the charges the driver read
     * and the run's durable ledger entry ({@link #durableEpsilon}) — the followed {@code ledger}
     * topic can lag behind an open transaction at the end, the durable entry cannot be below what
     * was released.
     */
    public synchronized double epsilon() {
        return Math.max(
                durableEpsilon,
                ledger.stream()
                        .filter(e -> e.kind() == LedgerKind.CHARGE)
                        .mapToDouble(LedgerEntry::epsilonAfter)
                        .max()
                        .orElse(0));
    }

    /** The run's ε in its durable ledger entry, read when the run ends (never lowers it). */
    public synchronized void durableEpsilon(double epsilon) {
        if (epsilon > durableEpsilon) {
            durableEpsilon = epsilon;
        }
    }

    /** Entries of {@code kind}. */
    public synchronized List<LedgerEntry> ledger(LedgerKind kind) {
        return ledger.stream().filter(e -> e.kind() == kind).toList();
    }

    /** How many sequences ended for each reason. */
    public synchronized Map<FinishReason, Integer> finishReasons() {
        Map<FinishReason, Integer> reasons = new TreeMap<>();
        records.values().forEach(r -> reasons.merge(r.finishReason(), 1, Integer::sum));
        return reasons;
    }

    /** The results, ordered by sequence, position and attempt. */
    public synchronized List<StepResult> results() {
        return ordered.stream()
                .sorted(
                        java.util.Comparator.comparingLong(StepResult::sequenceId)
                                .thenComparingInt(StepResult::step)
                                .thenComparingInt(StepResult::attempt))
                .toList();
    }

    public synchronized List<StepResult> duplicateResults() {
        return List.copyOf(duplicateResults);
    }

    public synchronized List<SyntheticRecord> records() {
        return List.copyOf(records.values());
    }

    public synchronized List<LedgerEntry> ledger() {
        return List.copyOf(ledger);
    }

    public synchronized List<Rejected> rejected() {
        return List.copyOf(rejected);
    }

    /** Results seen so far (for the ⊥ rate). */
    public synchronized int resultCount() {
        return ordered.size();
    }

    /** Finished records so far. */
    public synchronized int recordCount() {
        return records.size();
    }
}
