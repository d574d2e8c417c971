package org.hotpate.stream.driver;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.hotpate.io.KafkaIo;
import org.hotpate.protocol.DatasetAdmission;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.stream.JobIo;
import org.hotpate.stream.config.JobConfig;

/**
 * The admission sequence of every driver (issue 30 item 2): {@code ./hotpate run} ({@link
 * RunSession}) and the Kubernetes entry point ({@link ClusterJob}) both call {@link #admit} on the
 * dataset's opened ledger: hold the dataset (the local lock's holder record, or the Kafka lease) →
 * one ledger per dataset → {@link DatasetAdmission#decide} (fresh, continue, fork, or refused: the
 * run id in use, a finished run, another accounting) → the prior → the room. A refusal throws the
 * driver's exit-2 exception ({@link RunRefusedException} and its subclasses) before anything
 * starts; the ledger stays open (and the dataset held) after an admission, until the caller closes
 * it.
 */
public final class RunAdmission {
    private RunAdmission() {}

    /** How the admitted run is charged, and what it starts from. */
    public record Admitted(DatasetAdmission.Decision decision, DatasetPrior prior) {
        /** The ledger account the run charges: its run id, or a fork's. */
        public String account() {
            return decision.account();
        }
    }

    /**
     * Admits {@code req} on the opened {@code ledger}. {@code afterHold} runs once the dataset is
     * held (the CLI aborts the previous run's leftover transactions there); {@code oneStoreClient}
     * is the run's Kafka client for the one-ledger-per-dataset check (null: an embedded broker,
     * which starts empty); {@code holdWait}: how long a {@link DatasetAdmission.Start#DEPLOYMENT}
     * waits for a silent claim of its own run id to lapse (a JobManager restarted before its driver
     * released the claim; zero: refuse at once). The decision's note goes to {@code console}.
     */
    public static Admitted admit(
            DatasetLedger ledger,
            DatasetAdmission.Request req,
            Properties oneStoreClient,
            Runnable afterHold,
            Duration holdWait,
            PrintStream console) {
        hold(ledger, req, holdWait);
        afterHold.run();
        ledger.requireOneStore(oneStoreClient);
        DatasetAdmission.Ledger state = ledger.state();
        try {
            DatasetAdmission.Decision d = DatasetAdmission.decide(req, state, ledger.accounting());
            if (!d.note().isEmpty()) {
                console.println(d.note());
            }
            DatasetPrior prior = DatasetAdmission.prior(state, d);
            ledger.requireRoom(prior);
            return new Admitted(d, prior);
        } catch (DatasetAdmission.Refused r) {
            throw RunRefusedException.of(r);
        }
    }

    private static void hold(DatasetLedger ledger, DatasetAdmission.Request req, Duration wait) {
        long deadline = System.currentTimeMillis() + wait.toMillis();
        while (true) {
            try {
                ledger.acquire(req.runId());
                return;
            } catch (DatasetInUseException e) {
                boolean own =
                        req.start() == DatasetAdmission.Start.DEPLOYMENT
                                && e.holder().filter(req.runId()::equals).isPresent();
                if (!own || System.currentTimeMillis() >= deadline) {
                    throw e;
                }
            }
            try {
                Thread.sleep(DatasetHolds.timing().heartbeat().toMillis());
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for the dataset's lease", ie);
            }
        }
    }

    /**
     * The dataset's previous run, ended without committing (its cluster job cancelled once its
     * driver was gone, a killed driver), can leave its sink's transactions open: every
     * read_committed reader of those partitions — this run's driver among them, on the same topics
     * — then stops at the last stable offset until the broker aborts them after their {@code
     * kafka.transaction-timeout-ms}. That run holds the dataset no longer (this one got it past
     * {@link DatasetLedger#open}'s orphan check), so its transactions can never commit: abort them
     * now. Not this run's own (a resume commits its checkpoint's transactions).
     */
    static void abortLeftoverTransactions(
            JobConfig cfg, Properties client, DatasetLedger ledger, String runId) {
        String previous = ledger.previousRun().orElse(null);
        if (cfg.kafka().embedded() || previous == null || previous.equals(runId)) {
            return;
        }
        try {
            List<String> aborted =
                    KafkaIo.abortOpenTransactions(
                            client, JobIo.transactionalIdPrefix(previous) + "-");
            if (!aborted.isEmpty()) {
                System.err.println(
                        "hotpate run: aborted "
                                + aborted.size()
                                + " transaction(s) the dataset's previous run "
                                + previous
                                + " left open (its job ended without committing them): "
                                + aborted);
            }
        } catch (RuntimeException e) {
            System.err.println(
                    "hotpate run: cannot abort the transactions the previous run "
                            + previous
                            + " may have left open ("
                            + e.getMessage()
                            + "); the broker aborts them after their kafka.transaction-timeout-ms,"
                            + " and this run's outputs wait for that");
        }
    }

    /**
     * The CLI's admission on an opened ledger: a fresh run under a new run id, or a resume from
     * {@code resume}'s snapshot ({@code oneStoreClient}: see {@link #admit}).
     */
    static Admitted cli(
            DatasetLedger ledger,
            String runId,
            RunSession.Resume resume,
            Properties oneStoreClient,
            Runnable afterHold) {
        DatasetAdmission.Request req =
                resume == null
                        ? new DatasetAdmission.Request(runId, DatasetAdmission.Start.FRESH, null)
                        : new DatasetAdmission.Request(
                                runId, DatasetAdmission.Start.RESUME, resume.metadata().snapshot());
        return admit(ledger, req, oneStoreClient, afterHold, Duration.ZERO, System.err);
    }
}
