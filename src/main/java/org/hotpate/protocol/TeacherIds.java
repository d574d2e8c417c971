package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A run's teacher ids → the ids its durable per-teacher ledger entries are keyed by ({@code
 * <dataset>/teacher/<id>}). Records runs number their teachers by the rank of the user id in the
 * batch (one teacher per user), and a rank is not stable: a second records batch with one new user
 * shifts every later rank, and keyed by rank users would inherit each other's charges (issue 23
 * item 6). So their durable entries are keyed by a stable <b>pseudonym</b> of the user: {@link
 * #pseudonym} = HMAC-SHA256(dataset secret, user id) truncated to a non-negative {@code long}; the
 * secret is kept in the ledger store (per dataset), so the pseudonym reveals nothing about the user
 * id without it. The job keeps using ranks; ranks map to pseudonyms where an entry is written
 * ({@link #durable}) and pseudonyms back to this batch's ranks where earlier charges are loaded
 * ({@link #toRanks}). Every other run keeps its teacher ids as they are ({@link #IDENTITY}).
 */
public final class TeacherIds implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Teacher ids are durable ids (not a records run, or not one teacher per user). */
    public static final TeacherIds IDENTITY = new TeacherIds(Map.of());

    /** Bytes of a dataset's pseudonym secret. */
    public static final int SECRET_BYTES = 32;

    private final HashMap<Long, Long> durableOfRank;

    private TeacherIds(Map<Long, Long> durableOfRank) {
        this.durableOfRank = new HashMap<>(durableOfRank);
    }

    /**
     * One teacher per user: teacher {@code i} is {@code usersByRank.get(i)}, keyed by its pseudonym
     * under {@code secret}. Two users with one pseudonym (probability ≈ n²/2⁶⁴) are refused rather
     * than merged.
     */
    public static TeacherIds forUsers(byte[] secret, List<String> usersByRank) {
        Map<Long, Long> m = new HashMap<>();
        Map<Long, Long> seen = new HashMap<>();
        for (int i = 0; i < usersByRank.size(); i++) {
            long p = pseudonym(secret, usersByRank.get(i));
            checkArgument(
                    seen.put(p, (long) i) == null,
                    "two users of the batch share a ledger pseudonym; use another dataset");
            m.put((long) i, p);
        }
        return new TeacherIds(m);
    }

    /**
     * The first 8 bytes of HMAC-SHA256({@code secret}, UTF-8 {@code user}) as a big-endian long,
     * its sign bit cleared.
     */
    public static long pseudonym(byte[] secret, String user) {
        checkArgument(
                secret != null && secret.length == SECRET_BYTES,
                "the pseudonym secret must be " + SECRET_BYTES + " bytes");
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return ByteBuffer.wrap(mac.doFinal(user.getBytes(StandardCharsets.UTF_8))).getLong()
                    & Long.MAX_VALUE;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /** Whether ids are mapped (a records run keyed by pseudonyms). */
    public boolean mapped() {
        return !durableOfRank.isEmpty();
    }

    /** The durable id of the run's teacher {@code teacher} (itself when not mapped). */
    public long durable(long teacher) {
        if (!mapped()) {
            return teacher;
        }
        Long p = durableOfRank.get(teacher);
        if (p == null) {
            throw new IllegalArgumentException("teacher " + teacher + " is not in the batch");
        }
        return p;
    }

    /**
     * {@code byDurable} (values per durable id) re-keyed by this run's teacher ids; entries of
     * durable ids not in this run (users absent from the batch) are left out. Unchanged when not
     * mapped.
     */
    public Map<Long, Long> toRanks(Map<Long, Long> byDurable) {
        if (!mapped()) {
            return byDurable;
        }
        Map<Long, Long> out = new HashMap<>();
        for (Map.Entry<Long, Long> e : durableOfRank.entrySet()) {
            Long v = byDurable.get(e.getValue());
            if (v != null) {
                out.put(e.getKey(), v);
            }
        }
        return out;
    }
}
