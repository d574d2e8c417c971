package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.HashSet;
import java.util.Set;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.protocol.BudgetPlan;
import org.hotpate.protocol.BudgetTerms;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.RunBudget;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunIdTest {
    @Test
    void aFreshRunIdKeepsItsPrefixAndCarries128RandomBits() {
        ZonedDateTime t = ZonedDateTime.of(2026, 11, 26, 0, 5, 9, 0, ZoneOffset.UTC);
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String id = RunInfra.newRunId("demo", t);
            assertThat(id).matches("demo-20261126-000509-[0-9a-f]{32}");
            ids.add(id);
        }
        assertThat(ids).as("no collision within one second").hasSize(1000);
    }

    @Test
    void aFreshRunWithARunIdTheLedgerHoldsIsRefusedAResumeIsNot(@TempDir Path dir)
            throws Exception {
        JobConfig cfg = JobSpec.parse("budget:\n  ledger-dir: " + dir + "\n", "x");
        String runId = "x-20261126-000509-00000000000000000000000000000000";
        RunBudget b =
                new BudgetPlan(
                                new BudgetTerms(2.0, 1e-6, Double.POSITIVE_INFINITY),
                                new PrivacyEvent.Gaussian(4.0, Math.sqrt(2)))
                        .start(DatasetPrior.empty(cfg.datasetId()));
        BudgetLedgerIo.writeLocal(dir, b.record(runId, true, "gnmax", 0, 0));
        try (DatasetLedger ledger = DatasetLedger.open(cfg, null)) {
            assertThatThrownBy(() -> DatasetLedgerTest.fresh(ledger, runId))
                    .isInstanceOf(RunIdInUseException.class)
                    .hasMessageContaining(runId);
            assertThat(ledger.prior(runId).runs()).as("a resume continues its own entry").isZero();
            assertThat(
                            DatasetLedgerTest.fresh(ledger, runId.replace("-0000", "-0001"))
                                    .prior()
                                    .runs())
                    .isOne();
        }
    }
}
