package org.hotpate.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.TeacherSpend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local budget ledger: never lowered, JSON round trip, fail closed, one run per dataset. */
class BudgetLedgerIoTest {
    @TempDir Path dir;

    private static BudgetRecord rec(String run, double a, double b, long releases, long at) {
        return new BudgetRecord(
                "D",
                run,
                true,
                "gnmax",
                new double[] {2, 8},
                new double[] {a, b},
                0,
                1e-6,
                releases,
                releases,
                a + b,
                at,
                new double[0]);
    }

    @Test
    void aWriteNeverLowersWhatTheFileHolds() throws IOException {
        BudgetLedgerIo.writeLocal(dir, rec("r1", 0.5, 2.0, 10, 1));
        BudgetRecord after =
                BudgetLedgerIo.writeLocal(dir, rec("r1", 0.3, 2.5, 6, 2)); // rolled back
        assertThat(after.rdp()).containsExactly(0.5, 2.5);
        assertThat(after.releases()).isEqualTo(10);
        assertThat(BudgetLedgerIo.readLocal(dir, "D"))
                .singleElement()
                .usingRecursiveComparison()
                .isEqualTo(after);
        BudgetLedgerIo.writeLocal(dir, rec("r2", 0.1, 0.2, 1, 3));
        assertThat(BudgetLedgerIo.readLocal(dir, null)).hasSize(2);
        assertThat(BudgetLedgerIo.readLocal(dir, "other")).isEmpty();
        try (var files = Files.list(BudgetLedgerIo.runFile(dir, "D", "r1").getParent())) {
            assertThat(files).allMatch(f -> f.toString().endsWith(".json"));
        }
    }

    @Test
    void aChargedCurveReadsBackBitForBit_soTheComposedPriorIsNeverBelowIt() throws IOException {
        // values whose short decimals would round down: the JSON holds the shortest decimal that
        // reads back as the same double (Double.toString), never a value rounded to fewer digits
        double a = 0.1 + 0.2; // 0.30000000000000004
        double b = Math.nextDown(1.23441);
        BudgetRecord r = rec("r1", a, b, 3, 1);
        BudgetRecord back = BudgetLedgerJson.fromJson(BudgetLedgerJson.toJson(r));
        assertThat(back.rdp()[0]).isEqualTo(a);
        assertThat(back.rdp()[1]).isEqualTo(b);
        assertThat(back.epsilon()).isEqualTo(a + b);
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(23);
        for (int i = 0; i < 1000; i++) {
            double x = rnd.nextDouble() * Math.pow(10, rnd.nextInt(-8, 3));
            double y = Double.longBitsToDouble(rnd.nextLong(0, 0x7fefffffffffffffL));
            BudgetRecord q =
                    BudgetLedgerJson.fromJson(BudgetLedgerJson.toJson(rec("r", x, y, 1, 1)));
            assertThat(Double.doubleToRawLongBits(q.rdp()[0]))
                    .isEqualTo(Double.doubleToRawLongBits(x));
            assertThat(Double.doubleToRawLongBits(q.rdp()[1]))
                    .isEqualTo(Double.doubleToRawLongBits(y));
        }
    }

    @Test
    void infiniteEpsilonRoundTripsAsNull() throws IOException {
        BudgetRecord nonPrivate =
                new BudgetRecord(
                        "D",
                        "t",
                        false,
                        "targmax",
                        new double[] {2},
                        new double[] {0},
                        0,
                        1e-6,
                        4,
                        4,
                        Double.POSITIVE_INFINITY,
                        1,
                        new double[0]);
        assertThat(BudgetLedgerJson.toJson(nonPrivate)).contains("\"epsilon\":null");
        assertThat(BudgetLedgerJson.fromJson(BudgetLedgerJson.toJson(nonPrivate)).epsilon())
                .isInfinite();
    }

    @Test
    void anUnreadableEntryStopsTheReader() throws IOException {
        BudgetLedgerIo.writeLocal(dir, rec("r1", 0.5, 2.0, 10, 1));
        Files.writeString(BudgetLedgerIo.runFile(dir, "D", "r2"), "{\"version\": 1, \"kind\":");
        assertThatThrownBy(() -> BudgetLedgerIo.readLocal(dir, "D"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("fails closed");
    }

    @Test
    void aDatasetIsLockedForOneRunAtATime() throws IOException {
        try (var lock = DatasetLock.acquire(dir, "D")) {
            assertThatThrownBy(() -> DatasetLock.acquire(dir, "D"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("dataset 'D' is in use");
            DatasetLock.acquire(dir, "E").close(); // another dataset is free
        }
        DatasetLock.acquire(dir, "D").close(); // released
    }

    private static TeacherSpend teacher(long charges, long pending, long version) {
        return new TeacherSpend(
                "D", 3, "scheme-a/p", charges, pending, version, 0.25, 1e-6, false, "r1", 1);
    }

    @Test
    void aTeacherEntryKeepsItsPendingInvolvementsAndReadsOldEntriesWithoutThem() throws Exception {
        TeacherSpend t = teacher(2, 3, 9);
        assertThat(BudgetLedgerJson.teacherFromJson(BudgetLedgerJson.teacherToJson(t)))
                .isEqualTo(t);
        // written before pending/entryVersion existed
        String old =
                "{\"version\":1,\"kind\":\"teacher\",\"dataset\":\"D\",\"teacherId\":3,"
                        + "\"plan\":\"scheme-a/p\",\"charges\":4,\"epsilon\":1.5,\"delta\":1e-6,"
                        + "\"retired\":false,\"runId\":\"r0\",\"updatedAtMs\":5}";
        TeacherSpend read = BudgetLedgerJson.teacherFromJson(old);
        assertThat(read.charges()).isEqualTo(4);
        assertThat(read.pending()).isZero();
        assertThat(read.version()).isZero();
    }

    @Test
    void theWritersLatestTeacherEntrySupersedesTheFileButNeverLowersCharges() throws Exception {
        BudgetLedgerIo.writeTeacherLocal(dir, teacher(1, 2, 5));
        // the same writer resolved one involvement uncharged: pending goes down
        assertThat(BudgetLedgerIo.writeTeacherLocal(dir, teacher(1, 1, 6)).total()).isEqualTo(2);
        // a restore rolled the writer's version counter back (the file was written at a
        // checkpoint that never completed): its write still supersedes the file's ...
        TeacherSpend after = BudgetLedgerIo.writeTeacherLocal(dir, teacher(1, 3, 4));
        assertThat(after.total()).isEqualTo(4);
        assertThat(after.version()).isEqualTo(7);
        // ... but never lowers the charges the file holds
        BudgetLedgerIo.writeTeacherLocal(dir, teacher(3, 0, 8));
        TeacherSpend rolledBack = BudgetLedgerIo.writeTeacherLocal(dir, teacher(2, 1, 2));
        assertThat(rolledBack.charges()).isEqualTo(3);
        assertThat(BudgetLedgerIo.readTeachersLocal(dir, "D")).containsExactly(rolledBack);
    }
}
