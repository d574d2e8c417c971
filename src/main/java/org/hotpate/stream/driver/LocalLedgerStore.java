package org.hotpate.stream.driver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.DatasetLock;
import org.hotpate.io.PseudonymSecrets;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.TeacherSpend;
import org.hotpate.protocol.LocalHold;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.ops.LedgerSink;

/**
 * {@code budget.ledger: local}: files under {@code budget.ledger-dir} ({@link BudgetLedgerIo}), one
 * per run and per teacher, written atomically and fsynced. A run holds its dataset by an exclusive
 * lock on the dataset's directory for the life of its driver, and records in the lock file the run
 * and its cluster job, which outlives the driver ({@link LocalHold}: a later run refuses while that
 * job may run). The operators write their entries in each checkpoint's {@code snapshotState}.
 */
public final class LocalLedgerStore implements LedgerStore {
    private final Path dir;
    private final String topic; // the run's budget-ledger topic: one ledger per dataset
    private final String bootstrap; // of the run's Kafka, for the one-store refusal

    /**
     * The local ledger in {@code dir}; {@code topic} and {@code bootstrap}: the run's budget-ledger
     * topic and its Kafka, checked for the dataset's entries (null: none).
     */
    public LocalLedgerStore(Path dir, String topic, String bootstrap) {
        this.dir = dir;
        this.topic = topic;
        this.bootstrap = bootstrap;
    }

    /** The store of {@code cfg} ({@link LedgerStores}). */
    static LocalLedgerStore of(JobConfig cfg, Properties client) {
        return new LocalLedgerStore(
                cfg.ledgerDir(), KafkaLedgerStore.topic(cfg), cfg.kafka().bootstrap());
    }

    Path dir() {
        return dir;
    }

    @Override
    public String name() {
        return "local";
    }

    @Override
    public String where() {
        return "local " + dir;
    }

    @Override
    public boolean onRunBroker() {
        return false;
    }

    @Override
    public boolean shared() {
        return false; // TaskManagers share no local ledger directory
    }

