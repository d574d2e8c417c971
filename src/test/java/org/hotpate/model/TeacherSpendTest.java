package org.hotpate.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The merge of two versions of a teacher's durable entry: the later version wins (so pending
 * involvements can be resolved downward by the same writer's later version), equal versions keep
 * the larger charges + pending, and charges never decrease under any merge.
 */
class TeacherSpendTest {
    private static TeacherSpend spend(long charges, long pending, long version) {
        return new TeacherSpend(
                "D",
                7,
                "scheme-a/x",
                charges,
                pending,
                version,
                charges * 0.5,
                1e-6,
                false,
                "r",
                version);
    }

    @Test
    void theLaterVersionWinsAndMayResolvePendingDownward() {
        TeacherSpend involved = spend(1, 2, 5);
        TeacherSpend resolved = spend(1, 1, 6); // one outcome came back uncharged
        assertThat(TeacherSpend.merge(involved, resolved)).isEqualTo(resolved);
        assertThat(TeacherSpend.merge(resolved, involved)).isEqualTo(resolved);
        TeacherSpend charged = spend(2, 0, 7); // the other came back BETWEEN
        assertThat(TeacherSpend.merge(charged, resolved).total()).isEqualTo(2);
        assertThat(TeacherSpend.merge(charged, resolved).charges()).isEqualTo(2);
    }

    @Test
    void equalVersionsKeepTheLargerChargesPlusPending() {
        TeacherSpend a = spend(1, 3, 4);
        TeacherSpend b = spend(2, 0, 4);
        assertThat(TeacherSpend.merge(a, b).total()).isEqualTo(4);
        assertThat(TeacherSpend.merge(b, a).total()).isEqualTo(4);
        // never fewer charges: b's second charge is kept, a's total still bounds what is in flight
        assertThat(TeacherSpend.merge(a, b).charges()).isEqualTo(2);
        assertThat(TeacherSpend.merge(a, b).pending()).isEqualTo(2);
    }

    @Test
    void chargesNeverDecreaseEvenWhenTheLaterVersionHasFewer() {
        TeacherSpend ahead = spend(3, 0, 9); // written before a restore rolled the writer back
        TeacherSpend later = spend(2, 2, 10);
        TeacherSpend m = TeacherSpend.merge(ahead, later);
        assertThat(m.charges()).isEqualTo(3);
        assertThat(m.total()).isEqualTo(4);
        assertThat(m.version()).isEqualTo(10);
        TeacherSpend few = spend(1, 0, 11);
        TeacherSpend n = TeacherSpend.merge(m, few);
        assertThat(n.charges()).isEqualTo(3);
        assertThat(n.pending()).isZero();
    }

    @Test
    void randomMergesNeverLoseChargesAndKeepTheWinnersTotal() {
        Random rnd = new Random(23);
        for (int i = 0; i < 10_000; i++) {
            TeacherSpend a = spend(rnd.nextInt(6), rnd.nextInt(4), rnd.nextInt(5));
            TeacherSpend b = spend(rnd.nextInt(6), rnd.nextInt(4), rnd.nextInt(5));
            TeacherSpend m = TeacherSpend.merge(a, b);
            assertThat(m.charges()).isEqualTo(Math.max(a.charges(), b.charges()));
            assertThat(m.version()).isEqualTo(Math.max(a.version(), b.version()));
            TeacherSpend win =
                    a.version() != b.version()
                            ? (a.version() > b.version() ? a : b)
                            : (a.total() >= b.total() ? a : b);
            assertThat(m.total()).isEqualTo(Math.max(win.total(), m.charges()));
            assertThat(TeacherSpend.merge(b, a).charges()).isEqualTo(m.charges());
            assertThat(TeacherSpend.merge(b, a).total()).isEqualTo(m.total());
        }
    }

    @Test
    void entriesUnderTwoPlansOrOfTwoTeachersDoNotMerge() {
        TeacherSpend a = spend(1, 0, 1);
        TeacherSpend otherPlan =
                new TeacherSpend("D", 7, "scheme-b/y", 1, 0, 1, 0.1, 1e-6, false, "r", 1);
        TeacherSpend otherTeacher =
                new TeacherSpend("D", 8, "scheme-a/x", 1, 0, 1, 0.1, 1e-6, false, "r", 1);
        assertThatThrownBy(() -> TeacherSpend.merge(a, otherPlan))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TeacherSpend.merge(a, otherTeacher))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> spend(1, -1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
