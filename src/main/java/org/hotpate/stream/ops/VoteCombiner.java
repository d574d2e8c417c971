package org.hotpate.stream.ops;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.hotpate.model.Vote;
import org.hotpate.model.VoteBatch;

/**
 * Pre-aggregates votes per step on each subtask before they are shuffled to the step reducer (issue
 * 12): the reducer then touches its RocksDB state once per batch, not once per vote.
 *
 * <p>Batches live on the heap only between checkpoints: every buffered vote is flushed at {@link
 * #prepareSnapshotPreBarrier} — before the barrier passes downstream — so a checkpoint never holds
 * a vote inside this operator and the operator needs no state (exactly-once is unchanged: a vote is
 * either before the barrier in the reducer's state or after it in the replayed input). Between
 * checkpoints a step's batch leaves when it holds {@code maxBatch} votes, and all batches leave
 * every {@code flushMs} of processing time (so a step can close before the next checkpoint), and at
 * the end of input. Chained with the operator that makes the votes, so votes are never serialized
 * one by one.
 */
public final class VoteCombiner extends AbstractStreamOperator<VoteBatch>
        implements OneInputStreamOperator<Vote, VoteBatch> {
    private static final long serialVersionUID = 1L;

    private final int maxBatch;
    private final long flushMs;
    private transient Map<StepId, Buffer> buffers;

    /** A step, without building its string key per vote. */
    private record StepId(String runId, long sequenceId, int step, int attempt) {}

    private static final class Buffer {
        long[] teachers = new long[64];
        int[] tokens = new int[64];
        int size;

        void add(long teacher, int token) {
            if (size == teachers.length) {
                teachers = java.util.Arrays.copyOf(teachers, size * 2);
                tokens = java.util.Arrays.copyOf(tokens, size * 2);
            }
            teachers[size] = teacher;
            tokens[size] = token;
            size++;
        }
    }

    public VoteCombiner(int maxBatch, long flushMs) {
        if (maxBatch < 1 || flushMs < 1) {
            throw new IllegalArgumentException(
                    "maxBatch and flushMs must be >= 1; got " + maxBatch + " and " + flushMs);
        }
        this.maxBatch = maxBatch;
        this.flushMs = flushMs;
    }

    @Override
    public void open() throws Exception {
        super.open();
        buffers = new HashMap<>();
        scheduleFlush();
    }

    private void scheduleFlush() {
        long next = getProcessingTimeService().getCurrentProcessingTime() + flushMs;
        getProcessingTimeService()
                .registerTimer(
                        next,
                        ts -> {
                            flushAll();
                            scheduleFlush();
                        });
    }

    @Override
    public void processElement(StreamRecord<Vote> record) {
        Vote v = record.getValue();
        StepId id = new StepId(v.runId(), v.sequenceId(), v.step(), v.attempt());
        Buffer b = buffers.computeIfAbsent(id, k -> new Buffer());
        b.add(v.teacherId(), v.token());
        if (b.size >= maxBatch) {
            emit(id, b);
            buffers.remove(id);
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        flushAll();
    }

    @Override
    public void finish() throws Exception {
        flushAll();
        super.finish();
    }

    private void flushAll() {
        if (buffers.isEmpty()) {
            return;
        }
        for (Map.Entry<StepId, Buffer> e : buffers.entrySet()) {
            emit(e.getKey(), e.getValue());
        }
        buffers.clear();
    }

    private void emit(StepId id, Buffer b) {
        output.collect(
                new StreamRecord<>(
                        new VoteBatch(
                                id.runId(),
                                id.sequenceId(),
                                id.step(),
                                id.attempt(),
                                java.util.Arrays.copyOf(b.teachers, b.size),
                                java.util.Arrays.copyOf(b.tokens, b.size))));
    }
}
