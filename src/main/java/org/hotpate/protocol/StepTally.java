package org.hotpate.protocol;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.hotpate.core.vote.VoteHistogram;
import org.hotpate.model.Vote;
import org.hotpate.model.VoteBatch;

/**
 * A step's tally: the votes it counts when it closes, and the rules that decide when it closes and
 * whether it is released.
 *
 * <ul>
 *   <li><b>Close.</b> A step closes when every one of the n teachers has voted <em>and</em> the
 *       step itself has been seen ({@link #complete}), or at its deadline (missing teachers
 *       abstain).
 *   <li><b>Dedupe.</b> At most one vote per teacher counts — the first to arrive; a later one is a
 *       duplicate ({@link #duplicates()}), dead-lettered, never counted: sensitivity 1 whatever
 *       reaches the reducer (votes made at the source come without the vote operator's dedupe).
 *   <li><b>Quorum.</b> A step with fewer than {@code generation.min-teachers} answering teachers is
 *       abandoned ({@link #meetsQuorum}): not aggregated, nothing released, nothing charged; the
 *       watchdog re-issues the position. Whether enough teachers answered is liveness, treated as
 *       public.
 * </ul>
 *
 * <p>Votes are stored as packed (teacher, token) pairs per batch ({@link #pack}), one append per
 * batch.
 */
public final class StepTally {
    private final StepId step;
    private final int teachers;
    private final List<Vote> counted;
    private final List<Vote> duplicates;

    private StepTally(StepId step, int teachers, List<Vote> counted, List<Vote> duplicates) {
        this.step = step;
        this.teachers = teachers;
        this.counted = counted;
        this.duplicates = duplicates;
    }

    /** Whether a step closes now: {@code votes} ≥ n teachers, and the step itself was seen. */
    public static boolean complete(int votes, boolean stepSeen, int teachers) {
        return stepSeen && votes >= teachers;
    }

    /** A batch as the reducer stores it: (teacher, token) pairs. */
    public static long[] pack(VoteBatch batch) {
        long[] packed = new long[2 * batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            packed[2 * i] = batch.teachers()[i];
            packed[2 * i + 1] = batch.tokens()[i];
        }
        return packed;
    }

    /** The stored votes of {@code step}, in arrival order. */
    public static List<Vote> unpack(StepId step, Iterable<long[]> stored) {
        List<Vote> out = new ArrayList<>();
        if (stored != null) {
            for (long[] packed : stored) {
                for (int i = 0; i < packed.length; i += 2) {
                    out.add(
                            new Vote(
                                    step.runId(),
                                    step.sequenceId(),
                                    step.step(),
                                    step.attempt(),
                                    packed[i],
                                    (int) packed[i + 1]));
                }
            }
        }
        return out;
    }

    /** The tally of a closing step: each teacher's first vote counts, later ones are duplicates. */
    public static StepTally count(StepId step, Iterable<long[]> stored, int teachers) {
        List<Vote> counted = new ArrayList<>();
        List<Vote> duplicates = new ArrayList<>();
        BitSet voted = new BitSet(teachers);
        for (Vote v : unpack(step, stored)) {
            int teacher = (int) v.teacherId();
            if (voted.get(teacher)) {
                duplicates.add(v);
            } else {
                voted.set(teacher);
                counted.add(v);
            }
        }
        return new StepTally(step, teachers, List.copyOf(counted), List.copyOf(duplicates));
    }

    public StepId step() {
        return step;
    }

    /** The counted votes (one per answering teacher, abstentions included), in arrival order. */
    public List<Vote> counted() {
        return counted;
    }

    /** Second and later votes of a teacher: never counted. */
    public List<Vote> duplicates() {
        return duplicates;
    }

    /** How many teachers answered (abstentions included). */
    public int answered() {
        return counted.size();
    }

    /** Whether at least {@code minTeachers} teachers answered; otherwise the step is abandoned. */
    public boolean meetsQuorum(int minTeachers) {
        return answered() >= minTeachers;
    }

    /**
     * The counted votes for {@code token}: c_token of {@link #histogram()}, without building it.
     */
    public int votesFor(int token) {
        int c = 0;
        for (Vote v : counted) {
            if (v.token() == token) {
                c++;
            }
        }
        return c;
    }

    /** The canonical vote histogram of the counted votes (sorted tokens and voters). */
    public VoteHistogram histogram() {
        VoteHistogram.Builder b = VoteHistogram.builder(teachers);
        for (Vote v : counted) {
            b.vote((int) v.teacherId(), v.token());
        }
        return b.build();
    }
}
