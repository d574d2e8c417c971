package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class TeacherAccountTest {

    @Test
    void retiresAtItsLimit_andRefusesFurtherCharges() {
        TeacherAccount a = TeacherAccount.NONE;
        assertThat(a.retired(3)).isFalse();
        a = a.charge(3).charge(3);
        assertThat(a.admits(3)).isTrue();
        a = a.charge(3);
        assertThat(a.retired(3)).isTrue();
        TeacherAccount spent = a;
        assertThatThrownBy(() -> spent.charge(3)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new TeacherAccount(-1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TeacherAccount(0, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pendingInvolvementsCountAsChargesUntilTheirOutcomeComesBack() {
        TeacherAccount a = TeacherAccount.of(1).involve();
        assertThat(a.roomWithPending(3)).isTrue();
        a = a.involve();
        assertThat(a.roomWithPending(3)).as("1 charge + 2 pending = τ").isFalse();
        assertThat(a.admits(3)).as("not retired: outcomes may charge nothing").isTrue();
        a = a.resolve();
        assertThat(a).isEqualTo(new TeacherAccount(1, 1));
        TeacherAccount none = TeacherAccount.NONE;
        assertThatThrownBy(none::resolve).isInstanceOf(IllegalStateException.class);
    }

    /** Property: once retired, an account stays retired whatever happens to it afterwards. */
    @Test
    void aRetiredAccountStaysRetired() {
        Random r = new Random(42);
        long limit = 5;
        TeacherAccount[] accounts = new TeacherAccount[50];
        java.util.Arrays.fill(accounts, TeacherAccount.NONE);
        boolean[] retired = new boolean[50];
        for (int i = 0; i < 5000; i++) {
            int t = r.nextInt(50);
            TeacherAccount a = accounts[t];
            if (a.retired(limit)) {
                assertThatThrownBy(() -> a.charge(limit)).isInstanceOf(IllegalStateException.class);
            } else if (r.nextBoolean()) {
                accounts[t] = a.charge(limit);
                assertThat(accounts[t].charges()).isGreaterThan(a.charges());
            } else {
                accounts[t] = a.involve().resolve();
            }
            for (int k = 0; k < 50; k++) {
                if (retired[k]) {
                    assertThat(accounts[k].retired(limit)).isTrue();
                }
                retired[k] = accounts[k].retired(limit);
            }
        }
        assertThat(retired).contains(true);
    }
}
