package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.model.Rejected;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.stream.config.CoreBindings;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.RecordsOptions;
import org.hotpate.stream.driver.RunSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Records runs end to end on a MiniCluster (parallelism 2, RocksDB) and a real in-JVM KRaft broker:
 * a JSONL file of user records → per-user n-gram teachers in keyed state → DP text.
 */
class RecordsJobITCase {
    private static EmbeddedKafka kafka;
    private static final Path DIR = Path.of("target", "it-records");

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = EmbeddedKafka.start();
        Files.createDirectories(DIR);
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    static JobConfig config(String name, Path file, String mechanism, String extra) {
        return config(name, file, mechanism, extra, 6);
    }

    static JobConfig config(String name, Path file, String mechanism, String extra, int sequences) {
        return JobSpec.parse(
                """
                name: %s
                records: {file: %s, user-field: maintainer, text-field: text}
                ensemble: {source: records, kind: heterogeneous}
                teacher: {model: ngram, order: 3}
                tokenizer: cl100k_base
                sampler: {type: coordinated, seed: 7}
                mechanism: %s
                budget: {epsilon: 20.0, delta: 1.0e-6}
                generation: {sequences: %d, concurrency: 6, max-steps: 8, on-fail: resample, max-attempts: 2, stop: ["\\n"]}
                kafka:
                  mode: external
                  bootstrap: %s
                  topics: {steps: %s.steps, distributions: %s.distributions, results: %s.results,
                           records: %s.records, ledger: %s.ledger, rejected: %s.rejected,
                           private-records: %s.private}
                flink: {parallelism: 2, checkpoint-interval-ms: 500}
                output: {dir: target/it-out}
                %s
                """
                        .formatted(
                                name,
                                file,
                                mechanism,
                                sequences,
                                kafka.bootstrapServers(),
                                name,
                                name,
                                name,
                                name,
                                name,
                                name,
                                name,
                                extra),
                name);
    }

    private static final String MECHANISM =
            "{name: confident-gnmax, params: {sigma1: 4, threshold: 40, sigma2: 4}}";

    /**
     * The contract: teachers = distinct user ids present (valid records or not), decoded non-empty
     * text, no {@code <tok}, ε within budget; bad file lines land in rejected with their line
     * numbers while the run goes on; and the canary phrase that one user repeats 60 times never
     * appears.
     */
    @Test
    void heterogeneousRunDecodesTextAndNeverLeaksOneUsersPhrase() throws Exception {
        Path file = RecordsCorpus.write(DIR.resolve("canary-1.jsonl"), "maintainer", 300, 1, 60, 3);
        Files.write(
                file,
                List.of(
                        "not json at all",
                        "{\"text\": \"no user here\"}",
                        "{\"maintainer\": \"x@y\", \"text\": 42}",
                        "{\"maintainer\": \"x@y\", \"text\": \"\"}"),
                java.nio.file.StandardOpenOption.APPEND);
        Files.write(
                file,
                new byte[] {'{', '"', 'm', '"', ':', '"', (byte) 0xC3, '"', '}', '\n'},
                java.nio.file.StandardOpenOption.APPEND);
        JobConfig cfg = config("recs-canary", file, MECHANISM, "");
        try (RunSession run = RunSession.start(cfg, null)) {
            assertThat(run.await(Duration.ofSeconds(180), null)).as("run completes").isTrue();
            run.finish();
            // 300 users with valid records and x@y, whose records are all invalid: every user id
            // present counts (issue 30 item 7); x@y's teacher holds no records and abstains.
            assertThat(run.config().ensemble().teachers()).isEqualTo(301);
            List<SyntheticRecord> recs = run.records();
            assertThat(recs).hasSize(6);
            assertThat(recs).noneMatch(r -> r.text().contains("<tok"));
            assertThat(recs.stream().filter(r -> !r.text().isBlank()).count())
                    .as("non-empty texts")
                    .isGreaterThanOrEqualTo(2);
            assertThat(run.epsilon()).isLessThanOrEqualTo(cfg.budget().epsilon());
            for (SyntheticRecord r : recs) {
                assertThat(r.text()).doesNotContain("zebra").doesNotContain("marmalade");
            }
            Map<String, Long> reasons =
                    run.rejected().stream()
                            .collect(
                                    java.util.stream.Collectors.groupingBy(
                                            Rejected::reason,
                                            java.util.stream.Collectors.counting()));
            assertThat(reasons)
                    .containsEntry("NOT_JSON_OBJECT", 1L)
                    .containsEntry("MISSING_USER", 1L)
                    .containsEntry("TEXT_NOT_STRING", 1L)
                    .containsEntry("EMPTY_TEXT", 1L)
                    .containsEntry("NOT_UTF8", 1L);
            assertThat(run.rejected())
                    .anyMatch(r -> r.detail().contains("line ") && r.offset() > 0);
            String summary = Files.readString(run.outputDir().resolve("summary.json"));
            assertThat(summary)
                    .contains("\"teachers\" : 301")
                    .contains("\"tokenizer\" : \"cl100k_base\"");
            String rows =
                    Files.readString(
                            run.outputDir().resolve("records.jsonl"), StandardCharsets.UTF_8);
            assertThat(rows.lines())
                    .allMatch(l -> l.contains("\"text\"") && l.contains("\"prompt\""));
        }
    }

