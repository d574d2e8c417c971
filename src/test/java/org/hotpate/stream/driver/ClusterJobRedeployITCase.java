package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.KafkaIo;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.KafkaOut;
import org.hotpate.protocol.BudgetPlan;
import org.hotpate.protocol.BudgetTerms;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.RunBudget;
import org.hotpate.stream.RunContext;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 30 item 2 (the reset only): the Kubernetes entry point redeployed with the same manifest
 * (the same fixed run id) never resets the dataset's budget. Its first deployment charges the run's
 * own account with an empty prior; once the ledger holds that run id, a deployment is charged as a
 * fork {@code <runId>~r1} whose prior includes the earlier entry. Fails on 4a555fd, where every
 * deployment charged the run id itself with a prior that left the run's own earlier entry out (runs
 * = 0), so a fresh accountant's entry replaced it. Real in-JVM KRaft broker.
 */
class ClusterJobRedeployITCase {
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    @Test
    void aRedeployOfTheSameManifestIsChargedOnTopOfTheEarlierEntry() throws Exception {
        JobConfig cfg =
                JobSpec.parse(
                        """
                        name: k8s
                        ensemble: {id: pz, teachers: 20, source: planet-z, k: 3, seed: 5, top-k: 32}
                        mechanism: {name: confident-gnmax, params: {sigma1: 10, threshold: 6, sigma2: 10}}
                        budget: {epsilon: 2.0, delta: 1.0e-6, dataset: K8S, dataset-epsilon: 8.0, ledger: kafka}
                        kafka:
                          mode: external
                          bootstrap: %s
                          topics: {budget-ledger: k8s.budget-ledger}
                        """
                                .formatted(kafka.bootstrapServers()),
                        "k8s");
        Properties client = KafkaIo.clientProperties(kafka.bootstrapServers(), new Properties());
        try (ClusterJob.Deployment first = ClusterJob.admit(cfg, "k8s-run-1", null, client)) {
            assertThat(first.run().ledgerAccount()).isEqualTo("k8s-run-1");
            assertThat(first.run().prior().runs()).isZero();
        }

        // The first deployment spent (its accountant's write-ahead entry), then was redeployed.
        RunBudget b =
                new BudgetPlan(
                                new BudgetTerms(2.0, 1e-6, 8.0),
                                new PrivacyEvent.ConfidentGnmax(10, 6, 10, true))
                        .start(DatasetPrior.empty("K8S"));
        for (int i = 0; i < 20; i++) {
            b.admit(new PrivacyEvent.ConfidentGnmax(10, 6, 10, true));
        }
        BudgetRecord spent = b.record("k8s-run-1", true, "confident-gnmax", 20, 1020);
        KafkaIo.createTopics(
                client, List.of("k8s.budget-ledger"), 2, Map.of("k8s.budget-ledger", Map.of()));
        KafkaOut out = Topic.BUDGET_LEDGER.out("k8s.budget-ledger", spent);
        Properties p = new Properties();
        p.putAll(client);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> prod =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            prod.send(new ProducerRecord<>(out.topic(), out.key(), out.value())).get();
        }

        try (ClusterJob.Deployment d = ClusterJob.admit(cfg, "k8s-run-1", null, client)) {
            RunContext again = d.run();
            assertThat(again.ledgerAccount()).isEqualTo("k8s-run-1~r1");
            assertThat(again.prior().runs()).as("the earlier deployment is in the prior").isOne();
            assertThat(again.prior().releases()).isEqualTo(20);
        }
    }

    /**
     * Issue 39 item 4: a deployment whose job ended FINISHED marks its account finished ({@link
     * ClusterJob.Deployment#finished}, which {@code main} calls once the job's result is in), so a
     * redeployment of the run is refused instead of forked.
     */
    @Test
    void aFinishedDeploymentIsRefusedNotRedeployedAsAFork() {
        JobConfig cfg =
                JobSpec.parse(
                        """
                        name: k8s
                        ensemble: {id: pz, teachers: 20, source: planet-z, k: 3, seed: 5, top-k: 32}
                        mechanism: {name: confident-gnmax, params: {sigma1: 10, threshold: 6, sigma2: 10}}
                        budget: {epsilon: 2.0, delta: 1.0e-6, dataset: K8S-DONE, dataset-epsilon: 8.0, ledger: kafka}
                        kafka:
                          mode: external
                          bootstrap: %s
                          topics: {budget-ledger: k8s.budget-ledger}
                        """
                                .formatted(kafka.bootstrapServers()),
                        "k8s");
        Properties client = KafkaIo.clientProperties(kafka.bootstrapServers(), new Properties());
        try (ClusterJob.Deployment first = ClusterJob.admit(cfg, "k8s-done-1", null, client)) {
            first.finished();
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> ClusterJob.admit(cfg, "k8s-done-1", null, client).close())
                .isInstanceOf(RunRefusedException.class)
                .hasMessageContaining("finished");
    }
}
