package org.hotpate.teachers.records;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Collection;
import java.util.TreeSet;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Users → teachers, disjoint by construction (the privacy unit is the user; DESIGN invariant 7):
 * the teacher of a user is a function of the user id alone, so all records of a user reach one
 * teacher and no user reaches two.
 *
 * <ul>
 *   <li><b>heterogeneous</b>: one teacher per distinct user; teacher id = rank of the user id in
 *       the sorted list of distinct users (n = number of users, public).
 *   <li><b>homogeneous</b>: n groups; teacher id = HMAC-SHA256(key, user id) mod n, with the key
 *       derived from {@code ensemble.seed} (the assignment spreads users; it is not a secret).
 * </ul>
 */
public final class UserDirectory implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String[] users; // heterogeneous: sorted distinct users; null when homogeneous
    private final int teachers;
    private final byte[] hashKey; // homogeneous only

    private UserDirectory(String[] users, int teachers, byte[] hashKey) {
        this.users = users;
        this.teachers = teachers;
        this.hashKey = hashKey;
    }

    /** One teacher per distinct user, by rank of the user id. */
    public static UserDirectory perUser(Collection<String> users) {
        String[] sorted = new TreeSet<>(users).toArray(String[]::new);
        checkArgument(sorted.length > 0, "a heterogeneous ensemble needs at least one user");
        return new UserDirectory(sorted, sorted.length, null);
    }

    /** {@code teachers} groups by a keyed hash of the user id. */
    public static UserDirectory hashed(int teachers, long seed) {
        checkArgument(teachers > 0, "ensemble.teachers must be > 0; got " + teachers);
        try {
            byte[] key =
                    MessageDigest.getInstance("SHA-256")
                            .digest(
                                    ("hotpate/user-to-teacher/" + seed)
                                            .getBytes(StandardCharsets.UTF_8));
            return new UserDirectory(null, teachers, key);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    /** n: the number of teachers. */
    public int teachers() {
        return teachers;
    }

    public boolean perUser() {
        return users != null;
    }

    /** One teacher per user: the user ids by teacher id (rank); empty when homogeneous. */
    public java.util.List<String> usersByRank() {
        return users == null ? java.util.List.of() : java.util.List.of(users);
    }

    /** The teacher of {@code user}, or -1 for a user the (per-user) directory does not know. */
    public long teacherOf(String user) {
        if (users != null) {
            int i = Arrays.binarySearch(users, user);
            return i >= 0 ? i : -1;
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(hashKey, "HmacSHA256"));
            long h = ByteBuffer.wrap(mac.doFinal(user.getBytes(StandardCharsets.UTF_8))).getLong();
            return Math.floorMod(h, (long) teachers);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
