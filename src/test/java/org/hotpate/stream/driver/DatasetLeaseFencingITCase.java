package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.KafkaIo;
import org.hotpate.io.LedgerMarkersIo;
import org.hotpate.model.LedgerMarker;
import org.hotpate.stream.JobIo;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.ops.LeaseGate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 39 item 3: the fencing of the dataset lease on the Kafka ledger, on real in-JVM KRaft
 * brokers. A run whose lease cannot be renewed (its broker gone: a partition) stops releasing and
 * cancels its job before its claim could lapse; a run that takes a dataset over from a silent claim
 * fences it — the silent holder's late heartbeat revives nothing, and its run's open transactions
 * are aborted, so they can no longer commit; the claim names its job before the job is submitted.
 * The leases here run four times faster than a deployment's ({@link DatasetHolds#timingForTests}):
 * each silence is the lease's 15 s of broker time, not 60 s.
 */
class DatasetLeaseFencingITCase {
    private static EmbeddedKafka kafka;
    private static Properties client;
    private static final AtomicInteger DATASETS = new AtomicInteger();
    private static final String TOPIC = "fence.budget-ledger";

    @BeforeAll
    static void start() {
        DatasetHolds.timingForTests(DatasetHolds.LeaseTiming.DEFAULT.faster(4));
        kafka = EmbeddedKafka.start();
        client = KafkaIo.clientProperties(kafka.bootstrapServers(), new Properties());
    }

    @AfterAll
    static void stop() {
        kafka.close();
        DatasetHolds.timingForTests(DatasetHolds.LeaseTiming.DEFAULT);
    }

    private static JobConfig spec(String bootstrap) {
        return JobSpec.parse(
                """
                name: fence
                ensemble: {id: pz, teachers: 20, source: planet-z, k: 3, seed: 5, top-k: 32}
                mechanism: {name: confident-gnmax, params: {sigma1: 10, threshold: 6, sigma2: 10}}
                budget: {epsilon: 2.0, delta: 1.0e-6, dataset: F%d, dataset-epsilon: 8.0, ledger: kafka}
                kafka:
                  mode: external
                  bootstrap: %s
                  topics: {budget-ledger: %s}
                """
                        .formatted(DATASETS.incrementAndGet(), bootstrap, TOPIC),
                "fence");
    }

