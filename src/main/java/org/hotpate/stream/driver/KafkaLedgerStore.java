package org.hotpate.stream.driver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.KafkaIo;
import org.hotpate.io.LedgerMarkersIo;
import org.hotpate.io.PseudonymSecrets;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.LedgerMarker;
import org.hotpate.model.TeacherSpend;
import org.hotpate.protocol.DatasetLeases;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.Topic;
import org.hotpate.stream.ops.LedgerSink;

/**
 * {@code budget.ledger: kafka}: the compacted topic {@code kafka.topics.budget-ledger} (broker
 * timestamps: the leases' one clock). A run holds its dataset by a lease claimed on the dataset's
 * partition and renewed by heartbeats ({@link DatasetLeases}, {@link DatasetHolds.Lease}); the job
 * writes its entries on its one exactly-once output, in the transaction of the releases they cover.
 * Reads compose the topic with the local ledger of this machine ({@code local}, null: the topic
 * alone): a dataset used by local runs before is composed with them, not started afresh in a second
 * store (merged by key, so an entry in both counts once).
 */
public final class KafkaLedgerStore implements LedgerStore {
    static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private final Properties client;
    private final String topic;
    private final String bootstrap;
    private final int partitions;
    private final LocalLedgerStore local;

    /**
     * The ledger on {@code topic} ({@code client}: the job principal's client properties), read
     * with {@code local}'s entries (null: none); {@code partitions} when it creates the topic.
     */
    public KafkaLedgerStore(
            Properties client,
            String topic,
            String bootstrap,
            int partitions,
            LocalLedgerStore local) {
        this.client = client;
        this.topic = topic;
        this.bootstrap = bootstrap;
        this.partitions = partitions;
        this.local = local;
    }

    /** The store of {@code cfg} ({@link LedgerStores}), with the local ledger-dir's entries. */
    static KafkaLedgerStore of(JobConfig cfg, Properties client) {
        return new KafkaLedgerStore(
                client,
                topic(cfg),
                cfg.kafka().bootstrap(),
                cfg.kafka().partitions(),
                new LocalLedgerStore(cfg.ledgerDir(), null, null));
    }

    static String topic(JobConfig cfg) {
        return cfg.kafka().topics().name(Topic.BUDGET_LEDGER);
    }

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public String where() {
        return "kafka " + bootstrap + " " + topic + (local == null ? "" : " + " + local.where());
    }

    @Override
    public boolean onRunBroker() {
        return true;
    }

    @Override
    public boolean shared() {
        return true;
    }

    @Override
    public List<BudgetRecord> runs(String dataset) {
        List<BudgetRecord> all = new ArrayList<>(local == null ? List.of() : local.runs(dataset));
        all.addAll(BudgetLedgerIo.readTopic(client(), topic, READ_TIMEOUT));
        return BudgetLedgerIo.latest(
                all.stream().filter(r -> dataset == null || r.dataset().equals(dataset)).toList());
    }

    @Override
    public List<TeacherSpend> teachers(String dataset) {
        List<TeacherSpend> all =
                new ArrayList<>(local == null ? List.of() : local.teachers(dataset));
        all.addAll(BudgetLedgerIo.readTeachersTopic(client(), topic, READ_TIMEOUT));
        Map<String, TeacherSpend> latest = new LinkedHashMap<>();
        for (TeacherSpend t : all) {
            if (dataset == null || t.dataset().equals(dataset)) {
                latest.merge(t.key(), t, TeacherSpend::merge);
            }
        }
        return List.copyOf(latest.values());
    }

    /** Acknowledged by the topic's replicas (idempotent; readers keep the max). */
    @Override
    public void writeRun(BudgetRecord r) {
        BudgetLedgerIo.writeTopic(client(), topic, r, READ_TIMEOUT);
    }

    @Override
    public void markFinished(String dataset, String account) {
        try (LedgerMarkersIo m = markers(dataset)) {
            m.append(LedgerMarker.finished(dataset, account, System.currentTimeMillis()));
        }
    }

    @Override
    public boolean finished(String dataset, String account) {
        if (local != null && local.finished(dataset, account)) {
            return true;
        }
        try (LedgerMarkersIo m = markers(dataset)) {
            return m.read(dataset, -1).stream()
                    .anyMatch(
                            x ->
                                    LedgerMarker.FINISHED.equals(x.kind())
                                            && x.runId().equals(account));
        }
    }

