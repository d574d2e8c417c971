package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.hotpate.cli.Main;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.DatasetLock;
import org.hotpate.model.BudgetRecord;
import org.hotpate.protocol.LocalHold;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.DatasetLedger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31 on the embedded default: {@code kill -9} of a {@code ./hotpate run} driver (its
 * in-process broker and MiniCluster die with it). What the driver saw released before the kill is
 * in the dataset's ledger, because the job itself wrote it (the accountant's write-ahead at each
 * checkpoint, before the releases commit) — the driver writes no entry. And the dataset is free
 * again: an embedded job ends with its driver, so the lock file's record (no cluster job) does not
 * hold it.
 */
class DriverKillITCase {
    @TempDir static Path work;

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void whatAnEmbeddedRunReleasedBeforeKillMinus9IsInTheLedgerAndTheDatasetIsFree()
            throws Exception {
        Path ledger = work.resolve("ledger");
        String yaml =
                """
                name: killed
                ensemble: {id: killed-pz, teachers: 20, source: planet-z, k: 3, seed: 5, top-k: 32}
                sampler: {type: coordinated, seed: 11}
                mechanism: {name: confident-gnmax, params: {sigma1: 10, threshold: 6, sigma2: 10}}
                budget: {epsilon: 50.0, delta: 1.0e-6, dataset: killed-x, ledger-dir: "%s"}
                generation: {sequences: 400, concurrency: 4, max-steps: 4, max-attempts: 3, step-deadline-ms: 3000}
                flink: {parallelism: 2, checkpoint-interval-ms: 300}
                output: {dir: "%s"}
                """
                        .formatted(ledger, work.resolve("out"));
        Path spec = work.resolve("killed.yaml");
        Files.writeString(spec, yaml);
        Path err = work.resolve("driver.err");
        Process driver =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-Xmx768m",
                                "-cp",
                                System.getProperty("java.class.path"),
                                Main.class.getName(),
                                "run",
                                spec.toString())
                        .redirectOutput(work.resolve("driver.out").toFile())
                        .redirectError(err.toFile())
                        .start();
        long seen;
        try {
            long deadline = System.currentTimeMillis() + 150_000;
            while ((seen = tokensShown(err)) < 5 && System.currentTimeMillis() < deadline) {
                assertThat(driver.isAlive()).as(Files.readString(err)).isTrue();
                Thread.sleep(200);
            }
            seen = tokensShown(err); // what the driver read committed, shown before the kill
            assertThat(seen).as(Files.readString(err)).isGreaterThanOrEqualTo(5);
        } finally {
            driver.destroyForcibly(); // kill -9: no cancel, no end-of-run read, no cleanup
            driver.waitFor(30, TimeUnit.SECONDS);
        }
        List<BudgetRecord> entries = BudgetLedgerIo.readLocal(ledger, "killed-x");
        assertThat(entries).hasSize(1);
        assertThat(entries.get(0).releases())
                .as("every token the driver saw committed was charged in the job's own entry")
                .isGreaterThanOrEqualTo(seen);
        assertThat(entries.get(0).epsilon()).isPositive();

        String record = DatasetLock.holderRecord(ledger, "killed-x");
        assertThat(LocalHold.Holder.parse(record))
                .as(record)
                .hasValueSatisfying(
                        h -> {
                            assertThat(h.runId()).isEqualTo(entries.get(0).runId());
                            assertThat(h.onCluster()).isFalse();
                        });
        JobConfig cfg = JobSpec.load(spec);
        try (DatasetLedger free = DatasetLedger.open(cfg, null)) {
            assertThat(free.records()).hasSize(1); // a later run composes with the killed one
        }
    }

    /** The largest "N tokens" of the driver's progress lines so far. */
    private static long tokensShown(Path err) throws java.io.IOException {
        Matcher m = Pattern.compile("\\| (\\d+) tokens \\|").matcher(Files.readString(err));
        long max = 0;
        while (m.find()) {
            max = Math.max(max, Long.parseLong(m.group(1)));
        }
        return max;
    }
}
