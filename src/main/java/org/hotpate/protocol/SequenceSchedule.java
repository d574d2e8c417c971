package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.hotpate.core.generation.FinishReason;

/**
 * Which sequences of a run start when, and what accounts for every requested one. Sequences {@code
 * 0 .. concurrency-1} start together (the first wave); sequence {@code j + concurrency} starts when
 * sequence {@code j} finishes — unless {@code j} finished because the budget refused its step:
 * refusals are final (every later candidate is refused too), so then {@code j}'s successors {@code
 * j + concurrency, j + 2·concurrency, …} never start, and each of them ends in an empty record
 * whose finish reason is {@link FinishReason#NOT_STARTED}.
 *
 * <p>The rule that follows (DESIGN.md invariant 11): every requested sequence ends in exactly one
 * record — text, or empty with its finish reason — so a run is complete exactly when {@link
 * #unaccounted} is empty, and the records add up to {@code sequences}.
 *
 * @param sequences how many sequences the run requests ({@code generation.sequences})
 * @param concurrency how many are in flight at most ({@code generation.concurrency})
 */
public record SequenceSchedule(int sequences, int concurrency) implements Serializable {
    private static final long serialVersionUID = 1L;

    public SequenceSchedule {
        checkPositive("sequences", sequences);
        checkPositive("concurrency", concurrency);
    }

    /** How many sequences start at once, from the job's start source. */
    public int firstWave() {
        return Math.min(concurrency, sequences);
    }

    /**
     * Whether a sequence that finished for {@code reason} starts its successor: every finish does
     * but one on the budget (BUDGET_EXHAUSTED, or NOT_STARTED behind it).
     */
    public static boolean startsSuccessor(FinishReason reason) {
        return reason != FinishReason.BUDGET_EXHAUSTED && reason != FinishReason.NOT_STARTED;
    }

    /**
     * The sequence that starts when {@code sequenceId} finishes for {@code reason}: {@code
     * sequenceId + concurrency} if there is one, and none (-1) after a finish on the budget.
     */
    public long successor(long sequenceId, FinishReason reason) {
        return startsSuccessor(reason) ? next(sequenceId) : -1;
    }

    /**
     * The sequences that never start because {@code sequenceId} finished for {@code reason}: none
     * when it starts its successor, else the whole chain {@code sequenceId + concurrency,
     * sequenceId + 2·concurrency, …} below {@code sequences} (each would have been started by the
     * one before).
     */
    public List<Long> neverStarted(long sequenceId, FinishReason reason) {
        List<Long> out = new ArrayList<>();
        if (!startsSuccessor(reason)) {
            for (long j = next(sequenceId); j >= 0; j = next(j)) {
                out.add(j);
            }
        }
        return out;
    }

    /** The requested sequences {@code 0 .. sequences-1} without a record among {@code recorded}. */
    public List<Long> unaccounted(Collection<Long> recorded) {
        Set<Long> have = new HashSet<>(recorded);
        List<Long> out = new ArrayList<>();
        for (long j = 0; j < sequences; j++) {
            if (!have.contains(j)) {
                out.add(j);
            }
        }
        return out;
    }

    /** The next sequence of {@code sequenceId}'s chain, or -1 past the run's last. */
    private long next(long sequenceId) {
        long next = sequenceId + concurrency;
        return next < sequences ? next : -1;
    }
}
