package org.hotpate.stream.ops;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.TimerService;
import org.hotpate.model.VoteBatch;
import org.hotpate.protocol.StepTally;

/**
 * A step's keyed state in the reducer while it is open: {@code step-vote-batches} (packed votes,
 * one append per batch), {@code step-vote-count}, {@code step-seen} (the step itself arrived) and
 * {@code step-deadline} (its timer) — all cleared when the step closes — and whether it closed:
 * {@code step-release} (the candidate) or {@code step-abandoned}, kept until the retention timer so
 * that late or replayed votes never cause a second release.
 */
final class OpenStepState {
    ListState<long[]> votes;
    private ValueState<Boolean> seen;
    private ValueState<Integer> count;
    private ValueState<Long> deadline;
    ValueState<org.hotpate.model.ReleaseCandidate> released;
    ValueState<Boolean> abandoned;

    void open(RuntimeContext rc) {
        votes =
                rc.getListState(
                        new ListStateDescriptor<>(
                                "step-vote-batches",
                                PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        seen = rc.getState(new ValueStateDescriptor<>("step-seen", Types.BOOLEAN));
        count = rc.getState(new ValueStateDescriptor<>("step-vote-count", Types.INT));
        deadline = rc.getState(new ValueStateDescriptor<>("step-deadline", Types.LONG));
        released =
                rc.getState(
                        new ValueStateDescriptor<>(
                                "step-release",
                                Types.POJO(org.hotpate.model.ReleaseCandidate.class)));
        abandoned = rc.getState(new ValueStateDescriptor<>("step-abandoned", Types.BOOLEAN));
    }

    boolean closed() throws Exception {
        return released.value() != null || Boolean.TRUE.equals(abandoned.value());
    }

    /** Appends a batch (RocksDB merges it without reading the list); the votes so far. */
    int add(VoteBatch batch) throws Exception {
        votes.add(StepTally.pack(batch));
        int n = votes() + batch.size();
        count.update(n);
        return n;
    }

    int votes() throws Exception {
        return count.value() == null ? 0 : count.value();
    }

    boolean seen() throws Exception {
        return Boolean.TRUE.equals(seen.value());
    }

    void markSeen() throws Exception {
        seen.update(Boolean.TRUE);
    }

    /** Arms the step's deadline once (its first vote or its arrival); whether it armed now. */
    boolean armDeadline(TimerService timers, long deadlineMs) throws Exception {
        if (deadline.value() != null) {
            return false;
        }
        long t = timers.currentProcessingTime() + deadlineMs;
        deadline.update(t);
        timers.registerProcessingTimeTimer(t);
        return true;
    }

    /** Moves the step's deadline to {@code deadlineMs} from now (the old timer has fired). */
    void rearmDeadline(TimerService timers, long deadlineMs) throws Exception {
        long t = timers.currentProcessingTime() + deadlineMs;
        deadline.update(t);
        timers.registerProcessingTimeTimer(t);
    }

    /** Whether {@code ts} is the step's deadline (or past it). */
    boolean due(long ts) throws Exception {
        return deadline.value() != null && ts >= deadline.value();
    }

    /** Forgets the open step (its votes and deadline timer); the closed markers stay. */
    void clearOpen(TimerService timers) throws Exception {
        if (deadline.value() != null) {
            timers.deleteProcessingTimeTimer(deadline.value());
        }
        votes.clear();
        count.clear();
        deadline.clear();
        seen.clear();
    }

    /** Retention over: forgets the closed step. */
    void forget() {
        released.clear();
        abandoned.clear();
    }
}
