package org.hotpate.stream.ops;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Write-ahead of the local durable ledger: the latest entry per key since the last checkpoint,
 * written by {@link #flush} from the operator's {@code snapshotState} — before the checkpoint
 * completes, hence before the Kafka transaction holding the releases the entries cover commits. A
 * failed write fails the checkpoint, so nothing it covers is ever committed. Heap only: after a
 * failure the replay produces the entries again.
 */
final class WriteAhead<K, V> {
    /** Writes one entry (a file write that may fail). */
    @FunctionalInterface
    interface Writer<V> {
        void write(V entry) throws Exception;
    }

    private final Map<K, V> unsaved = new LinkedHashMap<>();

    void put(K key, V entry) {
        unsaved.put(key, entry);
    }

    /**
     * Writes every entry since the last flush (none without a local ledger: {@code writer} null).
     */
    void flush(Writer<V> writer) throws Exception {
        if (writer != null) {
            for (V v : unsaved.values()) {
                writer.write(v);
            }
        }
        unsaved.clear();
    }
}
