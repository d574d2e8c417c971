package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.driver.RunSession;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The end-to-end run against a Kafka broker in a container (apache/kafka, KRaft), for hosts with a
 * Docker engine. Skipped cleanly where there is none (the development machines).
 */
@Testcontainers(disabledWithoutDocker = true)
class KafkaContainerITCase {
    @Container static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:4.2.1");

    @Test
    void generatesRecordsAgainstAContainerBroker() throws Exception {
        JobConfig cfg = HotPateJobITCase.config("docker", "", KAFKA.getBootstrapServers());
        try (RunSession run = RunSession.start(cfg, null)) {
            assertThat(run.await(Duration.ofSeconds(120), null)).isTrue();
            run.finish();
            assertThat(run.records()).hasSize(4);
            HotPateJobITCase.assertConsistent(run, cfg);
        }
    }
}
