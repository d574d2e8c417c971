package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.io.Serializable;

/**
 * The identity of one sequence of a run, and the one place that formats and parses its key {@code
 * <runId>/<sequence>} (the sequence loop's key, and the Kafka key of steps and results). The run id
 * may contain '/': the key is parsed from the right.
 */
public record SequenceId(String runId, long sequenceId) implements Serializable {
    private static final long serialVersionUID = 1L;

    public SequenceId {
        checkNotNull("runId", runId);
    }

    /** {@code <runId>/<sequence>}. */
    public String key() {
        return keyOf(runId, sequenceId);
    }

    /** The key of sequence {@code sequenceId} of run {@code runId}. */
    public static String keyOf(String runId, long sequenceId) {
        return runId + '/' + sequenceId;
    }

    /** The sequence a key names: the last '/'-separated field is the sequence number. */
    public static SequenceId parse(String key) {
        checkNotNull("key", key);
        int i = key.lastIndexOf('/');
        checkArgument(i > 0, "a sequence key is <run>/<sequence>; got '" + key + "'");
        try {
            return new SequenceId(key.substring(0, i), Long.parseLong(key.substring(i + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "a sequence key is <run>/<sequence>; got '" + key + "'");
        }
    }

    /** Position {@code step}, attempt {@code attempt} of this sequence. */
    public StepId step(int step, int attempt) {
        return new StepId(runId, sequenceId, step, attempt);
    }

    @Override
    public String toString() {
        return key();
    }
}
