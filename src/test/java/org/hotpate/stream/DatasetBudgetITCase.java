package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Properties;
import org.hotpate.cli.Main;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.KafkaIo;
import org.hotpate.model.BudgetRecord;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;
import org.hotpate.stream.driver.DatasetInUseException;
import org.hotpate.stream.driver.DatasetLedger;
import org.hotpate.stream.driver.NoBudgetLeftException;
import org.hotpate.stream.driver.RunSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durable per-dataset budget, as a user would check it (issue 10): three runs of one Planet-Z
 * spec with {@code budget: {epsilon: 2.0, delta: 1.0e-6, dataset: D, dataset-epsilon: 3.0}} — run
 * 1's {@code dataset_epsilon} equals its {@code epsilon}, run 2's is larger and ≤ 3.0, run 3 exits
 * 2 (no room) or releases nothing; the public summary names no retired or rejected teachers or
 * records. Then the same across two runs with the ledger on a compacted Kafka topic. Real
 * MiniCluster (parallelism 2, RocksDB) and a real in-JVM KRaft broker shared by the class.
 *
 * <p>Fails on the code before the durable ledger: every run started from zero (run 2's ε was again
 * only its own) and there was no dataset_epsilon at all.
 */
class DatasetBudgetITCase {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static EmbeddedKafka kafka;

    @TempDir static Path ledgerDir;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    static JobConfig spec(String name, String ledger) {
        return JobSpec.parse(specYaml(name, ledger), name);
    }

    private static String specYaml(JobConfig cfg) {
        return specYaml(cfg.name(), "ledger: kafka");
    }

    private static String specYaml(String name, String ledger) {
        return """
                name: %s
                ensemble: {id: pz, teachers: 20, source: planet-z, k: 3, seed: 5, top-k: 32}
                sampler: {type: coordinated, seed: 11}
                mechanism: {name: confident-gnmax, params: {sigma1: 10, threshold: 6, sigma2: 10}}
                budget: {epsilon: 2.0, delta: 1.0e-6, dataset: D, dataset-epsilon: 3.0, %s}
                generation: {sequences: 12, concurrency: 6, max-steps: 4, max-attempts: 3, step-deadline-ms: 3000}
                kafka:
                  mode: external
                  bootstrap: %s
                  topics: {steps: %s.steps, distributions: %s.distributions, results: %s.results,
                           records: %s.records, ledger: %s.ledger, rejected: %s.rejected,
                           budget-ledger: %s.budget-ledger}
                flink: {parallelism: 2, checkpoint-interval-ms: 300}
                output: {dir: target/it-out}
                """
                .formatted(
                        name,
                        ledger,
                        kafka.bootstrapServers(),
                        name,
                        name,
                        name,
                        name,
                        name,
                        name,
                        name);
    }

    private static ObjectNode run(JobConfig cfg) throws Exception {
        try (RunSession run = RunSession.start(cfg, null)) {
            assertThat(run.await(Duration.ofSeconds(120), null)).as("run completes").isTrue();
            ObjectNode summary = run.finish();
            HotPateJobITCase.assertConsistent(run, cfg);
            assertPublicSummaryNamesNoOperatorData(
                    JSON.readTree(run.outputDir().resolve("summary.json").toFile()));
            assertThat(run.outputDir().resolve("operator.json")).exists();
            return summary;
        }
    }

    /** No key of the public summary mentions votes, retired or rejected teachers or records. */
    static void assertPublicSummaryNamesNoOperatorData(JsonNode summary) {
        String text = summary.toString().toLowerCase();
        for (String word : List.of("retire", "reject", "vote", "distribution", "abandon")) {
            assertThat(text).as("public summary mentions " + word).doesNotContain(word);
        }
        for (Iterator<String> it = summary.fieldNames(); it.hasNext(); ) {
            String k = it.next().toLowerCase();
            assertThat(k).doesNotContain("retired").doesNotContain("rejected");
        }
    }

