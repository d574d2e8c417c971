package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.RunSession;
import org.junit.jupiter.api.Test;

/**
 * The teacher side as its own OS process ({@code hotpate teachers SPEC}, the role an LLM inference
 * service plays) and a job that starts no teachers of its own ({@code ensemble.source: external}):
 * the two only share the Kafka topics.
 */
class ExternalTeachersITCase {
    // The step deadline is long (20 s): a separate JVM on a loaded 2-core machine can take several
    // seconds to answer its first step, and a late answer is a LATE_VOTE, which this test forbids.
    // With every teacher answering, a step closes as soon as all have voted, so it costs nothing.
    @Test
    void aSeparateTeacherProcessAnswersTheJob() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String yaml =
                    """
                    name: external
                    ensemble: {id: pz, teachers: 20, source: external, k: 3, seed: 5, top-k: 32, payload: model-vote}
                    sampler: {type: coordinated, seed: 11}
                    mechanism: {name: confident-gnmax, params: {sigma1: 1.5, threshold: 6, sigma2: 1.5}}
                    budget: {epsilon: 50.0, delta: 1.0e-6}
                    generation: {sequences: 3, concurrency: 3, max-steps: 3, max-attempts: 3, step-deadline-ms: 20000}
                    kafka: {mode: external, bootstrap: "%s", topics: {steps: x.steps, distributions: x.distributions,
                            results: x.results, records: x.records, ledger: x.ledger, rejected: x.rejected}}
                    flink: {parallelism: 2, checkpoint-interval-ms: 500}
                    output: {dir: target/it-out}
                    """
                            .formatted(kafka.bootstrapServers());
            Path spec = Files.createDirectories(Path.of("target/it-out")).resolve("external.yaml");
            Files.writeString(spec, yaml);
            JobConfig cfg = JobSpec.load(spec);
            Path log = Path.of("target/it-out/external-teachers.log");
            Process teachers =
                    new ProcessBuilder(
                                    List.of(
                                            Path.of(System.getProperty("java.home"), "bin", "java")
                                                    .toString(),
                                            "-Xmx256m",
                                            "-cp",
                                            System.getProperty("java.class.path"),
                                            "org.hotpate.cli.Main",
                                            "teachers",
                                            spec.toString()))
                            .redirectErrorStream(true)
                            .redirectOutput(log.toFile())
                            .start();
            try (RunSession run = RunSession.start(cfg, null)) {
                assertThat(run.await(Duration.ofSeconds(90), null))
                        .as("answered by the external process; see " + log)
                        .isTrue();
                run.finish();
                assertThat(run.records()).hasSize(3);
                assertThat(run.tokens()).isPositive();
                assertThat(run.rejected()).isEmpty();
                HotPateJobITCase.assertConsistent(run, cfg);
            } finally {
                teachers.destroy();
                teachers.waitFor();
            }
            assertThat(Files.readString(log)).contains("teachers [0, 20) of pz");
        }
    }
}
