package org.hotpate.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ComposeContainer;

/**
 * {@code docker compose up} of the repository's compose file, for hosts with a Docker engine:
 * Kafka, the Flink session cluster (after the checkpoint volume was handed to uid 9999), the
 * teacher worker and the job submission; passes when the submitted run wrote its summary with every
 * sequence to {@code ./out}. Skipped cleanly without Docker (the development machines; the compose
 * file is then held by {@code DeploymentStaticChecksTest}).
 */
class ComposeUpITCase {
    @Test
    void theComposeFileRunsTheClusterSpecToTheEnd() throws Exception {
        assumeTrue(
                DockerClientFactory.instance().isDockerAvailable(),
                "no Docker engine on this host: docker-compose.yml is checked statically only");
        Path out = Path.of("out");
        long before = System.currentTimeMillis();
        ComposeContainer compose = new ComposeContainer(new File("docker-compose.yml"));
        compose.start();
        try {
            long deadline = System.currentTimeMillis() + Duration.ofMinutes(15).toMillis();
            Optional<Path> summary = Optional.empty();
            while (summary.isEmpty() && System.currentTimeMillis() < deadline) {
                Thread.sleep(5000);
                if (Files.isDirectory(out)) {
                    try (Stream<Path> s = Files.walk(out, 2)) {
                        summary =
                                s.filter(p -> p.getFileName().toString().equals("summary.json"))
                                        .filter(p -> p.toFile().lastModified() >= before)
                                        .findFirst();
                    }
                }
            }
            assertThat(summary).as("the submitted run wrote its summary to ./out").isPresent();
            assertThat(Files.readString(summary.get())).contains("\"sequences\"");
        } finally {
            compose.stop();
        }
    }
}
