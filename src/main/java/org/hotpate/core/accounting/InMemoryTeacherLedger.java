package org.hotpate.core.accounting;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.util.HashMap;
import java.util.Map;

/** A {@link TeacherLedger} in a hash map (tests, the CLI, single-JVM runs). Not thread-safe. */
public final class InMemoryTeacherLedger implements TeacherLedger, java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final ChargeLimit limit;
    private final HashMap<Integer, Double> spent = new HashMap<>();

    public InMemoryTeacherLedger(ChargeLimit limit) {
        this.limit = checkNotNull("limit", limit);
    }

    public InMemoryTeacherLedger(double limit) {
        this(new ChargeLimit(limit));
    }

    @Override
    public void charge(int teacher, double amount) {
        checkArgument(teacher >= 0, "teacher must be >= 0; got " + teacher);
        spent.put(teacher, limit.charge(spent(teacher), amount));
    }

    @Override
    public boolean isRetired(int teacher) {
        return limit.isRetired(spent(teacher));
    }

    @Override
    public double remaining(int teacher) {
        return limit.remaining(spent(teacher));
    }

    @Override
    public double spent(int teacher) {
        return spent.getOrDefault(teacher, 0.0);
    }

    @Override
    public ChargeLimit limit() {
        return limit;
    }

    /** A copy of every charged teacher's spent value (e.g. to seed keyed state). */
    public Map<Integer, Double> snapshot() {
        return Map.copyOf(spent);
    }
}
