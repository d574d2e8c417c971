package org.hotpate.core.randomness;

import static org.hotpate.core.util.Preconditions.checkNonNegative;
import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.hotpate.core.util.Sha256;

/**
 * Derives the public 64-bit seeds of {@link SharedRandomness} from public identifiers, once per
 * step (or once per teacher), so every subtask and external teacher gets the same value. SHA-256 of
 * a canonical, length-prefixed byte string; the first 8 bytes of the digest, big-endian, are the
 * result (spec in {@code docs/shared-randomness.md}, version {@value SharedRandomness#VERSION}).
 *
 * <p>Only public identifiers go in: the shared randomness must be independent of private data.
 */
public final class SeedDerivation {
    static final byte[] STEP_TAG = "hotpate-step-seed-v1".getBytes(StandardCharsets.US_ASCII);
    static final byte[] TEACHER_TAG = "hotpate-teacher-key-v1".getBytes(StandardCharsets.US_ASCII);

    private SeedDerivation() {}

    /**
     * The step seed: SHA-256 of {@code "hotpate-step-seed-v1" || BE64(runSeed) ||
     * BE32(len(sequenceId)) || UTF8(sequenceId) || BE32(step) || BE32(attempt)}, first 8 bytes
     * big-endian. A re-run after ⊥ uses a new {@code attempt} and so gets fresh randomness.
     */
    public static long stepSeed(long runSeed, String sequenceId, int step, int attempt) {
        checkNotNull("sequenceId", sequenceId);
        checkNonNegative("step", step);
        checkNonNegative("attempt", attempt);
        byte[] seq = sequenceId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(STEP_TAG.length + 8 + 4 + seq.length + 8);
        b.put(STEP_TAG).putLong(runSeed).putInt(seq.length).put(seq).putInt(step).putInt(attempt);
        return first8(b.array());
    }

    /**
     * The teacher key that selects a teacher's own streams: SHA-256 of {@code
     * "hotpate-teacher-key-v1" || BE32(len(teacherId)) || UTF8(teacherId)}, first 8 bytes
     * big-endian.
     */
    public static long teacherKey(String teacherId) {
        checkNotNull("teacherId", teacherId);
        byte[] id = teacherId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(TEACHER_TAG.length + 4 + id.length);
        b.put(TEACHER_TAG).putInt(id.length).put(id);
        return first8(b.array());
    }

    /**
     * The key of the teacher at roster index {@code index} when teachers have no names: {@code
     * teacherKey(Integer.toString(index))}, so a teacher called "3" and index 3 share a key.
     */
    public static long teacherKey(int index) {
        checkNonNegative("teacher index", index);
        return teacherKey(Integer.toString(index));
    }

    private static long first8(byte[] message) {
        byte[] d = Sha256.threadDigest().digest(message);
        return ByteBuffer.wrap(d, 0, 8).getLong();
    }
}
