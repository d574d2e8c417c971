package org.hotpate.core.util;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * One SHA-256 digest per thread, for the per-vote paths that derive public randomness:
 * MessageDigest.getInstance looks the provider up on every call, which cost more than the hash
 * itself there (JFR of {@code ./hotpate bench pipeline --payload model-vote}).
 */
public final class Sha256 {
    private static final ThreadLocal<MessageDigest> DIGEST =
            ThreadLocal.withInitial(
                    () -> {
                        try {
                            return MessageDigest.getInstance("SHA-256");
                        } catch (NoSuchAlgorithmException e) {
                            throw new IllegalStateException(
                                    "SHA-256 is required by every Java platform", e);
                        }
                    });

    private Sha256() {}

    /**
     * This thread's digest, reset: feed it with {@code update} and finish with {@code digest()},
     * which resets it for the next caller on the thread. Never keep it across calls.
     */
    public static MessageDigest threadDigest() {
        MessageDigest d = DIGEST.get();
        d.reset(); // in case an earlier caller threw between update and digest
        return d;
    }
}
