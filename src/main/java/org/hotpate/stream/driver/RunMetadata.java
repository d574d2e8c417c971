package org.hotpate.stream.driver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What a resumed run must keep from the run it continues: its run id (operators filter by it and
 * keep their state under it; the sink's transactional ids derive from it), when it started (the
 * driver follows the outputs from then on, so records finished before the stop are in the resumed
 * run's outputs), and the distributions offset it started at (for the summary's rate).
 *
 * <p>Written as {@code hotpate-run.json} next to the job's retained checkpoints ({@code
 * <state-dir>/<job-id>/}) when the run starts and into the savepoint directory when the driver
 * stops the run with a savepoint, so {@code --from-savepoint PATH} finds it for either.
 */
public record RunMetadata(
        String runId,
        long startMs,
        long distributionsAtStart,
        String account,
        long ledgerReleases,
        double[] ledgerRdp) {
    static final String FILE = "hotpate-run.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A run's metadata without a ledger state (at its start, or named by --run-id). */
    public RunMetadata(String runId, long startMs, long distributionsAtStart) {
        this(runId, startMs, distributionsAtStart, null, -1, null);
    }

    /**
     * This metadata with the run's ledger account and its entry as the ledger held it when the run
     * stopped with a savepoint ({@code entry} null: nothing released yet).
     */
    public RunMetadata atSavepoint(String account, org.hotpate.model.BudgetRecord entry) {
        return new RunMetadata(
                runId,
                startMs,
                distributionsAtStart,
                account,
                entry == null ? 0 : entry.releases(),
                entry == null ? new double[0] : entry.rdp().clone());
    }

    /**
     * Whether the snapshot this metadata describes covers {@code entry}, the run's ledger entry
     * now: the entry holds no more releases and no more RDP at any order than when the run stopped.
     * Unknown (a retained checkpoint, no recorded state): false.
     */
    public boolean coversLedger(org.hotpate.model.BudgetRecord entry) {
        return snapshot().covers(entry);
    }

    /** The ledger state this snapshot recorded, as the admission reads it. */
    public org.hotpate.protocol.DatasetAdmission.Snapshot snapshot() {
        return new org.hotpate.protocol.DatasetAdmission.Snapshot(
                account, ledgerReleases, ledgerRdp);
    }

    /** Writes {@code dir/hotpate-run.json} when {@code dir} is a local path or file: URI. */
    void writeInto(String dirUri) {
        localPath(dirUri)
                .ifPresent(
                        dir -> {
                            try {
                                Files.createDirectories(dir);
                                JSON.writerWithDefaultPrettyPrinter()
                                        .writeValue(dir.resolve(FILE).toFile(), this);
                            } catch (IOException e) {
                                // best effort: --run-id still resumes without it
                            }
                        });
    }

    /**
     * The metadata for a savepoint or retained checkpoint ({@code .../<job-id>/chk-N}): in the
     * directory itself or its parent.
     */
    public static Optional<RunMetadata> find(String savepointUri) {
        Optional<Path> dir = localPath(savepointUri);
        if (dir.isEmpty()) {
            return Optional.empty();
        }
        for (Path d : new Path[] {dir.get(), dir.get().getParent()}) {
            Path f = d == null ? null : d.resolve(FILE);
            if (f == null) {
                continue;
            }
            if (Files.isRegularFile(f)) {
                try {
                    JsonNode n = JSON.readTree(f.toFile());
                    double[] rdp = null;
                    if (n.path("ledgerRdp").isArray()) {
                        rdp = new double[n.get("ledgerRdp").size()];
                        for (int i = 0; i < rdp.length; i++) {
                            rdp[i] = n.get("ledgerRdp").get(i).asDouble();
                        }
                    }
                    return Optional.of(
                            new RunMetadata(
                                    n.get("runId").asText(),
                                    n.get("startMs").asLong(),
                                    n.path("distributionsAtStart").asLong(),
                                    n.hasNonNull("account") ? n.get("account").asText() : null,
                                    n.path("ledgerReleases").asLong(-1),
                                    rdp));
                } catch (IOException | RuntimeException e) {
                    return Optional.empty();
                }
            }
        }
        return Optional.empty();
    }

    /** A local directory for a plain path or a {@code file:} URI; empty for other schemes. */
    public static Optional<Path> localPath(String dirUri) {
        if (dirUri == null || dirUri.isBlank()) {
            return Optional.empty();
        }
        if (dirUri.startsWith("file:")) {
            return Optional.of(Path.of(URI.create(dirUri)));
        }
        if (dirUri.matches("^[a-zA-Z][a-zA-Z0-9+.-]*://.*")) {
            return Optional.empty(); // s3://, hdfs://: not written from here
        }
        return Optional.of(Path.of(dirUri).toAbsolutePath());
    }
}
