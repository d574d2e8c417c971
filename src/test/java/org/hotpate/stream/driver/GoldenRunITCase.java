package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The golden run (issue 33: keep behaviour through a refactoring): the default demo spec, run end
 * to end (records → per-user n-gram teachers in RocksDB → coordinated votes → {@code auto}'s
 * mechanism → records) with a fixed run id and a fixed noise secret, must release exactly what
 * {@code src/test/resources/golden/demo-run.txt} holds — every step's outcome, token, event and
 * noisy count, and every record. The file was written by the code before the refactoring; a change
 * of behaviour (a different draw, order of charges or rule) shows as a diff. Only values that do
 * not depend on timing are compared: not the running ε after each release (the order in which the
 * accountant sees releases), not timestamps. To accept a deliberate change of behaviour, rerun with
 * {@code -Dgolden.update=true} and say why in the commit.
 */
class GoldenRunITCase {
    private static final Path GOLDEN = Path.of("src/test/resources/golden/demo-run.txt");
    private static final String RUN_ID = "demo-golden-20261128-000000-0123456789abcdef";

    @TempDir Path work;

    @Test
    void theDemoSpecWithFixedNoiseReleasesExactlyTheGoldenRun() throws Exception {
        String spec = Files.readString(Path.of("jobs/demo.yaml"));
        String budget = "budget: {epsilon: 4.0, delta: 1.0e-6}";
        assertThat(spec).as("the golden run pins the demo's budget line").contains(budget);
        spec =
                spec.replace(
                                budget,
                                "budget: {epsilon: 4.0, delta: 1.0e-6, ledger-dir: \""
                                        + work.resolve("ledger")
                                        + "\"}")
                        + "output: {dir: \""
                        + work.resolve("out")
                        + "\"}\n";
        // Every teacher's vote in every step, however slow the machine: a deadline that fires
        // under load would change the votes (missing teachers abstain), not the code.
        assertThat(spec).contains("generation: {");
        spec = spec.replace("generation: {", "generation: {step-deadline-ms: 300000, ");
        JobConfig cfg = JobSpec.parse(spec, "demo");
        byte[] secret = new byte[32];
        for (int i = 0; i < secret.length; i++) {
            secret[i] = (byte) (7 * i + 1);
        }
        String actual;
        try (RunSession run =
                RunSession.startWithFixedNoiseForTestsOnly(
                        cfg, new RunSession.FixedNoise(RUN_ID, secret))) {
            assertThat(run.await(Duration.ofMinutes(8), null))
                    .as("the demo run completes")
                    .isTrue();
            run.finish();
            actual = render(run.results(), run.records());
        }
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(GOLDEN, actual, StandardCharsets.UTF_8);
        }
        assertThat(actual).isEqualTo(Files.readString(GOLDEN, StandardCharsets.UTF_8));
    }

    /** One line per released step, then one per record, sorted by their keys. */
    static String render(List<StepResult> results, List<SyntheticRecord> records) {
        List<String> lines = new ArrayList<>();
        results.stream()
                .sorted(
                        Comparator.comparingLong(StepResult::sequenceId)
                                .thenComparingInt(StepResult::step)
                                .thenComparingInt(StepResult::attempt))
                .forEach(
                        r ->
                                lines.add(
                                        String.format(
                                                Locale.ROOT,
                                                "step %d %d %d %s %d %s %s %s",
                                                r.sequenceId(),
                                                r.step(),
                                                r.attempt(),
                                                r.outcome(),
                                                r.token(),
                                                r.mechanism(),
                                                r.privacyEvent(),
                                                Double.toString(r.noisyCount()))));
        records.stream()
                .sorted(Comparator.comparingLong(SyntheticRecord::sequenceId))
                .forEach(
                        r ->
                                lines.add(
                                        String.format(
                                                Locale.ROOT,
                                                "record %d %s %d %d %d %s %s %s",
                                                r.sequenceId(),
                                                Arrays.toString(r.tokens()),
                                                r.steps(),
                                                r.fails(),
                                                r.fallbacks(),
                                                r.finishReason(),
                                                r.label(),
                                                com.fasterxml.jackson.databind.node.TextNode
                                                        .valueOf(r.text())
                                                        .toString())));
        return String.join("\n", lines) + "\n";
    }
}
