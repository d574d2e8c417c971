package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;
import org.hotpate.model.BudgetRecord;
import org.hotpate.protocol.BudgetPlan;
import org.hotpate.protocol.BudgetTerms;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.RunBudget;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver's release of the population prior on a real local ledger, without a job (issue 39 item
 * 1): the prior's charge is in the dataset's ledger, durably, once the table exists — so a run that
 * dies between the prior and its first release has still paid for it — and a restart under the same
 * account reuses the released table instead of drawing a second one.
 */
class PriorReleaseTest {
    private static final String RUN = "x-20261128-170000-00000000000000000000000000000001";

    @TempDir Path dir;

    private JobConfig spec() throws Exception {
        Path records = dir.resolve("records.jsonl");
        List<String> lines = new ArrayList<>();
        for (int u = 0; u < 400; u++) { // a phrase 400 users share: its n-grams pass ρ
            lines.add("{\"user\": \"u" + u + "\", \"text\": \"hello world\"}");
        }
        Files.write(records, lines);
        return JobSpec.parse(
                        """
                        records: {file: '%s', user-field: user, text-field: text}
                        ensemble: {source: records, kind: heterogeneous}
                        teacher: {model: ngram, order: 3, prior: dp-ngram, prior-per-user: 4}
                        tokenizer: cl100k_base
                        mechanism: {name: auto}
                        budget: {epsilon: 2.0, delta: 1.0e-6, dataset: D, ledger: local, ledger-dir: '%s'}
                        output: {dir: '%s'}
                        """
                                .formatted(records, dir.resolve("ledger"), dir.resolve("out")),
                        "x")
                .withTeachers(400);
    }

    /** An earlier run on the dataset (no prior), so the prior run composes on top of it. */
    private void earlierRun(JobConfig cfg) {
        PrivacyEvent step = new PrivacyEvent.Gaussian(4.0, Math.sqrt(2));
        RunBudget b =
                new BudgetPlan(new BudgetTerms(2.0, 1e-6, Double.POSITIVE_INFINITY), step)
                        .start(DatasetPrior.empty("D"));
        b.admit(step);
        try (DatasetLedger l = DatasetLedger.open(cfg, null)) {
            l.writeEntry(b.record("x-earlier", true, "gnmax", 1, 5));
        }
    }

    /**
     * The reviewer's scenario at the driver: a prior run on a dataset with an earlier run is
     * admitted and releases its table, then dies before its job charges anything. The ledger holds
     * the prior's charge under the run's account: its Gaussians' RDP and its η. On main 8059115 the
     * driver wrote nothing (the accountant charged the prior at the first candidate), so the
     * dataset's ledger had only the earlier run.
     */
    @Test
    void thePriorIsInTheLedgerOnceItsTableExists() throws Exception {
        JobConfig cfg = spec();
        earlierRun(cfg);
        try (DatasetLedger ledger = DatasetLedger.open(cfg, null)) {
            RunAdmission.Admitted a = DatasetLedgerTest.fresh(ledger, RUN);
            assertThat(a.prior().runs()).isEqualTo(1);
            PriorRelease.Released rel =
                    PriorRelease.release(cfg, RUN, false, ledger, a.account(), a.prior());
            assertThat(Files.isRegularFile(rel.file())).isTrue();
            assertThat(rel.ngrams()).isPositive();
            // the run is "killed" here: no job, no accountant
            BudgetRecord e = ledger.entry(a.account());
            assertThat(e).as("the prior's entry").isNotNull();
            assertThat(e.holdsPrior()).isTrue();
            assertThat(e.priorSlack()).isEqualTo(rel.extraction().thresholdSlack());
            assertThat(e.releases()).isZero();
            double[] gaussians =
                    RdpAccountant.rdpOf(
                            new PrivacyEvent.Composed(rel.extraction().gaussians()),
                            RunBudget.grid());
            assertThat(e.rdp()).containsExactly(gaussians);
            DatasetPrior all = ledger.prior(null);
            assertThat(all.runs()).isEqualTo(2);
            assertThat(all.priorSlack()).isEqualTo(e.priorSlack());
        }
    }

    /**
     * A restart of the driver under the same account (its entry holds the prior's charge) reuses
     * the released table byte for byte, and is refused when the file is gone; on main 8059115 a
     * release that was not a resume drew a fresh table (a second release, charged nowhere).
     */
    @Test
    void aRestartReusesTheReleasedTableAndNeverDrawsASecond() throws Exception {
        JobConfig cfg = spec();
        try (DatasetLedger ledger = DatasetLedger.open(cfg, null)) {
            RunAdmission.Admitted a = DatasetLedgerTest.fresh(ledger, RUN);
            PriorRelease.Released first =
                    PriorRelease.release(cfg, RUN, false, ledger, a.account(), a.prior());
            assertThat(first.ngrams()).as("a table a fresh draw would change").isPositive();
            byte[] table = Files.readAllBytes(first.file());
            BudgetRecord charged = ledger.entry(a.account());
            PriorRelease.Released again =
                    PriorRelease.release(cfg, RUN, false, ledger, a.account(), a.prior());
            assertThat(again.file()).isEqualTo(first.file());
            assertThat(Files.readAllBytes(again.file())).isEqualTo(table);
            assertThat(again.ngrams()).isEqualTo(first.ngrams());
            assertThat(ledger.entry(a.account()).rdp())
                    .as("charged once: the restart wrote nothing more")
                    .containsExactly(charged.rdp());
            Files.delete(first.file());
            assertThatThrownBy(
                            () ->
                                    PriorRelease.release(
                                            cfg, RUN, false, ledger, a.account(), a.prior()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cannot draw a second one");
        }
    }
}