    /**
     * The canary test can fail: when the phrase is written by 200 of the 300 users (many teachers
     * agree on it), the same job releases it. In some sequence, not each: whether a sequence's
     * coordinated draw lands on the phrase after "the" depends on its public seed, so 12 sequences
     * (with 6 it failed once on 2026-12-02: none of the six took "zebra" after "the").
     */
    @Test
    void thePhraseIsReleasedWhenManyUsersWriteIt() throws Exception {
        Path file =
                RecordsCorpus.write(DIR.resolve("canary-200.jsonl"), "maintainer", 300, 200, 5, 3);
        JobConfig cfg = config("recs-many", file, MECHANISM, "", 12);
        try (RunSession run = RunSession.start(cfg, null)) {
            assertThat(run.await(Duration.ofSeconds(180), null)).as("run completes").isTrue();
            run.finish();
            assertThat(run.records()).anyMatch(r -> r.text().contains("zebra quantum"));
        }
    }

    /**
     * teacher.prior: dp-ngram end to end: the driver releases the table into the run's output
     * directory, the teachers back off to it, and the run's ε covers it from the first release
     * (never below the prior alone, never above the budget).
     */
    @Test
    void aPopulationPriorIsReleasedOnceAndChargedToTheRun() throws Exception {
        Path file = RecordsCorpus.write(DIR.resolve("prior-300.jsonl"), "maintainer", 300, 0, 0, 3);
        JobConfig cfg =
                config("recs-prior", file, "{name: auto}", "")
                        .with(RecordsOptions.TEACHER_PRIOR, "dp-ngram")
                        .with(RecordsOptions.TEACHER_PRIOR_PER_USER, 4);
        try (RunSession run = RunSession.start(cfg, null)) {
            assertThat(run.await(Duration.ofSeconds(180), null)).as("run completes").isTrue();
            com.fasterxml.jackson.databind.node.ObjectNode summary = run.finish();
            Path prior = run.outputDir().resolve("prior.jsonl").toAbsolutePath();
            var table = org.hotpate.teachers.ngram.PopulationPrior.read(prior);
            assertThat(table.released()).isPositive();
            assertThat(run.config().records().teacher().priorFile()).isEqualTo(prior.toString());
            assertThat(summary.path("populationPrior").path("ngrams").asLong())
                    .isEqualTo(table.released());
            assertThat(summary.path("populationPrior").path("kind").asText()).isEqualTo("dp-ngram");
            org.hotpate.core.privacy.PrivacyEvent pre =
                    CoreBindings.preCharge(run.config()).event(run.config().plan().budget());
            var alone =
                    org.hotpate.core.accounting.EnsembleBudgetFilter.create(
                            run.config().plan().budget().runConfig(pre));
            alone.precharge(pre);
            assertThat(run.epsilon())
                    .isGreaterThanOrEqualTo(alone.spentEpsilon())
                    .isLessThanOrEqualTo(cfg.budget().epsilon());
            assertThat(run.records()).hasSize(6);
        }
    }
}
