package org.hotpate.stream.ops;

import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.Vote;

/** The vote operator in Flink's keyed-broadcast harness (one subtask), opened from a snapshot. */
final class VoteOperatorHarness {
    private VoteOperatorHarness() {}

    /** Opens {@code op}, restored from {@code restore} unless it is null. */
    static KeyedBroadcastOperatorTestHarness<Long, VoteOperator.Input, GenerationStep, Vote> open(
            VoteOperator op, OperatorSubtaskState restore) throws Exception {
        KeyedBroadcastOperatorTestHarness<Long, VoteOperator.Input, GenerationStep, Vote> h =
                new KeyedBroadcastOperatorTestHarness<>(
                        new CoBroadcastWithKeyedOperator<>(op, List.of(VoteOperator.OPEN_STEPS)),
                        VoteOperator.Input::teacherId,
                        Types.LONG,
                        1,
                        1,
                        0);
        if (restore != null) {
            h.initializeState(restore);
        }
        h.open();
        return h;
    }
}
