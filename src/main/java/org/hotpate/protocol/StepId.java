package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.io.Serializable;
import org.hotpate.model.StepRef;

/**
 * The identity of one step of a run: run id, sequence, position and attempt — and the one place
 * that formats and parses its key {@code <runId>/<sequence>/<position>/<attempt>} (the key the
 * reducer's state, the vote operator's dedupe and the open-steps broadcast are keyed by).
 *
 * <p>A run id may contain '/' (it is a user-chosen name plus a timestamp): the key is parsed from
 * the right, the last three fields being numbers, so {@code parse(key()) == this} for every run id.
 *
 * <p>The superseding rule: a step of the same run and sequence at a later position, or at the same
 * position with a later attempt, supersedes this one ({@link #supersedes}). An answer to a
 * superseded step is late: its sequence has moved on.
 */
public record StepId(String runId, long sequenceId, int step, int attempt)
        implements StepRef, Serializable {
    private static final long serialVersionUID = 1L;

    public StepId {
        checkNotNull("runId", runId);
    }

    /** The identity of the step {@code ref} belongs to. */
    public static StepId of(StepRef ref) {
        return ref instanceof StepId id
                ? id
                : new StepId(ref.runId(), ref.sequenceId(), ref.step(), ref.attempt());
    }

    /** The key of the step {@code ref} belongs to (without building a {@code StepId}). */
    public static String keyOf(StepRef ref) {
        return ref.runId() + '/' + ref.sequenceId() + '/' + ref.step() + '/' + ref.attempt();
    }

    /** {@code <runId>/<sequence>/<position>/<attempt>}. */
    public String key() {
        return keyOf(this);
    }

    /**
     * The step a key names: the last three '/'-separated fields are the sequence, position and
     * attempt, everything before them the run id (which may contain '/').
     */
    public static StepId parse(String key) {
        checkNotNull("key", key);
        int c = key.lastIndexOf('/');
        int b = c > 0 ? key.lastIndexOf('/', c - 1) : -1;
        int a = b > 0 ? key.lastIndexOf('/', b - 1) : -1;
        checkArgument(
                a > 0, "a step key is <run>/<sequence>/<position>/<attempt>; got '" + key + "'");
        try {
            return new StepId(
                    key.substring(0, a),
                    Long.parseLong(key.substring(a + 1, b)),
                    Integer.parseInt(key.substring(b + 1, c)),
                    Integer.parseInt(key.substring(c + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "a step key is <run>/<sequence>/<position>/<attempt>; got '" + key + "'");
        }
    }

    /** The sequence this step belongs to. */
    public SequenceId sequence() {
        return new SequenceId(runId, sequenceId);
    }

    /**
     * Whether this step replaces {@code other}: same run and sequence, and a later position, or the
     * same position with a later attempt. An answer to a superseded step is late.
     */
    public boolean supersedes(StepRef other) {
        return runId.equals(other.runId())
                && sequenceId == other.sequenceId()
                && (step > other.step() || (step == other.step() && attempt > other.attempt()));
    }

    @Override
    public String toString() {
        return key();
    }
}