    @Test
    void threeRunsOnOneDatasetComposeInTheLocalLedger() throws Exception {
        String ledger = "ledger: local, ledger-dir: '" + ledgerDir + "'";
        JobConfig cfg = spec("ds-local", ledger);
        ObjectNode first = run(cfg);
        double eps1 = first.get("epsilon").asDouble();
        assertThat(first.get("private").asBoolean()).isTrue();
        assertThat(first.get("dataset").asText()).isEqualTo("D");
        assertThat(eps1).isPositive().isLessThanOrEqualTo(2.0);
        assertThat(first.get("dataset_epsilon").asDouble()).isCloseTo(eps1, within(1e-9));

        ObjectNode second = run(cfg);
        double ds2 = second.get("dataset_epsilon").asDouble();
        assertThat(ds2).isGreaterThan(eps1).isLessThanOrEqualTo(3.0);
        assertThat(second.get("epsilon").asDouble()).isLessThanOrEqualTo(2.0);

        // Run 3: the dataset cannot fund another run's budget — exit 2 before anything starts.
        assertThatThrownBy(() -> RunSession.start(cfg, null))
                .isInstanceOf(NoBudgetLeftException.class)
                .hasMessageContaining("dataset 'D'");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path specFile = Files.createDirectories(Path.of("target/it-out")).resolve("ds-local.yaml");
        Files.writeString(specFile, specText(cfg, ledger));
        int rc =
                Main.execute(
                        new String[] {"run", specFile.toString(), "--quiet"},
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("dataset 'D'");

        // The ledger: two runs, their composition is run 2's dataset_epsilon.
        List<BudgetRecord> runs = BudgetLedgerIo.readLocal(ledgerDir, "D");
        assertThat(runs).hasSize(2);
        JsonNode shown = ledgerShow("--ledger-dir", ledgerDir.toString(), "--dataset", "D").get(0);
        assertThat(shown.get("runCount").asInt()).isEqualTo(2);
        assertThat(shown.get("epsilon").asDouble()).isCloseTo(ds2, within(1e-9));
    }

    /** {@code ./hotpate ledger show ARGS --json} as a user runs it (exit 0): its datasets. */
    private static JsonNode ledgerShow(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String[] argv = new String[args.length + 3];
        argv[0] = "ledger";
        argv[1] = "show";
        System.arraycopy(args, 0, argv, 2, args.length);
        argv[argv.length - 1] = "--json";
        assertThat(
                        Main.execute(
                                argv,
                                new PrintStream(out, true, StandardCharsets.UTF_8),
                                System.err))
                .isZero();
        return JSON.readTree(out.toString(StandardCharsets.UTF_8)).get("datasets");
    }

    /** The spec text that {@link #spec} parsed (for the CLI run). */
    private static String specText(JobConfig cfg, String ledger) {
        return """
                name: %s
                ensemble: {id: pz, teachers: 20, source: planet-z, k: 3, seed: 5, top-k: 32}
                sampler: {type: coordinated, seed: 11}
                mechanism: {name: confident-gnmax, params: {sigma1: 10, threshold: 6, sigma2: 10}}
                budget: {epsilon: 2.0, delta: 1.0e-6, dataset: D, dataset-epsilon: 3.0, %s}
                generation: {sequences: 12, concurrency: 6, max-steps: 4}
                kafka: {mode: external, bootstrap: "%s"}
                output: {dir: target/it-out}
                """
                .formatted(cfg.name(), ledger, kafka.bootstrapServers());
    }

    @Test
    void twoRunsComposeThroughTheCompactedKafkaLedger() throws Exception {
        JobConfig cfg = spec("ds-kafka", "ledger: kafka");
        assertThat(cfg.ledgerMode()).isEqualTo(JobConfig.LedgerMode.KAFKA);
        ObjectNode first = run(cfg);
        ObjectNode second = run(cfg);
        assertThat(first.get("dataset_epsilon").asDouble())
                .isCloseTo(first.get("epsilon").asDouble(), within(1e-9));
        assertThat(second.get("dataset_epsilon").asDouble())
                .isGreaterThan(first.get("dataset_epsilon").asDouble())
                .isLessThanOrEqualTo(3.0);
        List<BudgetRecord> onTopic =
                BudgetLedgerIo.readTopic(
                        KafkaIo.clientProperties(kafka.bootstrapServers(), new Properties()),
                        cfg.kafka().topics().name(Topic.BUDGET_LEDGER),
                        Duration.ofSeconds(30));
        assertThat(onTopic).hasSize(2).allMatch(r -> r.dataset().equals("D"));
        assertThat(onTopic.stream().mapToLong(BudgetRecord::releases).sum())
                .isEqualTo(first.get("releases").asLong() + second.get("releases").asLong());
    }

    /**
     * Issue 31: {@code ledger show} on a Kafka ledger marks the run holding the dataset's lease
     * while its driver heartbeats, and nothing once the claim is released.
     */
    @Test
    void ledgerShowMarksTheHolderOfAKafkaLedgersLease() throws Exception {
        JobConfig cfg =
                JobSpec.parse(
                        specYaml(spec("ds-held", "ledger: kafka"))
                                .replace("dataset: D,", "dataset: H,"),
                        "ds-held");
        Properties client = KafkaIo.clientProperties(kafka.bootstrapServers(), new Properties());
        String topic = cfg.kafka().topics().name(Topic.BUDGET_LEDGER);
        try (DatasetLedger held = DatasetLedger.open(cfg, client)) {
            held.acquire("ds-held-run-1");
            JsonNode shown =
                    ledgerShow(
                                    "--bootstrap",
                                    kafka.bootstrapServers(),
                                    "--topic",
                                    topic,
                                    "--dataset",
                                    "H")
                            .get(0);
            assertThat(shown.get("heldBy").get("runId").asText()).isEqualTo("ds-held-run-1");
            assertThat(shown.get("heldBy").get("status").asText())
                    .startsWith("running (last heartbeat");
            assertThat(shown.get("heldBy").get("orphaned").asBoolean()).isFalse();
        }
        JsonNode after =
                ledgerShow(
                        "--bootstrap",
                        kafka.bootstrapServers(),
                        "--topic",
                        topic,
                        "--dataset",
                        "H");
        assertThat(after).allMatch(d -> !d.has("heldBy"));
    }

    /**
     * Two runs started at once on one dataset whose ledger is on a shared broker (issue 23, "one
     * authority per dataset"), each with run budget 2.0 under {@code dataset-epsilon: 2.5}: one
     * holds the dataset's lease, the other is refused before anything starts (exit 2 naming the
     * dataset and the holder), and the dataset's composed ε stays ≤ 2.5. Fails on the code before
     * the lease: both runs read an empty prior, both finished and composed to ≈ 3.0.
     */
    @Test
    void twoRunsStartedAtOnceOnOneKafkaLedgerDatasetCannotBothSpend() throws Exception {
        JobConfig a = raceSpec("ds-race-a");
        JobConfig b = raceSpec("ds-race-b");
        java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
        java.util.concurrent.ExecutorService pool =
                java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            List<java.util.concurrent.Future<Object>> outcomes = new java.util.ArrayList<>();
            for (JobConfig cfg : List.of(a, b)) {
                outcomes.add(
                        pool.submit(
                                () -> {
                                    together.await();
                                    try {
                                        return run(cfg);
                                    } catch (DatasetInUseException e) {
                                        return e;
                                    }
                                }));
            }
            List<Object> results = new java.util.ArrayList<>();
            for (var f : outcomes) {
                results.add(f.get(300, java.util.concurrent.TimeUnit.SECONDS));
            }
            List<Object> refused =
                    results.stream().filter(r -> r instanceof DatasetInUseException).toList();
            assertThat(refused).as("exactly one run is refused").hasSize(1);
            assertThat(((Exception) refused.get(0)).getMessage())
                    .contains("dataset 'R' is in use by run ds-race-");
            ObjectNode finished =
                    (ObjectNode)
                            results.stream().filter(r -> r instanceof ObjectNode).findFirst().get();
            assertThat(finished.get("dataset_epsilon").asDouble()).isLessThanOrEqualTo(2.5);
        } finally {
            pool.shutdownNow();
        }
        // As a user checks it: the ledger holds one run, composed ε ≤ 2.5.
        JsonNode shown =
                ledgerShow(
                                "--bootstrap",
                                kafka.bootstrapServers(),
                                "--topic",
                                a.kafka().topics().name(Topic.BUDGET_LEDGER),
                                "--dataset",
                                "R")
                        .get(0);
        assertThat(shown.get("runCount").asInt()).isEqualTo(1);
        assertThat(shown.get("epsilon").asDouble()).isLessThanOrEqualTo(2.5);

        // The holder released the dataset at its end: a third run may start (and is refused
        // only for lack of room, not because the dataset is in use).
        assertThatThrownBy(() -> RunSession.start(a, null).close())
                .isInstanceOf(NoBudgetLeftException.class);
    }

    /** {@link #spec} on dataset R, capped at 2.5, with the budget-ledger topic both runs share. */
    private static JobConfig raceSpec(String name) {
        JobConfig cfg = spec(name, "ledger: kafka");
        return JobSpec.parse(
                specYaml(cfg)
                        .replace(
                                "dataset: D, dataset-epsilon: 3.0",
                                "dataset: R, dataset-epsilon: 2.5")
                        .replace(name + ".budget-ledger", "race.budget-ledger"),
                name);
    }
}