    /**
     * The broker of a held lease goes away (for the driver, a partition): every renewal fails, and
     * within the fencing margin the run stops releasing — its accountant's gate refuses, its job is
     * cancelled — well before the claim could lapse (a timeout after its last renewal). Fails when
     * a failed heartbeat is swallowed (the run releases on), as on 8059115.
     */
    @Test
    void aLeaseThatCannotBeRenewedStopsItsRunBeforeTheClaimCouldLapse() throws Exception {
        EmbeddedKafka own = EmbeddedKafka.start();
        Properties ownClient = KafkaIo.clientProperties(own.bootstrapServers(), new Properties());
        DatasetLedger ledger = DatasetLedger.open(spec(own.bootstrapServers()), ownClient);
        long t0 = System.nanoTime(); // before the claim: its last renewal is no earlier
        ledger.acquire("r-cut");
        AtomicBoolean cancelled = new AtomicBoolean();
        ledger.onLeaseLost(() -> cancelled.set(true));
        assertThat(ledger.leaseEpoch()).isNotNegative();
        assertThat(ledger.leaseLost()).isNull();
        LeaseGate.check("r-cut"); // may release
        own.close();
        long deadline = t0 + DatasetHolds.timing().timeout().toNanos() * 2;
        while (!cancelled.get() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        long stoppedAfterMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(cancelled).as("the job is cancelled when the lease is lost").isTrue();
        assertThat(stoppedAfterMs)
                .as("stopped before the claim could lapse")
                .isLessThan(DatasetHolds.timing().timeout().toMillis());
        assertThat(ledger.leaseLost()).contains("was not renewed");
        assertThatThrownBy(() -> LeaseGate.check("r-cut"))
                .isInstanceOf(LeaseGate.LeaseLostException.class)
                .hasMessageContaining("run r-cut stops releasing");
        // Its release cannot reach the gone broker either: let it time out in the background.
        Thread closer = new Thread(ledger::close, "close-cut-ledger");
        closer.setDaemon(true);
        closer.start();
    }

    /**
     * A holder went silent (a stalled JobManager) with a transaction of its job still open; after
     * the lease's timeout another run takes the dataset over. It fences the silent claim — the
     * silent holder's late heartbeat no longer makes it the holder ({@code ledger show} names the
     * new run) — and aborts that run's open transaction, which then cannot commit: a charge in it
     * never lands after the new run read its prior. Fails without the fence (the late heartbeat
     * makes the old run the holder again, as on 8059115) and without the abort (the old transaction
     * commits).
     */
    @Test
    void aRunThatTakesADatasetOverFencesTheSilentClaimAndItsOpenTransactions() throws Exception {
        JobConfig cfg = spec(kafka.bootstrapServers());
        DatasetLedger.open(cfg, client).close(); // the ledger topic
        String oldClaim = "5ta11ed0";
        try (LedgerMarkersIo m = new LedgerMarkersIo(client, TOPIC, cfg.datasetId())) {
            m.append(LedgerMarker.lease(cfg.datasetId(), "r-old", oldClaim, true, 0));
        }
        Properties tx = new Properties();
        tx.putAll(client);
        tx.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, JobIo.transactionalIdPrefix("r-old") + "-0");
        KafkaIo.createTopics(client, java.util.List.of("fence.results"), 1, java.util.Map.of());
        try (KafkaProducer<byte[], byte[]> old =
                new KafkaProducer<>(tx, new ByteArraySerializer(), new ByteArraySerializer())) {
            old.initTransactions();
            old.beginTransaction();
            old.send(new ProducerRecord<>("fence.results", new byte[] {1})).get();
            Thread.sleep(
                    DatasetHolds.timing().timeout().toMillis() + 2_000); // the claim goes silent
            try (ClusterJob.Deployment d = ClusterJob.admit(cfg, "r-new", null, client)) {
                assertThat(d.ledger().previousRun()).contains("r-old");
                // the stalled holder wakes up: its heartbeat was on its way
                try (LedgerMarkersIo m = new LedgerMarkersIo(client, TOPIC, cfg.datasetId())) {
                    m.append(LedgerMarker.lease(cfg.datasetId(), "r-old", oldClaim, true, 0));
                }
                assertThat(DatasetHolds.leaseHold(client, TOPIC, cfg.datasetId()))
                        .get()
                        .extracting(DatasetHolds.Hold::runId)
                        .isEqualTo("r-new");
                assertThatThrownBy(old::commitTransaction)
                        .isInstanceOf(ProducerFencedException.class);
            }
        }
    }

    /**
     * {@code ./hotpate run --cluster} on the Kafka ledger: the claim names the job (its fixed id)
     * before the job is submitted, so a driver killed during the submission leaves a claim that
     * holds while the job may run. On 8059115 the claim named it only after executeAsync returned.
     */
    @Test
    void theClaimNamesItsJobBeforeTheJobIsSubmitted() {
        JobConfig cfg = spec(kafka.bootstrapServers());
        try (DatasetLedger ledger = DatasetLedger.open(cfg, client)) {
            ledger.acquire("r-named");
            String jobId = "0123456789abcdef0123456789abcdef";
            ledger.jobSubmitting("http://127.0.0.1:9", jobId);
            assertThat(DatasetHolds.leaseHold(client, TOPIC, cfg.datasetId()))
                    .get()
                    .satisfies(
                            h -> {
                                assertThat(h.runId()).isEqualTo("r-named");
                                assertThat(h.status())
                                        .contains("Flink job " + jobId + " at http://127.0.0.1:9");
                            });
        }
    }

    /**
     * A Kubernetes deployment names its job (a fixed id) in its claim. After a JobManager failover
     * the deployment's {@code main()} runs again for the same job: the silent claim of its run
     * naming that job is its own — it is admitted once the claim is silent, though no JobManager
     * says the job ended (here none answers, which keeps any other job's claim in force).
     */
    @Test
    void aDeploymentReRunForItsOwnJobTakesOverTheClaimNamingIt() {
        JobConfig cfg = spec(kafka.bootstrapServers());
        DatasetLedger.open(cfg, client).close(); // the ledger topic
        String job = "fedcba9876543210fedcba9876543210";
        try (LedgerMarkersIo m = new LedgerMarkersIo(client, TOPIC, cfg.datasetId())) {
            m.append(
                    LedgerMarker.lease(
                            cfg.datasetId(),
                            "k8s-ha",
                            org.hotpate.protocol.DatasetLeases.tag(
                                    "0bad0001", "http://127.0.0.1:9", job),
                            true,
                            0));
        }
        try (ClusterJob.Deployment d = ClusterJob.admit(cfg, "k8s-ha", null, client, job)) {
            assertThat(d.ledger().previousRun()).contains("k8s-ha");
        }
    }
}
