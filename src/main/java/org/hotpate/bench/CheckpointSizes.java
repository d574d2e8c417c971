package org.hotpate.bench;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.streaming.api.graph.StreamGraphHasherV2;

/**
 * The state size of each operator in a job's latest completed checkpoint, read from the
 * checkpoint's {@code _metadata} with Flink's own loader. For RocksDB with incremental checkpoints
 * an operator's size is the full size of the SST files its checkpoint references (Flink's {@code
 * getStateSize}: what a restore would read, compressed as RocksDB stores it), not only the
 * increment. Operators are named by their uid: Flink derives an operator's id from its uid by a
 * fixed hash, so the uids the topology declares ({@link #KNOWN_UIDS}; others appear as {@code
 * operator-<id>}) are recognised without access to the job graph.
 */
final class CheckpointSizes {
    /** The uids of today's topology and likely successors; unknown operators still get a line. */
    static final List<String> KNOWN_UIDS =
            List.of(
                    "steps-source",
                    "distributions-source",
                    "decode-steps",
                    "decode-distributions",
                    "vote",
                    "reduce",
                    "accountant",
                    "sequence-loop",
                    "start-sequences",
                    "first-steps",
                    "encode-steps",
                    "encode-results",
                    "encode-records",
                    "encode-ledger",
                    "encode-rejected",
                    "kafka-sink",
                    "records-source",
                    "decode-records",
                    "teachers");

    private CheckpointSizes() {}

    /** A checkpoint's operator sizes (bytes; operators with no state left out) and its number. */
    record Sizes(long checkpointId, Map<String, Long> bytesByOperator) {
        long total() {
            return bytesByOperator.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * The latest completed checkpoint under {@code root} (any {@code <job-id>/chk-N/_metadata}), or
     * empty when there is none yet. Checkpoints that Flink deletes while this reads are skipped.
     */
    static Optional<Sizes> latest(Path root) {
        // Flink retains one checkpoint and deletes it when the next completes (every few hundred
        // ms in the tests): a walk can list only checkpoints deleted before they are read, so walk
        // again a few times before saying there is none.
        for (int attempt = 0; attempt < 20; attempt++) {
            Optional<Sizes> s = latestOnce(root);
            if (s.isPresent()) {
                return s;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return Optional.empty();
    }

    private static Optional<Sizes> latestOnce(Path root) {
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        List<Path> candidates;
        try (Stream<Path> s = Files.walk(root, 3)) {
            candidates =
                    s.filter(p -> p.getFileName().toString().equals("_metadata"))
                            .filter(p -> p.getParent().getFileName().toString().startsWith("chk-"))
                            .sorted(Comparator.comparingLong(CheckpointSizes::number).reversed())
                            .toList();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        for (Path metadata : candidates) {
            try {
                return Optional.of(read(metadata));
            } catch (IOException | RuntimeException e) {
                // subsumed and deleted under us: try the previous one
            }
        }
        return Optional.empty();
    }

    static Sizes read(Path metadata) throws IOException {
        CheckpointMetadata m;
        try (InputStream in = Files.newInputStream(metadata)) {
            m =
                    Checkpoints.loadCheckpointMetadata(
                            new DataInputStream(in),
                            CheckpointSizes.class.getClassLoader(),
                            metadata.getParent().toString());
        }
        Map<OperatorID, String> names = new HashMap<>();
        for (String uid : KNOWN_UIDS) {
            names.put(new OperatorID(StreamGraphHasherV2.generateUserSpecifiedHash(uid)), uid);
        }
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (OperatorState op : m.getOperatorStates()) {
            long bytes = op.getStateSize();
            if (bytes <= 0) {
                continue;
            }
            String name =
                    op.getOperatorUid()
                            .or(() -> Optional.ofNullable(names.get(op.getOperatorID())))
                            .orElse("operator-" + op.getOperatorID().toHexString().substring(0, 8));
            sizes.merge(name, bytes, Long::sum);
        }
        return new Sizes(m.getCheckpointId(), sizes);
    }

    private static long number(Path metadata) {
        try {
            return Long.parseLong(metadata.getParent().getFileName().toString().substring(4));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
