package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.model.BudgetRecord;
import org.junit.jupiter.api.Test;

class DatasetPriorTest {
    private static BudgetRecord entry(String dataset, String runId) {
        RunBudget b =
                new BudgetPlan(
                                new BudgetTerms(2.0, 1e-6, Double.POSITIVE_INFINITY),
                                new PrivacyEvent.Gaussian(4.0, Math.sqrt(2)))
                        .start(DatasetPrior.empty(dataset));
        return b.record(runId, true, "gnmax", 0, 0);
    }

    @Test
    void aRunIdIsUsedOnlyWhenTheDatasetsLedgerHoldsIt() {
        List<BudgetRecord> ledger =
                List.of(entry("d", "demo-20261126-000000-aa"), entry("e", "demo-x"));
        assertThat(DatasetPrior.usesRunId("d", ledger, "demo-20261126-000000-aa")).isTrue();
        assertThat(DatasetPrior.usesRunId("d", ledger, "demo-20261126-000000-ab")).isFalse();
        assertThat(DatasetPrior.usesRunId("d", ledger, "demo-x"))
                .as("another dataset's entry does not count")
                .isFalse();
        assertThat(DatasetPrior.usesRunId("d", List.of(), "demo-x")).isFalse();
    }
}
