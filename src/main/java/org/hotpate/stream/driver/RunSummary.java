package org.hotpate.stream.driver;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.stream.config.JobConfig;

/**
 * The end of a run driven by {@link RunSession}: the run's durable entry read back, the finished
 * mark, the dataset's ε over every run, and the outputs ({@link RunReport}).
 */
final class RunSummary {
    private final JobConfig cfg;
    private final String runId;
    private final RunOutcome outcome;
    private final DatasetLedger datasetLedger;
    private final String account;
    private final DatasetPrior prior;
    private final String savepoint;

    RunSummary(
            JobConfig cfg,
            String runId,
            RunOutcome outcome,
            DatasetLedger datasetLedger,
            String account,
            DatasetPrior prior,
            String savepoint) {
        this.cfg = cfg;
        this.runId = runId;
        this.outcome = outcome;
        this.datasetLedger = datasetLedger;
        this.account = account;
        this.prior = prior;
        this.savepoint = savepoint;
    }

    /**
     * Writes the outputs of the stopped run ({@code secs} long, {@code distributions} read) into
     * {@code outputDir} and returns the public summary.
     */
    ObjectNode write(double secs, long distributions, Path outputDir) throws Exception {
        try {
            org.hotpate.model.BudgetRecord entry = datasetLedger.entry(account);
            if (entry != null && Double.isFinite(entry.epsilon())) {
                outcome.durableEpsilon(entry.epsilon());
            }
        } catch (RuntimeException e) {
            System.err.println(
                    "hotpate run: could not read the run's budget ledger entry ("
                            + e.getMessage()
                            + "); epsilon from the ledger entries the driver read");
        }
        if (savepoint == null && outcome.complete()) {
            markFinished(); // a run stopped with a savepoint, or cut short, may still be resumed
        }
        return new RunReport(
                        cfg,
                        runId,
                        outcome,
                        prior == null ? 0 : prior.runs(),
                        datasetEpsilon(), // this run's curve included
                        cfg.plan()
                                .budget()
                                .enforcedDatasetEpsilon(
                                        prior == null
                                                ? DatasetPrior.empty(cfg.datasetId())
                                                : prior),
                        secs,
                        distributions,
                        prior)
                .writeTo(outputDir);
    }

    /**
     * The run completed: its ledger account can no longer be resumed (exit 2). A run stopped with a
     * savepoint or cut short by the output timeout is not marked (a resume of it forks if its entry
     * went on).
     */
    private void markFinished() {
        try {
            datasetLedger.markFinished(account);
        } catch (RuntimeException e) {
            System.err.println(
                    "hotpate run: could not mark "
                            + account
                            + " finished in the budget ledger ("
                            + e.getMessage()
                            + "); a resume of it would still be composed as a fork");
        }
    }

    /**
     * The dataset's ε over every run in the durable ledger, read again now that the job is stopped;
     * if the ledger cannot be read, the last value the accountant reported (earlier runs plus this
     * one, from the operator-only ledger entries).
     */
    private double datasetEpsilon() {
        try {
            return datasetLedger.datasetEpsilon();
        } catch (RuntimeException e) {
            double fromEntries =
                    outcome.ledger(LedgerKind.CHARGE).stream()
                            .mapToDouble(LedgerEntry::datasetEpsilonAfter)
                            .max()
                            .orElse(
                                    prior.epsilon(
                                            cfg.budget().delta(), cfg.plan().budget().runConfig()));
            System.err.println(
                    "hotpate run: could not re-read the budget ledger ("
                            + e.getMessage()
                            + "); dataset_epsilon from the run's ledger entries");
            return fromEntries;
        }
    }
}
