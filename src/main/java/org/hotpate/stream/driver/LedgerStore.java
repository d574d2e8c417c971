package org.hotpate.stream.driver;

import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.TeacherSpend;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.ops.LedgerSink;

/**
 * Where the durable per-dataset budget ledger lives ({@code budget.ledger}), chosen once from the
 * spec by {@link LedgerStores#of}: what the driver's {@link DatasetLedger}, the {@code ledger}
 * command and the job's operators ({@link #sink}) need of it. Every store keeps the promises of
 * {@code LedgerStoreContract} (src/test): entries read back as written and never lower, charged
 * once however often written, the same totals after a restart, one holder per dataset at a time.
 */
public interface LedgerStore {
    /** The spec's name of the store ({@code budget.ledger}). */
    String name();

    /** Where the entries are, for messages and {@code ./hotpate ledger show}. */
    String where();

    /**
     * Whether the store is reached through the run's Kafka (opened once the broker is known), not
     * before anything of the run starts.
     */
    boolean onRunBroker();

    /**
     * Whether every machine of a cluster reaches the same store (a cluster deployment's ledger).
     */
    boolean shared();

    /**
     * The run entries of {@code dataset} (null: every dataset) that a run composes, the largest
     * version of each key.
     */
    List<BudgetRecord> runs(String dataset);

    /** The teacher entries of {@code dataset} (per-teacher schemes), the latest of each teacher. */
    List<TeacherSpend> teachers(String dataset);

    /** Writes run entry {@code r} durably, never lowering what the store holds (the max). */
    void writeRun(BudgetRecord r);

    /** Marks ledger account {@code account} of {@code dataset} finished (it cannot be resumed). */
    void markFinished(String dataset, String account);

    /** Whether {@link #markFinished} marked {@code account}. */
    boolean finished(String dataset, String account);

    /** The dataset's pseudonym secret (records runs' durable teacher ids), created on first use. */
    byte[] pseudonymSecret(String dataset);

    /**
     * Opens {@code cfg}'s dataset for a run: the store's way of keeping one authority per dataset
     * (docs/privacy-accounting.md §9). Throws {@link DatasetInUseException} when it cannot be held.
     */
    Holding open(JobConfig cfg);

    /** Who holds {@code dataset} now, read without holding it ({@code ledger show}). */
    Optional<DatasetHolds.Hold> holder(String dataset);

    /**
     * One ledger per dataset (issue 30 item 3): throws {@link RunRefusedException} when the other
     * store this machine's run could reach ({@code kafkaClient}: the run's Kafka, null with an
     * embedded broker) holds entries of {@code dataset}.
     */
    void requireOneStore(String dataset, Properties kafkaClient);

    /** The operators' side of the store (serializable, in the job graph). */
    LedgerSink sink();

    /**
     * A run's hold on its dataset: a lock held from {@link #open} (local) or a lease claimed by
     * {@link #acquire} and renewed until {@link #close} (Kafka). Methods a store has no use for do
     * nothing.
     */
    interface Holding extends AutoCloseable {
        /** Takes the dataset for run {@code runId} before it reads its prior. */
        void acquire(String runId);

        /** Whether {@link #acquire} holds the dataset. */
        boolean held();

        /**
         * Before {@link #acquire}: the fixed id of the run's job (a redeployed job's own claim).
         */
        default void ownJob(String jobId) {}

        /** Before a job is submitted to a cluster under the fixed id {@code jobId}. */
        void jobSubmitting(String flinkRest, String jobId);

        /** The run's job is on a remote cluster. */
        void jobSubmitted(String flinkRest, String jobId);

        /** The run's job is known to have ended. */
        default void jobEnded() {}

        /** The run that held the dataset before this one, if any. */
        Optional<String> previousRun();

        /** Runs {@code action} once the run must stop releasing (its lease lost). */
        default void onLeaseLost(Runnable action) {}

        /** The epoch of the run's lease, or -1. */
        default long leaseEpoch() {
            return -1;
        }

        /** Null while the run may release, else why not. */
        default String leaseLost() {
            return null;
        }

        @Override
        void close();
    }
}
