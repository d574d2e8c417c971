package org.hotpate.stream.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.hotpate.model.Vote;
import org.hotpate.model.VoteBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The combiner never holds a vote across a checkpoint and never loses or duplicates one. */
class VoteCombinerTest {
    private OneInputStreamOperatorTestHarness<Vote, VoteBatch> h;

    private void open(int maxBatch, long flushMs) throws Exception {
        h = new OneInputStreamOperatorTestHarness<>(new VoteCombiner(maxBatch, flushMs));
        h.setProcessingTime(0);
        h.open();
    }

    @AfterEach
    void close() throws Exception {
        h.close();
    }

    private static Vote vote(long seq, long teacher, int token) {
        return new Vote("run", seq, 0, 0, teacher, token);
    }

    private List<Vote> flattened() {
        List<Vote> out = new ArrayList<>();
        for (VoteBatch b : h.extractOutputValues()) {
            for (int i = 0; i < b.size(); i++) {
                out.add(b.vote(i));
            }
        }
        return out;
    }

    @Test
    void flushesEverythingBeforeTheBarrierSoNoStateIsNeeded() throws Exception {
        open(1000, 60_000);
        h.processElement(vote(0, 1, 3), 0);
        h.processElement(vote(1, 2, 4), 0);
        h.processElement(vote(0, 3, -1), 0);
        assertThat(h.extractOutputValues()).isEmpty();
        h.prepareSnapshotPreBarrier(1);
        assertThat(h.extractOutputValues())
                .extracting(b -> org.hotpate.protocol.StepId.keyOf(b), VoteBatch::size)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("run/0/0/0", 2),
                        org.assertj.core.groups.Tuple.tuple("run/1/0/0", 1));
        assertThat(flattened())
                .containsExactlyInAnyOrder(vote(0, 1, 3), vote(1, 2, 4), vote(0, 3, -1));
        assertThat(h.snapshot(1, 0).getManagedOperatorState()).isEmpty();
    }

    @Test
    void aFullBatchLeavesAtOnceAndTheRestOnTheTimer() throws Exception {
        open(2, 20);
        h.processElement(vote(0, 1, 3), 0);
        h.processElement(vote(0, 2, 3), 0);
        assertThat(h.extractOutputValues()).hasSize(1);
        h.processElement(vote(0, 3, 5), 0);
        h.setProcessingTime(19);
        assertThat(h.extractOutputValues()).hasSize(1);
        h.setProcessingTime(20);
        assertThat(h.extractOutputValues()).hasSize(2);
        assertThat(flattened()).containsExactly(vote(0, 1, 3), vote(0, 2, 3), vote(0, 3, 5));
        h.processElement(vote(0, 4, 5), 25);
        h.setProcessingTime(40); // the timer keeps running
        assertThat(flattened()).hasSize(4);
    }

    @Test
    void flushesAtTheEndOfInput() throws Exception {
        open(1000, 60_000);
        h.processElement(vote(0, 1, 3), 0);
        h.getOneInputOperator().finish(); // the end of a bounded input
        assertThat(flattened()).containsExactly(vote(0, 1, 3));
    }
}
