package org.hotpate.eval.records;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UserSplitTest {
    private static List<String> users(int n) {
        List<String> u = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            u.add("user" + i);
        }
        return u;
    }

    @Test
    void noHeldOutUserTeaches_andEveryUserIsOnOneSide() {
        for (long seed = 0; seed < 20; seed++) {
            List<String> all = users(57);
            UserSplit s = UserSplit.of(all, 0.2, seed);
            Set<String> t = new HashSet<>(s.teaching());
            for (String h : s.heldOut()) {
                assertThat(t).doesNotContain(h);
            }
            assertThat(s.teaching().size() + s.heldOut().size()).isEqualTo(57);
            assertThat(s.heldOut()).hasSize(12); // ceil(0.2 * 57)
        }
    }

    @Test
    void splitIsByUser_duplicatesAndFileOrderDoNotMatter() {
        List<String> records = new ArrayList<>(users(30));
        records.addAll(users(30)); // every user twice: records, not users
        UserSplit a = UserSplit.of(records, 0.25, 7);
        Collections.reverse(records);
        UserSplit b = UserSplit.of(records, 0.25, 7);
        assertThat(a).isEqualTo(b);
        assertThat(a.heldOut()).hasSize(8);
        assertThat(UserSplit.of(records, 0.25, 8)).isNotEqualTo(a);
    }

    @Test
    void alwaysOneOnEachSide() {
        UserSplit s = UserSplit.of(users(2), 0.01, 1);
        assertThat(s.heldOut()).hasSize(1);
        assertThat(s.teaching()).hasSize(1);
        s = UserSplit.of(users(3), 0.99, 1);
        assertThat(s.teaching()).hasSize(1);
        assertThatThrownBy(() -> UserSplit.of(users(1), 0.2, 1))
                .hasMessageContaining("at least 2 distinct users");
        assertThatThrownBy(() -> UserSplit.of(users(5), 0, 1))
                .hasMessageContaining("holdout fraction");
    }
}
