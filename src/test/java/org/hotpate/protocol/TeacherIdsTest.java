package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Records runs' durable teacher ids: keyed pseudonyms of the user ids, not ranks. */
class TeacherIdsTest {
    private static final byte[] KEY = new byte[32];

    static {
        for (int i = 0; i < KEY.length; i++) {
            KEY[i] = (byte) i;
        }
    }

    @Test
    void pseudonymsAreTheTruncatedHmacOfTheUserId() {
        // independent Python: int.from_bytes(hmac.new(bytes(range(32)), b"alice",
        // hashlib.sha256).digest()[:8], "big") & (2**63 - 1)
        assertThat(TeacherIds.pseudonym(KEY, "alice")).isEqualTo(7993798267787261657L);
        assertThat(TeacherIds.pseudonym(KEY, "bob")).isEqualTo(1335653140071434222L);
        assertThatThrownBy(() -> TeacherIds.pseudonym(new byte[3], "alice"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void chargesFollowTheUserWhenRanksShift() {
        TeacherIds first = TeacherIds.forUsers(KEY, List.of("alice", "bob", "carol"));
        // run 1 charged bob (rank 1) twice and carol (rank 2) four times
        Map<Long, Long> durable = Map.of(first.durable(1), 2L, first.durable(2), 4L);
        // batch 2: a new user sorts first, every rank shifts by one
        TeacherIds second = TeacherIds.forUsers(KEY, List.of("aaron", "alice", "bob", "carol"));
        assertThat(second.toRanks(durable)).isEqualTo(Map.of(2L, 2L, 3L, 4L));
        // keyed by rank (the identity), alice would have inherited bob's charges
        assertThat(TeacherIds.IDENTITY.toRanks(Map.of(1L, 2L, 2L, 4L))).containsEntry(1L, 2L);
        assertThat(TeacherIds.IDENTITY.durable(5)).isEqualTo(5);
        assertThat(second.durable(0)).isEqualTo(TeacherIds.pseudonym(KEY, "aaron"));
    }
}
