package org.hotpate.stream.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.TimerService;
import org.hotpate.model.Vote;

/**
 * The vote operator's answers to steps that are not open yet ({@code pending-answers}, keyed by
 * teacher and step): retried every {@link #RETRY_MS} until their step opens, dead-lettered as
 * UNKNOWN_STEP once they waited a step deadline. An entry leaves when its step opens or at the
 * deadline.
 */
final class PendingAnswers {
    static final long RETRY_MS = 200;

    /** A vote waiting for its step, since when. */
    public record Pending(Vote vote, long since) {}

    /** Handles a pending vote if its step {@code key} is open now; whether it was. */
    @FunctionalInterface
    interface Opened {
        boolean handle(String key, Vote v) throws Exception;
    }

    /** A pending vote whose step {@code key} did not open within the deadline. */
    @FunctionalInterface
    interface Expired {
        void dropped(String key, Vote v);
    }

    private final long deadlineMs;
    private MapState<String, Pending> pending;

    PendingAnswers(long deadlineMs) {
        this.deadlineMs = deadlineMs;
    }

    void open(RuntimeContext rc) {
        pending =
                rc.getMapState(
                        new MapStateDescriptor<>(
                                "pending-answers", Types.STRING, Types.POJO(Pending.class)));
    }

    boolean contains(String key) throws Exception {
        return pending.contains(key);
    }

    /** Holds {@code v} for step {@code key} and arms a retry. */
    void hold(String key, Vote v, TimerService timers) throws Exception {
        long now = timers.currentProcessingTime();
        pending.put(key, new Pending(v, now));
        timers.registerProcessingTimeTimer(now + RETRY_MS);
    }

    /** At a retry timer: each pending vote opened, expired or still waiting (another retry). */
    void retry(long ts, TimerService timers, Opened opened, Expired expired) throws Exception {
        List<String> done = new ArrayList<>();
        boolean waiting = false;
        for (Map.Entry<String, Pending> e : pending.entries()) {
            Vote v = e.getValue().vote();
            if (opened.handle(e.getKey(), v)) {
                done.add(e.getKey());
            } else if (ts - e.getValue().since() >= deadlineMs) {
                expired.dropped(e.getKey(), v);
                done.add(e.getKey());
            } else {
                waiting = true;
            }
        }
        for (String k : done) {
            pending.remove(k);
        }
        if (waiting) {
            timers.registerProcessingTimeTimer(ts + RETRY_MS);
        }
    }
}
