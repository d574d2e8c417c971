package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobOptions;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.RunSession;
import org.hotpate.teachers.text.Gpt2TokenizerJson;
import org.hotpate.teachers.text.Tokenizer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A records run with {@code tokenizer: {file: <GPT-2's tokenizer.json>}} (MiniCluster + in-JVM
 * KRaft broker): the run's vocabulary is GPT-2's, its records carry GPT-2 token ids, and each
 * record's text is exactly the decoding of its ids — by the file tokenizer and by r50k_base
 * (GPT-2's encoding in jtokkit), byte for byte. The records are multi-byte text so that the
 * byte-level decoding is exercised.
 */
class TokenizerFileITCase {
    private static EmbeddedKafka kafka;
    private static final Path DIR = Path.of("target", "it-tokenizer-file");

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = EmbeddedKafka.start();
        Files.createDirectories(DIR);
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    @Test
    void recordsRunWritesGpt2IdsWhoseDecodingIsTheText() throws Exception {
        Path tokenizer = Gpt2TokenizerJson.write(Path.of("target", "fixtures", "gpt2"));
        Path records = DIR.resolve("users.jsonl");
        Random rnd = new Random(11);
        String[] tails = {"naïve café ☕", "Grüße aus Köln 😀", "日本語のテキスト", "crème brûlée 🎉"};
        List<String> lines = new ArrayList<>();
        for (int u = 0; u < 240; u++) {
            for (int i = 0; i < 3; i++) {
                lines.add(
                        RecordsCorpus.line(
                                "user", "u" + u, "Grüße 😀 — " + tails[rnd.nextInt(tails.length)]));
            }
        }
        Files.write(records, lines, StandardCharsets.UTF_8);
        String name = "tokfile";
        JobConfig cfg =
                JobSpec.parse(
                        """
                        name: %s
                        records: {file: %s}
                        ensemble: {source: records, kind: heterogeneous}
                        teacher: {model: ngram, order: 3}
                        tokenizer: {file: %s}
                        sampler: {type: coordinated, seed: 7}
                        mechanism: {name: confident-gnmax, params: {sigma1: 4, threshold: 40, sigma2: 4}}
                        budget: {epsilon: 20.0, delta: 1.0e-6, dataset: i32-tokfile-it, ledger-dir: target/it-ledger}
                        generation: {sequences: 4, concurrency: 4, max-steps: 12, on-fail: resample, max-attempts: 2, stop: []}
                        kafka:
                          mode: external
                          bootstrap: %s
                          topics: {steps: %s.steps, distributions: %s.distributions, results: %s.results,
                                   records: %s.records, ledger: %s.ledger, rejected: %s.rejected,
                                   private-records: %s.private}
                        flink: {parallelism: 2, checkpoint-interval-ms: 500}
                        output: {dir: target/it-out}
                        """
                                .formatted(
                                        name,
                                        records,
                                        tokenizer,
                                        kafka.bootstrapServers(),
                                        name,
                                        name,
                                        name,
                                        name,
                                        name,
                                        name,
                                        name),
                        name);
        assertThat(cfg.get(JobOptions.ENSEMBLE_VOCABULARY)).isEqualTo(50257);
        Tokenizer file = Tokenizer.named(cfg.records().tokenizer());
        Tokenizer gpt2 = Tokenizer.named("r50k_base");
        try (RunSession run = RunSession.start(cfg, null)) {
            assertThat(run.await(Duration.ofSeconds(180), null)).as("run completes").isTrue();
            run.finish();
            List<SyntheticRecord> recs = run.records();
            assertThat(recs).hasSize(4);
            assertThat(recs.stream().mapToInt(r -> r.tokens().length).sum())
                    .as("tokens released")
                    .isGreaterThanOrEqualTo(4);
            for (SyntheticRecord r : recs) {
                assertThat(java.util.Arrays.stream(r.tokens()).allMatch(t -> t >= 0 && t < 50257))
                        .isTrue();
                assertThat(file.decode(r.tokens())).isEqualTo(r.text());
                assertThat(gpt2.decode(r.tokens())).isEqualTo(r.text());
                // (a DP release may stop or switch inside a character: those bytes decode to
                // U+FFFD by the tokenizer's rule, the same for both decoders)
            }
            assertThat(recs).anyMatch(r -> r.text().contains("Grüße"));
            assertThat(Files.readString(run.outputDir().resolve("summary.json")))
                    .contains("\"tokenizer\" : \"file:");
        }
    }
}
