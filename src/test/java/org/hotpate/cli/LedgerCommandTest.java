package org.hotpate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.protocol.BudgetPlan;
import org.hotpate.protocol.BudgetTerms;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.RunBudget;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./hotpate ledger show}: the table, --json with the composition, bad arguments exit 2. */
class LedgerCommandTest {
    @TempDir Path dir;

    private int exec(ByteArrayOutputStream out, ByteArrayOutputStream err, String... args) {
        return Main.execute(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void showsEveryRunAndTheirComposition() throws Exception {
        BudgetTerms b = new BudgetTerms(2.0, 1e-6, 3.0);
        PrivacyEvent e = new PrivacyEvent.Gaussian(20, Math.sqrt(2));
        RunBudget first = new BudgetPlan(b, e).start(DatasetPrior.empty("D"));
        for (int i = 0; i < 10; i++) {
            assertThat(first.admit(e)).isTrue();
        }
        BudgetLedgerIo.writeLocal(dir, first.record("run-a", true, "gnmax", 10, 1));
        RunBudget second = new BudgetPlan(b, e).start(DatasetPrior.empty("D"));
        for (int i = 0; i < 5; i++) {
            assertThat(second.admit(e)).isTrue();
        }
        BudgetLedgerIo.writeLocal(dir, second.record("run-b", true, "gnmax", 5, 2));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(exec(out, err, "ledger", "show", "--ledger-dir", dir.toString())).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("dataset D")
                .contains("run-a")
                .contains("run-b")
                .contains("all 2 run(s) composed");
        out.reset();
        assertThat(
                        exec(
                                out,
                                err,
                                "ledger",
                                "show",
                                "--ledger-dir",
                                dir.toString(),
                                "--dataset",
                                "D",
                                "--json"))
                .isZero();
        JsonNode d = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
        JsonNode ds = d.get("datasets").get(0);
        assertThat(ds.get("runs")).hasSize(2);
        double composed = ds.get("epsilon").asDouble();
        // Composed RDP: more than either run, less than their sum (sublinear in ε).
        double a = ds.get("runs").get(0).get("epsilon").asDouble();
        double c = ds.get("runs").get(1).get("epsilon").asDouble();
        assertThat(composed).isGreaterThan(Math.max(a, c)).isLessThan(a + c);
    }

    /**
     * Issue 31: {@code ledger show} marks the run holding a dataset — a live driver, or an orphaned
     * cluster job (its driver gone) whose JobManager cannot say it ended — from the lock file.
     */
    @Test
    void marksTheRunHoldingEachDataset() throws Exception {
        BudgetTerms b = new BudgetTerms(2.0, 1e-6, 3.0);
        PrivacyEvent e = new PrivacyEvent.Gaussian(20, Math.sqrt(2));
        RunBudget run = new BudgetPlan(b, e).start(DatasetPrior.empty("D"));
        assertThat(run.admit(e)).isTrue();
        BudgetLedgerIo.writeLocal(dir, run.record("run-a", true, "gnmax", 1, 1));
        java.nio.file.Files.writeString(
                dir.resolve("D").resolve(".lock"), "run-a pid " + ProcessHandle.current().pid());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(exec(out, err, "ledger", "show", "--ledger-dir", dir.toString())).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("held by run run-a: running (driver pid");
        java.nio.file.Files.writeString(
                dir.resolve("D").resolve(".lock"),
                "run-a pid 999999999 job 0123abcd at http://127.0.0.1:1");
        out.reset();
        assertThat(exec(out, err, "ledger", "show", "--ledger-dir", dir.toString(), "--json"))
                .isZero();
        JsonNode held =
                new ObjectMapper()
                        .readTree(out.toString(StandardCharsets.UTF_8))
                        .get("datasets")
                        .get(0)
                        .get("heldBy");
        assertThat(held.get("runId").asText()).isEqualTo("run-a");
        assertThat(held.get("orphaned").asBoolean()).isTrue();
        assertThat(held.get("status").asText()).contains("driver gone (orphaned)");
        java.nio.file.Files.writeString(dir.resolve("D").resolve(".lock"), "run-a pid 999999999");
        out.reset();
        assertThat(exec(out, err, "ledger", "show", "--ledger-dir", dir.toString())).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("held by");
    }

    @Test
    void badArgumentsExit2() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(exec(out, err, "ledger")).isEqualTo(2);
        assertThat(exec(out, err, "ledger", "list")).isEqualTo(2);
        assertThat(
                        exec(
                                out,
                                err,
                                "ledger",
                                "show",
                                "--ledger-dir",
                                dir.toString(),
                                "--bootstrap",
                                "x:1"))
                .isEqualTo(2);
        assertThat(exec(out, err, "ledger", "show", "--ledger-dir", dir.toString(), "--delta", "2"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--delta");
    }
}
