package org.hotpate.eval.records;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * The split of USERS (not records) into teaching and held-out users: the distinct users sorted, a
 * Fisher–Yates shuffle from the public {@code seed}, the first ⌈f·n⌉ held out (at least one, and at
 * least one user left to teach). A held-out user never teaches: all their records go to the test
 * side, which is what makes "tested on held-out users" mean unseen people rather than unseen emails
 * of people the teachers already know. The split depends only on the set of users and the seed, not
 * on the order of the file.
 *
 * @param teaching the teaching users, sorted
 * @param heldOut the held-out users, sorted
 */
public record UserSplit(List<String> teaching, List<String> heldOut) {
    public UserSplit {
        teaching = List.copyOf(teaching);
        heldOut = List.copyOf(heldOut);
    }

    /** Splits {@code users} (duplicates ignored) with held-out fraction {@code f} ∈ (0, 1). */
    public static UserSplit of(Iterable<String> users, double f, long seed) {
        checkNotNull("users", users);
        checkArgument(f > 0 && f < 1, "holdout fraction must be in (0, 1); got " + f);
        TreeSet<String> distinct = new TreeSet<>();
        users.forEach(distinct::add);
        checkArgument(
                distinct.size() >= 2,
                "need at least 2 distinct users to split into teaching and held-out; got "
                        + distinct.size());
        List<String> order = shuffle(new ArrayList<>(distinct), seed);
        int held = (int) Math.ceil(f * order.size());
        held = Math.max(1, Math.min(order.size() - 1, held));
        TreeSet<String> h = new TreeSet<>(order.subList(0, held));
        TreeSet<String> t = new TreeSet<>(order.subList(held, order.size()));
        return new UserSplit(new ArrayList<>(t), new ArrayList<>(h));
    }

    /**
     * A Fisher–Yates shuffle of a copy of {@code in} from the public {@code seed}: the evaluation's
     * one rule for seeded choices of users (the split, the kept subset, the canaries' owners).
     */
    static List<String> shuffle(List<String> in, long seed) {
        List<String> l = new ArrayList<>(in);
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = l.size() - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            String t = l.get(i);
            l.set(i, l.get(j));
            l.set(j, t);
        }
        return l;
    }
}
