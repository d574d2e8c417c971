package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.cli.Main;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.KafkaIo;
import org.hotpate.io.LedgerMarkersIo;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.KafkaOut;
import org.hotpate.model.LedgerMarker;
import org.hotpate.protocol.BudgetPlan;
import org.hotpate.protocol.DatasetAdmission;
import org.hotpate.protocol.RunBudget;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 30 item 2: one admission for every driver. The same scenarios run through the admission
 * path of {@code ./hotpate run} ({@link RunSession#admit}) and of the Kubernetes entry point
 * ({@link ClusterJob#admit}), each on the local ledger (its lock) and on the Kafka ledger (its
 * lease) of a real in-JVM KRaft broker: a second run on a held dataset is refused; running the same
 * run again (the CLI resuming a checkpoint, the operator redeploying the same manifest) never
 * lowers the dataset's composed ε as {@code ./hotpate ledger show} prints it; a finished run is not
 * continued; a savepoint that covers the run's entry continues the run's own account; a run without
 * room is refused.
 *
 * <p>On the base commit (46ee908) the {@code CLUSTER_JOB_*} cases of {@link
 * #aSecondRunOnAHeldDatasetIsRefused} (ClusterJob took no lease, and closed its ledger at once),
 * {@link #aFinishedRunIsNotContinued} (ClusterJob forked a finished run) and {@link
 * #aSavepointThatCoversTheEntryContinuesTheRunsAccount} (ClusterJob read no savepoint and forked)
 * fail; the {@code CLI_*} cases and the other scenarios pass there.
 *
 * <p>The leases here run four times faster than a deployment's ({@link
 * DatasetHolds#timingForTests}): a silent claim lapses after 15 s of broker time, not 60 s.
 */
class DatasetAdmissionITCase {
    private static EmbeddedKafka kafka;
    private static Properties client;
    private static final AtomicInteger DATASETS = new AtomicInteger();
    private static final String TOPIC = "adm.budget-ledger";
    private static final PrivacyEvent WORST = new PrivacyEvent.ConfidentGnmax(10, 6, 10, true);

    @TempDir Path dir;

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

    /** A run admitted on its dataset: the ledger stays open (the dataset held) until closed. */
    record Held(DatasetLedger ledger, RunAdmission.Admitted admitted, String runId)
            implements AutoCloseable {
        String account() {
            return admitted.account();
        }

        @Override
        public void close() {
            ledger.close();
        }
    }

    /** A driver's admission path, on one ledger store. */
    enum Driver {
        CLI_LOCAL(false, false),
        CLI_KAFKA(false, true),
        CLUSTER_JOB_LOCAL(true, false),
        CLUSTER_JOB_KAFKA(true, true);

        final boolean clusterJob;
        final boolean kafkaLedger;

        Driver(boolean clusterJob, boolean kafkaLedger) {
            this.clusterJob = clusterJob;
            this.kafkaLedger = kafkaLedger;
        }

        /**
         * A new run: the CLI's under a fresh run id; ClusterJob's under a manifest's fixed run id
         * ({@code manifest}, as deploy/flink-deployment.yaml's "k8s-run-1").
         */
        Held start(JobConfig cfg, String manifest) {
            if (clusterJob) {
                ClusterJob.Deployment d = ClusterJob.admit(cfg, manifest, null, client);
                return new Held(d.ledger(), d.admitted(), manifest);
            }
            return cli(cfg, RunSession.newRunId(cfg), null);
        }

        /**
         * The same run started again: the CLI resuming {@code savepoint} (null: a retained
         * checkpoint of the run, which records no ledger state); ClusterJob deployed again with the
         * same manifest, restoring {@code savepoint} (null: none).
         */
        Held again(JobConfig cfg, String runId, String savepoint) {
            if (clusterJob) {
                ClusterJob.Deployment d = ClusterJob.admit(cfg, runId, savepoint, client);
                return new Held(d.ledger(), d.admitted(), runId);
            }
            RunMetadata md =
                    RunMetadata.find(savepoint).orElseGet(() -> new RunMetadata(runId, 1, 0));
            return cli(cfg, runId, new RunSession.Resume(md, savepoint));
        }

        private Held cli(JobConfig cfg, String runId, RunSession.Resume resume) {
            DatasetLedger ledger = DatasetLedger.open(cfg, kafkaLedger ? client : null);
            try {
                return new Held(
                        ledger, RunAdmission.cli(ledger, runId, resume, client, () -> {}), runId);
            } catch (RuntimeException e) {
                ledger.close();
                throw e;
            }
        }
    }

    private JobConfig spec(Driver driver, String dataset, double datasetEpsilon) {
        return JobSpec.parse(
                """
                name: adm
                ensemble: {id: pz, teachers: 20, source: planet-z, k: 3, seed: 5, top-k: 32}
                mechanism: {name: confident-gnmax, params: {sigma1: 10, threshold: 6, sigma2: 10}}
                budget: {epsilon: 2.0, delta: 1.0e-6, dataset: %s, dataset-epsilon: %s, ledger: %s, ledger-dir: '%s'}
                kafka:
                  mode: external
                  bootstrap: %s
                  topics: {budget-ledger: %s}
                """
                        .formatted(
                                dataset,
                                datasetEpsilon,
                                driver.kafkaLedger ? "kafka" : "local",
                                dir,
                                kafka.bootstrapServers(),
                                TOPIC),
                "adm");
    }

    private JobConfig spec(Driver driver) {
        return spec(driver, "D" + DATASETS.incrementAndGet(), 8.0);
    }

    /** What the job of an admitted run writes: its entry, {@code releases} worst-case releases. */
    private BudgetRecord spend(JobConfig cfg, Held run, int releases) throws Exception {
        RunBudget b = new BudgetPlan(cfg.budget().terms(), WORST).start(run.admitted().prior());
        int n = 0;
        while (n < releases && b.admit(WORST)) {
            n++;
        }
        BudgetRecord r = b.record(run.account(), true, "confident-gnmax", n, 1000 + n);
        write(cfg, r);
        return r;
    }

    private void write(JobConfig cfg, BudgetRecord r) throws Exception {
        if (cfg.ledgerMode() == JobConfig.LedgerMode.LOCAL) {
            BudgetLedgerIo.writeLocal(cfg.ledgerDir(), r);
            return;
        }
        KafkaOut out = Topic.BUDGET_LEDGER.out(TOPIC, r);
        Properties p = new Properties();
        p.putAll(client);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> prod =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            prod.send(new ProducerRecord<>(out.topic(), out.key(), out.value())).get();
        }
    }

    /** The dataset's composed ε as {@code ./hotpate ledger show --json} prints it. */
    private double ledgerShow(JobConfig cfg) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String[] args =
                cfg.ledgerMode() == JobConfig.LedgerMode.LOCAL
                        ? new String[] {
                            "ledger",
                            "show",
                            "--ledger-dir",
                            dir.toString(),
                            "--dataset",
                            cfg.datasetId(),
                            "--json"
                        }
                        : new String[] {
                            "ledger",
                            "show",
                            "--bootstrap",
                            kafka.bootstrapServers(),
                            "--topic",
                            TOPIC,
                            "--dataset",
                            cfg.datasetId(),
                            "--json"
                        };
        int rc =
                Main.execute(
                        args,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertThat(rc).isZero();
        JsonNode report = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
        for (JsonNode d : report.get("datasets")) {
            if (d.get("dataset").asText().equals(cfg.datasetId())) {
                return d.get("epsilon").asDouble();
            }
        }
        throw new AssertionError("ledger show lists no dataset " + cfg.datasetId() + ": " + report);
    }

    /**
     * A JobManager restarted before its driver released the claim: the run's own claim is still in
     * the ledger topic, silent. A redeployment of that run waits for it to lapse (up to {@link
     * ClusterJob#ownClaimWait}, longer than the lease timeout) and is admitted; a deployment of
     * another run is refused at once, before the claim could lapse.
     */
    @Test
    void aRedeploymentWaitsForItsOwnSilentClaimToLapseAndAnotherRunIsRefused() {
        Driver driver = Driver.CLUSTER_JOB_KAFKA;
        JobConfig cfg = spec(driver);
        DatasetLedger.open(cfg, client).close(); // the ledger topic, as a first deployment made it
        try (LedgerMarkersIo m = new LedgerMarkersIo(client, TOPIC, cfg.datasetId())) {
            // the claim's time is the broker's (LogAppendTime): it lapses a timeout from now
            m.append(
                    LedgerMarker.lease(
                            cfg.datasetId(),
                            "k8s-run-1",
                            "dead0001",
                            true,
                            System.currentTimeMillis()));
        }
        long t0 = System.nanoTime();
        long timeoutMs = DatasetHolds.timing().timeout().toMillis();
        assertThatThrownBy(() -> driver.start(cfg, "k8s-run-2").close())
                .isInstanceOf(DatasetInUseException.class)
                .hasMessageContaining("is in use by run k8s-run-1");
        assertThat((System.nanoTime() - t0) / 1_000_000)
                .as("refused before the claim could lapse, not after a wait")
                .isLessThan(timeoutMs);
        try (Held again = driver.start(cfg, "k8s-run-1")) {
            long waitedMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(waitedMs)
                    .as("it waited for the claim to lapse")
                    .isGreaterThan(timeoutMs / 2);
            assertThat(again.admitted().decision().kind()).isEqualTo(DatasetAdmission.Kind.FRESH);
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void aSecondRunOnAHeldDatasetIsRefused(Driver driver) {
        JobConfig cfg = spec(driver);
        try (Held first = driver.start(cfg, "k8s-run-1")) {
            assertThat(first.admitted().decision().kind()).isEqualTo(DatasetAdmission.Kind.FRESH);
            assertThatThrownBy(() -> driver.start(cfg, "k8s-run-2").close())
                    .isInstanceOf(DatasetInUseException.class)
                    .hasMessageContaining("dataset '" + cfg.datasetId() + "' is in use by run");
        }
        // released when the first ends
        try (Held next = driver.start(cfg, "k8s-run-2")) {
            assertThat(next.admitted().prior().runs()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void runningTheSameRunAgainNeverLowersTheComposedEpsilon(Driver driver) throws Exception {
        JobConfig cfg = spec(driver);
        String runId;
        try (Held first = driver.start(cfg, "k8s-run-1")) {
            runId = first.runId();
            spend(cfg, first, 20);
        }
        double before = ledgerShow(cfg);
        assertThat(before).isPositive().isFinite();
        try (Held again = driver.again(cfg, runId, null)) {
            assertThat(again.admitted().decision().kind()).isEqualTo(DatasetAdmission.Kind.FORK);
            assertThat(again.account()).isEqualTo(runId + "~r1");
            assertThat(again.admitted().prior().runs())
                    .as("the first entry is in the prior")
                    .isOne();
            // a fresh accountant's entry, spending less than the first did: a reset would
            // replace the first entry with it
            spend(cfg, again, 5);
        }
        assertThat(ledgerShow(cfg)).isGreaterThan(before);
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void aFinishedRunIsNotContinued(Driver driver) throws Exception {
        JobConfig cfg = spec(driver);
        String runId;
        try (Held first = driver.start(cfg, "k8s-run-1")) {
            runId = first.runId();
            spend(cfg, first, 3);
            first.ledger().markFinished(first.account()); // as RunSession.finish does
        }
        assertThatThrownBy(() -> driver.again(cfg, runId, null).close())
                .isInstanceOf(RunRefusedException.class)
                .hasMessageContaining("run " + runId + " finished");
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void aSavepointThatCoversTheEntryContinuesTheRunsAccount(Driver driver, @TempDir Path sp)
            throws Exception {
        JobConfig cfg = spec(driver);
        String runId;
        try (Held first = driver.start(cfg, "k8s-run-1")) {
            runId = first.runId();
            BudgetRecord atStop = spend(cfg, first, 4);
            // the savepoint records the run's entry as the stopped job left it
            new RunMetadata(runId, 1, 0)
                    .atSavepoint(first.account(), atStop)
                    .writeInto(sp.toString());
        }
        try (Held again = driver.again(cfg, runId, sp.toString())) {
            assertThat(again.admitted().decision().kind())
                    .isEqualTo(DatasetAdmission.Kind.CONTINUE);
            assertThat(again.account()).isEqualTo(runId);
            assertThat(again.admitted().prior().runs()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Driver.class)
    void aRunWithoutRoomIsRefused(Driver driver) throws Exception {
        JobConfig cfg = spec(driver, "D" + DATASETS.incrementAndGet(), 2.5);
        try (Held first = driver.start(cfg, "k8s-run-1")) {
            spend(cfg, first, 100_000);
        }
        assertThatThrownBy(() -> driver.start(cfg, "k8s-run-2").close())
                .isInstanceOf(NoBudgetLeftException.class)
                .hasMessageContaining("has no room for this run");
    }
}
