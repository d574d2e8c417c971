package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.KafkaIo;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.KafkaOut;
import org.hotpate.protocol.BudgetPlan;
import org.hotpate.protocol.BudgetTerms;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.RunBudget;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.RunRefusedException;
import org.hotpate.stream.driver.RunSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30 item 3: one ledger per dataset, whatever the flags. A dataset that has entries in the
 * local ledger is refused (exit 2, naming the local directory) by a run that would open it on the
 * Kafka ledger, and a dataset with entries on the Kafka ledger topic is refused by a local-ledger
 * run on that Kafka. Both refusals come before any job starts. Fails on 4a555fd: the Kafka run
 * composed the local entries and ran, the local run never read the topic and ran. Real in-JVM KRaft
 * broker (and, on the old code, a MiniCluster run).
 */
class OneLedgerPerDatasetITCase {
    private static EmbeddedKafka kafka;

    @TempDir static Path ledgerDir;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    private static JobConfig spec(String name, String dataset, String ledger) {
        return JobSpec.parse(
                """
                name: %s
                ensemble: {id: pz, teachers: 20, source: planet-z, k: 3, seed: 5, top-k: 32}
                sampler: {type: coordinated, seed: 11}
                mechanism: {name: confident-gnmax, params: {sigma1: 10, threshold: 6, sigma2: 10}}
                budget: {epsilon: 2.0, delta: 1.0e-6, dataset: %s, ledger: %s, ledger-dir: '%s'}
                generation: {sequences: 1, concurrency: 1, max-steps: 2, max-attempts: 2, step-deadline-ms: 3000}
                kafka:
                  mode: external
                  bootstrap: %s
                  topics: {steps: %s.steps, distributions: %s.distributions, results: %s.results,
                           records: %s.records, ledger: %s.ledger, rejected: %s.rejected,
                           budget-ledger: one.budget-ledger}
                flink: {parallelism: 2, checkpoint-interval-ms: 300}
                output: {dir: target/it-out}
                """
                        .formatted(
                                name,
                                dataset,
                                ledger,
                                ledgerDir,
                                kafka.bootstrapServers(),
                                name,
                                name,
                                name,
                                name,
                                name,
                                name),
                name);
    }

    private static BudgetRecord entry(String dataset, String account) {
        RunBudget b =
                new BudgetPlan(
                                new BudgetTerms(2.0, 1e-6, Double.POSITIVE_INFINITY),
                                new PrivacyEvent.Gaussian(4.0, Math.sqrt(2)))
                        .start(DatasetPrior.empty(dataset));
        b.admit(new PrivacyEvent.Gaussian(4.0, Math.sqrt(2)));
        return b.record(account, true, "confident-gnmax", 1, 1001);
    }

    @Test
    void aDatasetInTheLocalLedgerIsRefusedByAKafkaLedgerRun() throws Exception {
        BudgetLedgerIo.writeLocal(ledgerDir, entry("LOCALFIRST", "earlier-run"));
        JobConfig cfg = spec("one-kafka", "LOCALFIRST", "kafka");
        assertThatThrownBy(() -> RunSession.start(cfg, null).close())
                .isInstanceOf(RunRefusedException.class)
                .hasMessageContaining("dataset 'LOCALFIRST' has its budget ledger in the local")
                .hasMessageContaining(ledgerDir.toString());
    }

    @Test
    void aDatasetOnTheKafkaLedgerIsRefusedByALocalLedgerRun() throws Exception {
        Properties client = KafkaIo.clientProperties(kafka.bootstrapServers(), new Properties());
        KafkaIo.createTopics(
                client, List.of("one.budget-ledger"), 2, Map.of("one.budget-ledger", Map.of()));
        KafkaOut out =
                org.hotpate.stream.config.Topic.BUDGET_LEDGER.out(
                        "one.budget-ledger", entry("KAFKAFIRST", "earlier-run"));
        Properties p = new Properties();
        p.putAll(client);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> prod =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            prod.send(new ProducerRecord<>(out.topic(), out.key(), out.value())).get();
        }
        JobConfig cfg = spec("one-local", "KAFKAFIRST", "local");
        assertThatThrownBy(() -> RunSession.start(cfg, null).close())
                .isInstanceOf(RunRefusedException.class)
                .hasMessageContaining("dataset 'KAFKAFIRST' has its budget ledger on the Kafka")
                .hasMessageContaining("one.budget-ledger");
    }
}