    @Override
    public List<BudgetRecord> runs(String dataset) {
        try {
            return BudgetLedgerIo.latest(BudgetLedgerIo.readLocal(dir, dataset));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public List<TeacherSpend> teachers(String dataset) {
        try {
            return BudgetLedgerIo.readTeachersLocal(dir, dataset);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void writeRun(BudgetRecord r) {
        try {
            BudgetLedgerIo.writeLocal(dir, r);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write " + r.key() + " to the budget ledger in " + dir, e);
        }
    }

    @Override
    public void markFinished(String dataset, String account) {
        try {
            BudgetLedgerIo.markFinishedLocal(dir, dataset, account);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public boolean finished(String dataset, String account) {
        return BudgetLedgerIo.finishedLocal(dir, dataset, account);
    }

    @Override
    public byte[] pseudonymSecret(String dataset) {
        try {
            return PseudonymSecrets.readOrCreateLocal(dir, dataset);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Optional<DatasetHolds.Hold> holder(String dataset) {
        return DatasetHolds.localHold(dir, dataset);
    }

    @Override
    public LedgerSink sink() {
        return LedgerSink.local(dir.toString());
    }

    /**
     * Refused when the run's Kafka ({@code kafkaClient}, null with an embedded broker, which starts
     * empty) holds entries of the dataset on the budget-ledger topic.
     */
    @Override
    public void requireOneStore(String dataset, Properties kafkaClient) {
        if (kafkaClient == null || topic == null || !topicExists(kafkaClient, topic)) {
            return;
        }
        boolean onTopic =
                BudgetLedgerIo.readTopic(kafkaClient, topic, KafkaLedgerStore.READ_TIMEOUT).stream()
                                .anyMatch(r -> r.dataset().equals(dataset))
                        || BudgetLedgerIo.readTeachersTopic(
                                        kafkaClient, topic, KafkaLedgerStore.READ_TIMEOUT)
                                .stream()
                                .anyMatch(t -> t.dataset().equals(dataset));
        if (onTopic) {
            throw new RunRefusedException(
                    "dataset '"
                            + dataset
                            + "' has its budget ledger on the Kafka topic "
                            + topic
                            + " ("
                            + bootstrap
                            + "); this run would open it in the local ledger "
                            + dir
                            + " too. One ledger per dataset: run it with budget.ledger:"
                            + " kafka, or use another budget.dataset");
        }
    }

    private static boolean topicExists(Properties client, String topic) {
        try (org.apache.kafka.clients.admin.Admin admin =
                org.apache.kafka.clients.admin.Admin.create(client)) {
            return admin.listTopics()
                    .names()
                    .get(KafkaLedgerStore.READ_TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .contains(topic);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted listing the topics of the run's Kafka", e);
        } catch (java.util.concurrent.ExecutionException
                | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(
                    "cannot list the topics of the run's Kafka (one ledger per dataset: the"
                            + " dataset's entries on "
                            + topic
                            + " must be checked before a local-ledger run)",
                    e);
        }
    }

    /** Locks the dataset's directory now; refuses while an earlier holder's cluster job may run. */
    @Override
    public Holding open(JobConfig cfg) {
        DatasetLock lock;
        try {
            lock = DatasetLock.acquire(dir, cfg.datasetId());
        } catch (IllegalStateException e) {
            throw new DatasetInUseException(e.getMessage());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the budget ledger in " + dir, e);
        }
        try {
            DatasetHolds.requireNoOrphan(cfg, lock.previous());
        } catch (RuntimeException e) {
            try {
                lock.close();
            } catch (IOException ignored) {
                // the refusal is what matters; the lock goes with the process anyway
            }
            throw e;
        }
        return new LockHolding(
                lock,
                dir.resolve(cfg.datasetId()).resolve(".lock"),
                LocalHold.Holder.parse(lock.previous()).map(LocalHold.Holder::runId).orElse(null));
    }

    /** The lock on the dataset's directory and what its file says of the run. */
    private static final class LockHolding implements Holding {
        private final DatasetLock lock;
        private final Path lockFile;
        private final String previousRun; // the run the lock file named when this one took it
        private LocalHold.Holder holder;

        LockHolding(DatasetLock lock, Path lockFile, String previousRun) {
            this.lock = lock;
            this.lockFile = lockFile;
            this.previousRun = previousRun;
        }

        @Override
        public void acquire(String runId) {
            record(LocalHold.Holder.embedded(runId, ProcessHandle.current().pid()));
        }

        @Override
        public boolean held() {
            return holder != null;
        }

        /** The lock file names the run's job as pending, findable if the driver dies meanwhile. */
        @Override
        public void jobSubmitting(String flinkRest, String jobId) {
            recordJob(LocalHold.PENDING, flinkRest);
        }

        @Override
        public void jobSubmitted(String flinkRest, String jobId) {
            recordJob(jobId, flinkRest);
        }

        /** The lock file no longer sends later runs to the job's JobManager. */
        @Override
        public void jobEnded() {
            if (holder != null) {
                record(LocalHold.Holder.embedded(holder.runId(), holder.pid()));
            }
        }

        @Override
        public Optional<String> previousRun() {
            return Optional.ofNullable(previousRun);
        }

        private void recordJob(String jobId, String flinkRest) {
            if (holder != null) {
                record(new LocalHold.Holder(holder.runId(), holder.pid(), jobId, flinkRest));
            }
        }

        private void record(LocalHold.Holder h) {
            holder = h;
            try {
                lock.record(h.format());
            } catch (IOException e) {
                // Without its job in the lock file a later run could not see it once this driver
                // is gone: refuse to go on rather than leave the dataset unheld.
                throw new UncheckedIOException("cannot record the holder of " + lockFile, e);
            }
        }

        @Override
        public void close() {
            try {
                lock.close();
            } catch (IOException ignored) {
                // the lock goes with the process anyway
            }
        }
    }
}
