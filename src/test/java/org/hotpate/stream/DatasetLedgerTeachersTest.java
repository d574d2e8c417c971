package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.model.TeacherSpend;
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
        String plan = CoreBindings.accountingMode(cfg).scheme().planId();
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
            RunContext run = RunContext.of(org.hotpate.protocol.DatasetPrior.empty("dsx"), priors);
            assertThat(run.teacherCharges()).isEqualTo(priors.charges());
            assertThat(run.teacherVersions()).isEqualTo(priors.versions());
        }
    }
}
