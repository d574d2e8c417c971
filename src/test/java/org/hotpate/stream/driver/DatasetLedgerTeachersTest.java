package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.PseudonymSecrets;
import org.hotpate.model.TeacherSpend;
import org.hotpate.protocol.TeacherIds;
import org.hotpate.stream.RunContext;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.teachers.records.UserDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a per-teacher run starts each teacher from (issue 23 item 1): the durable entry's charges
 * plus its pending involvements (provisional charges of a run that ended before their outcomes came
 * back), and the entry's version, which the run's versions continue.
 */
class DatasetLedgerTeachersTest {
    @TempDir Path dir;

    private JobConfig spec() {
        return JobSpec.parse(
                """
                name: ledger-teachers
                ensemble: {id: pz-a, teachers: 60, kind: heterogeneous, source: planet-z, k: 3, seed: 5, top-k: 32}
                sampler: {type: coordinated, seed: 11}
                mechanism: {name: scheme-a, params: {epsilon: 0.1, lower: 5, upper: 25, sample-rate: 0.5}}
                budget: {epsilon: 20.0, delta: 1.0e-6, per-teacher-epsilon: 5.0, dataset: dsx, ledger: local, ledger-dir: '%s'}
                kafka: {mode: external, bootstrap: 'localhost:1'}
                """
                        .formatted(dir),
                "ledger-teachers");
    }

    @Test
    void aLaterRunStartsEveryTeacherFromChargesPlusPending() throws Exception {
        JobConfig cfg = spec();
        String plan = cfg.plan().accounting().scheme().planId();
        // a run that ended with outcomes in flight: teacher 1 charged twice with one pending,
        // teacher 2 only involved; teacher 3 an old entry without pending
        BudgetLedgerIo.writeTeacherLocal(
                dir, new TeacherSpend("dsx", 1, plan, 2, 1, 7, 1.0, 1e-6, false, "r1", 1));
        BudgetLedgerIo.writeTeacherLocal(
                dir, new TeacherSpend("dsx", 2, plan, 0, 2, 2, 0.0, 1e-6, false, "r1", 1));
        BudgetLedgerIo.writeTeacherLocal(
                dir, new TeacherSpend("dsx", 3, plan, 4, 0, 0, 2.0, 1e-6, false, "r0", 1));
        try (DatasetLedger ledger = DatasetLedger.open(cfg, null)) {
            assertThat(ledger.teacherCharges()).isEqualTo(Map.of(1L, 3L, 2L, 2L, 3L, 4L));
            DatasetLedger.TeacherPriors priors = ledger.teacherPriors();
            assertThat(priors.versions()).isEqualTo(Map.of(1L, 7L, 2L, 2L, 3L, 0L));
            RunContext run = priors.context(org.hotpate.protocol.DatasetPrior.empty("dsx"));
            assertThat(run.teacherCharges()).isEqualTo(priors.charges());
            assertThat(run.teacherVersions()).isEqualTo(priors.versions());
        }
    }

    /**
     * Issue 23 item 6: a records run's durable entries are keyed by the users' pseudonyms under a
     * per-dataset secret (created once, 0600), so charges written by a first batch map back to the
     * same users in a second batch whose ranks shifted (one new user sorting first). Before, the
     * entries were keyed by rank and each user inherited its neighbour's charges.
     */
    @Test
    void recordsChargesFollowTheUsersWhenASecondBatchShiftsTheRanks() throws Exception {
        JobConfig cfg = spec();
        String plan = cfg.plan().accounting().scheme().planId();
        UserDirectory first = UserDirectory.perUser(List.of("bob", "alice", "carol"));
        byte[] secret;
        try (DatasetLedger ledger = DatasetLedger.open(cfg, null)) {
            TeacherIds ids = ledger.teacherIds(first);
            assertThat(ids.mapped()).isTrue();
            secret = ledger.pseudonymSecret();
            // run 1 charged bob (rank 1) twice, carol (rank 2) 4 times with one pending
            BudgetLedgerIo.writeTeacherLocal(
                    dir,
                    new TeacherSpend(
                            "dsx", ids.durable(1), plan, 2, 0, 2, 1.0, 1e-6, false, "r1", 1));
            BudgetLedgerIo.writeTeacherLocal(
                    dir,
                    new TeacherSpend(
                            "dsx", ids.durable(2), plan, 4, 1, 5, 2.0, 1e-6, false, "r1", 1));
        }
        Path keyFile = PseudonymSecrets.keyFile(dir, "dsx");
        assertThat(Files.getPosixFilePermissions(keyFile))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.readString(keyFile).strip()).hasSize(64);

        UserDirectory second = UserDirectory.perUser(List.of("alice", "bob", "carol", "aaron"));
        assertThat(second.teacherOf("bob")).isEqualTo(2); // was 1
        try (DatasetLedger ledger = DatasetLedger.open(cfg, null)) {
            assertThat(ledger.pseudonymSecret()).isEqualTo(secret); // kept, not redrawn
            TeacherIds ids = ledger.teacherIds(second);
            DatasetLedger.TeacherPriors priors = ledger.teacherPriors(ids);
            assertThat(priors.charges())
                    .isEqualTo(Map.of(second.teacherOf("bob"), 2L, second.teacherOf("carol"), 5L));
            assertThat(priors.versions())
                    .isEqualTo(Map.of(second.teacherOf("bob"), 2L, second.teacherOf("carol"), 5L));
            // non-records (no directory) and homogeneous directories keep their ids
            assertThat(ledger.teacherIds(null).mapped()).isFalse();
            assertThat(ledger.teacherIds(UserDirectory.hashed(4, 1)).mapped()).isFalse();
        }
    }
}
