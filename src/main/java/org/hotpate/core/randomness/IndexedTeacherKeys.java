package org.hotpate.core.randomness;

import static org.hotpate.core.util.Preconditions.checkNonNegative;

import java.util.Arrays;

/**
 * {@link SeedDerivation#teacherKey(int)} remembered per roster index, for the per-vote paths (the
 * job's voter, a worker hosting many teachers): the key is a pure function of the index, so it is
 * hashed once per teacher instead of once per vote. Not thread-safe: one instance per thread.
 */
public final class IndexedTeacherKeys {
    private long[] keys = new long[0];
    private boolean[] known = new boolean[0];

    /** The key of the teacher at roster index {@code index}. */
    public long of(int index) {
        checkNonNegative("teacher index", index);
        if (index >= keys.length) {
            int size = Math.max(index + 1, Math.min(Integer.MAX_VALUE - 8, 2 * keys.length));
            keys = Arrays.copyOf(keys, size);
            known = Arrays.copyOf(known, size);
        }
        if (!known[index]) {
            keys[index] = SeedDerivation.teacherKey(index);
            known[index] = true;
        }
        return keys[index];
    }
}
