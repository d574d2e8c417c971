package org.hotpate.stream.ops;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.TimerService;

/**
 * The sequence loop's watchdog (one per sequence, in the loop's keyed state {@code
 * sequence-watchdog}): it watches the step the sequence is waiting for and, when no result for it
 * arrived {@code timeoutMs} after it was issued — the step was abandoned below the quorum, or its
 * message was lost — lets the loop re-issue the position as attempt + 1 (a new public seed: a new
 * DP query, charged if released). After {@code maxReissues} consecutive re-issues without any
 * result the sequence finishes as NO_QUORUM. A step is watched from when the loop issues it, or —
 * for a sequence's first step, issued elsewhere — from when it is seen on the steps topic.
 *
 * <p>Clearing: the state is cleared when the sequence finishes; its timer is deleted when the
 * watched step changes.
 */
public final class SequenceWatchdog implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * The watched step: timer time, position, attempt, consecutive re-issues without a result, and
     * re-issues at this position (they do not count as ⊥ attempts).
     */
    public record Watch(long at, int step, int attempt, int consecutive, int reissuesHere) {}

    private final long timeoutMs;
    private transient ValueState<Watch> state;

    SequenceWatchdog(long timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    void open(RuntimeContext rc) {
        state =
                rc.getState(
                        new ValueStateDescriptor<>("sequence-watchdog", Types.POJO(Watch.class)));
    }

    /** Watches (step, attempt) from now on; a no-op if it is already watched. */
    void arm(TimerService timers, int step, int attempt) throws Exception {
        Watch w = state.value();
        if (w != null && w.step() == step && w.attempt() == attempt) {
            return;
        }
        set(timers, w, step, attempt, w == null ? 0 : w.consecutive(), reissuesAt(w, step));
    }

    /** Watches the re-issued (step, attempt): one more consecutive re-issue, one more here. */
    void reissued(TimerService timers, int step, int attempt) throws Exception {
        Watch w = state.value();
        set(
                timers,
                w,
                step,
                attempt,
                (w == null ? 0 : w.consecutive()) + 1,
                reissuesAt(w, step) + 1);
    }

    private void set(TimerService timers, Watch w, int step, int attempt, int consecutive, int here)
            throws Exception {
        if (w != null) {
            timers.deleteProcessingTimeTimer(w.at());
        }
        long at = timers.currentProcessingTime() + timeoutMs;
        state.update(new Watch(at, step, attempt, consecutive, here));
        timers.registerProcessingTimeTimer(at);
    }

    private static int reissuesAt(Watch w, int step) {
        return w != null && w.step() == step ? w.reissuesHere() : 0;
    }

    /** A result for the watched sequence arrived: the teachers are alive. */
    void answered() throws Exception {
        Watch w = state.value();
        if (w != null && w.consecutive() != 0) {
            state.update(new Watch(w.at(), w.step(), w.attempt(), 0, w.reissuesHere()));
        }
    }

    /** Watchdog re-issues at {@code step} so far (0 for another position). */
    int reissuesAt(int step) throws Exception {
        return reissuesAt(state.value(), step);
    }

    /** The watch whose timer fires at {@code ts}, or null (another timer of the key). */
    Watch due(long ts) throws Exception {
        Watch w = state.value();
        return w != null && w.at() == ts ? w : null;
    }

    /** Stops watching (the sequence finished). */
    void disarm(TimerService timers) throws Exception {
        Watch w = state.value();
        if (w != null) {
            timers.deleteProcessingTimeTimer(w.at());
            state.clear();
        }
    }
}
