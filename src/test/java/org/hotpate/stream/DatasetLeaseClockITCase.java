package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.KafkaIo;
import org.hotpate.io.LedgerMarkersIo;
import org.hotpate.model.LedgerMarker;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.DatasetInUseException;
import org.hotpate.stream.driver.DatasetLedger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 30 item 6: a lease's silence is measured on the broker's clock (the ledger topic stamps
 * LogAppendTime), not on the clock of the driver that wrote the claim. A driver whose clock runs
 * two minutes behind, claiming a dataset just now, holds it: a second run is refused. Fails on
 * 4a555fd, where the claim's own timestamp (the writer's clock) made it look silent for 120 s, so
 * it lapsed and the second run took the dataset too. Real in-JVM KRaft broker.
 */
class DatasetLeaseClockITCase {
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    private static JobConfig spec(String name, String dataset) {
        return JobSpec.parse(
                """
                name: %s
                ensemble: {id: pz, teachers: 20, source: planet-z, k: 3, seed: 5, top-k: 32}
                budget: {epsilon: 2.0, delta: 1.0e-6, dataset: %s, ledger: kafka}
                kafka:
                  mode: external
                  bootstrap: %s
                  topics: {budget-ledger: %s.budget-ledger}
                """
                        .formatted(name, dataset, kafka.bootstrapServers(), name),
                name);
    }

    @Test
    void aClaimWrittenByADriverWhoseClockIsBehindStillHoldsTheDataset() {
        JobConfig cfg = spec("lease-skew", "SKEW");
        Properties client = KafkaIo.clientProperties(kafka.bootstrapServers(), new Properties());
        try (DatasetLedger first = DatasetLedger.open(cfg, client)) {
            // A driver whose clock is 120 s behind claims the dataset now (and its heartbeats
            // would carry the same skewed time).
            try (LedgerMarkersIo m =
                    new LedgerMarkersIo(client, "lease-skew.budget-ledger", "SKEW")) {
                m.append(
                        LedgerMarker.lease(
                                "SKEW",
                                "skewed-run",
                                "c0ffee",
                                true,
                                System.currentTimeMillis() - 120_000));
            }
            try (DatasetLedger second = DatasetLedger.open(cfg, client)) {
                assertThatThrownBy(() -> second.acquire("second-run"))
                        .isInstanceOf(DatasetInUseException.class)
                        .hasMessageContaining("in use by run skewed-run");
            }
        }
    }

    @Test
    void aReleasedClaimFreesTheDatasetWhateverTheClocks() {
        JobConfig cfg = spec("lease-release", "REL");
        Properties client = KafkaIo.clientProperties(kafka.bootstrapServers(), new Properties());
        try (DatasetLedger first = DatasetLedger.open(cfg, client)) {
            first.acquire("first-run");
        }
        try (DatasetLedger second = DatasetLedger.open(cfg, client)) {
            second.acquire("second-run");
            assertThat(second).isNotNull();
        }
    }
}
