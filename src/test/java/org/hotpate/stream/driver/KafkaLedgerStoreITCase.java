package org.hotpate.stream.driver;

import java.nio.file.Path;
import java.util.Properties;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.KafkaIo;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LedgerStoreContract} on the Kafka ledger: the compacted topic on a real in-JVM KRaft
 * broker (and an empty local ledger directory, which the Kafka store composes with).
 */
class KafkaLedgerStoreITCase extends LedgerStoreContract {
    private static EmbeddedKafka kafka;
    private static Properties client;

    @TempDir Path dir;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
        client = KafkaIo.clientProperties(kafka.bootstrapServers(), new Properties());
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    @Override
    JobConfig spec(String dataset) {
        return JobSpec.parse(
                """
                budget: {epsilon: 20.0, delta: 1.0e-6, dataset: %s, ledger: kafka, ledger-dir: '%s'}
                kafka:
                  mode: external
                  bootstrap: %s
                  topics: {budget-ledger: contract.budget-ledger}
                """
                        .formatted(dataset, dir, kafka.bootstrapServers()),
                "contract");
    }

    @Override
    Properties client() {
        return client;
    }

    @Override
    String storeName() {
        return "kafka";
    }
}