    /** The entry {@code <dataset>/pseudonym-key}. */
    @Override
    public byte[] pseudonymSecret(String dataset) {
        return PseudonymSecrets.readOrCreateOnTopic(client(), topic, dataset, READ_TIMEOUT);
    }

    @Override
    public Optional<DatasetHolds.Hold> holder(String dataset) {
        return DatasetHolds.leaseHold(client(), topic, dataset);
    }

    @Override
    public LedgerSink sink() {
        return LedgerSink.JOB_OUTPUT;
    }

    /** Refused when the local ledger directory on this machine holds entries of the dataset. */
    @Override
    public void requireOneStore(String dataset, Properties kafkaClient) {
        if (local == null) {
            return;
        }
        boolean held;
        try {
            held =
                    !BudgetLedgerIo.readLocal(local.dir(), dataset).isEmpty()
                            || !BudgetLedgerIo.readTeachersLocal(local.dir(), dataset).isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the local budget ledger in " + local.dir(), e);
        }
        if (held) {
            throw new RunRefusedException(
                    "dataset '"
                            + dataset
                            + "' has its budget ledger in the local directory "
                            + local.dir()
                            + "; this run would open it on the Kafka topic "
                            + topic
                            + " too. One ledger per dataset: run it with budget.ledger: local,"
                            + " or use another budget.dataset");
        }
    }

    /**
     * Creates the compacted topic when missing; the lease is claimed by {@link Holding#acquire}.
     */
    @Override
    public Holding open(JobConfig cfg) {
        KafkaIo.createTopics(
                client(),
                List.of(topic),
                partitions,
                Map.of(
                        topic,
                        Map.of(
                                "cleanup.policy",
                                "compact",
                                // the leases' one clock: the broker stamps every marker
                                "message.timestamp.type",
                                "LogAppendTime")));
        return new LeaseHolding(cfg.datasetId());
    }

    private LedgerMarkersIo markers(String dataset) {
        return new LedgerMarkersIo(client(), topic, dataset);
    }

    private Properties client() {
        if (client == null) {
            throw new IllegalStateException("the Kafka ledger " + topic + " has no client yet");
        }
        return client;
    }

    /** The dataset's lease, from {@link #acquire} until {@link #close}. */
    private final class LeaseHolding implements Holding {
        private final String dataset;
        private DatasetHolds.Lease lease;
        private String ownJobId; // the fixed id of the run's job, known before the claim

        LeaseHolding(String dataset) {
            this.dataset = dataset;
        }

        @Override
        public void acquire(String runId) {
            if (lease != null) {
                return;
            }
            lease = new DatasetHolds.Lease(markers(dataset), dataset, runId, ownJobId);
            try {
                lease.claim();
            } catch (RuntimeException e) {
                lease.release();
                lease = null;
                throw e;
            }
        }

        @Override
        public boolean held() {
            return lease != null;
        }

        /** A silent claim of the same run naming this job is this deployment's own. */
        @Override
        public void ownJob(String jobId) {
            this.ownJobId = jobId;
        }

        /**
         * The claim names the job's fixed id before the job exists, so a driver killed during the
         * submission leaves a claim that holds while the job may run.
         */
        @Override
        public void jobSubmitting(String flinkRest, String jobId) {
            if (lease != null) {
                lease.nameJob(flinkRest, jobId);
            }
        }

        /** If this driver goes silent the claim stays in force while the job may still run. */
        @Override
        public void jobSubmitted(String flinkRest, String jobId) {
            if (lease != null) {
                lease.nameJob(flinkRest, jobId);
            }
        }

        /** The run whose lapsed claim this one fenced. */
        @Override
        public Optional<String> previousRun() {
            if (lease == null || lease.supersededRuns().isEmpty()) {
                return Optional.empty();
            }
            List<String> runs = lease.supersededRuns();
            return Optional.of(runs.get(runs.size() - 1));
        }

        @Override
        public void onLeaseLost(Runnable action) {
            if (lease != null) {
                lease.onLost(action);
            }
        }

        @Override
        public long leaseEpoch() {
            return lease == null ? -1 : lease.epoch();
        }

        @Override
        public String leaseLost() {
            return lease == null ? null : lease.lost();
        }

        @Override
        public void close() {
            if (lease != null) {
                lease.release();
                lease = null;
            }
        }
    }
}
