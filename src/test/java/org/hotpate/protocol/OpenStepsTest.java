package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.Vote;
import org.junit.jupiter.api.Test;

class OpenStepsTest {
    private static final RunShape SHAPE =
            new RunShape("r", "ens", 1, 10, 1000, 10, 10, 10, EarlyStop.NONE);

    private static GenerationStep step(long seq, int pos, int attempt, long issuedAt) {
        return SHAPE.issue(seq, pos, attempt, new int[pos], new int[0], "", issuedAt);
    }

    private static void open(Map<String, GenerationStep> open, GenerationStep s, long retention) {
        OpenSteps.open(open.entrySet().iterator(), s, retention);
        open.put(StepId.keyOf(s), s);
    }

    @Test
    void aStepClosesWhenALaterStepOfItsSequenceOpens_orAfterTheRetention() {
        Map<String, GenerationStep> open = new LinkedHashMap<>();
        open(open, step(0, 0, 0, 0), 60_000);
        open(open, step(1, 0, 0, 0), 60_000);
        open(open, step(0, 0, 1, 10), 60_000); // a new attempt of sequence 0
        assertThat(open).containsOnlyKeys("r/1/0/0", "r/0/0/1");
        open(open, step(0, 1, 0, 20_000), 60_000);
        assertThat(open).containsOnlyKeys("r/1/0/0", "r/0/1/0");
        open(open, step(2, 0, 0, 70_000), 60_000); // sequence 1's step is too old now
        assertThat(open).containsOnlyKeys("r/0/1/0", "r/2/0/0");
    }

    @Test
    void anAnswerToASupersededStepIsLate() {
        Map<String, GenerationStep> open = new LinkedHashMap<>();
        open(open, step(0, 2, 1, 0), 60_000);
        assertThat(OpenSteps.supersedingStep(open.entrySet(), new Vote("r", 0, 2, 0, 1, 3)))
                .isEqualTo(open.get("r/0/2/1"));
        assertThat(OpenSteps.supersedingStep(open.entrySet(), new Vote("r", 0, 3, 0, 1, 3)))
                .as("not issued yet: it may still open")
                .isNull();
        assertThat(OpenSteps.supersedingStep(open.entrySet(), new Vote("r", 1, 0, 0, 1, 3)))
                .isNull();
    }
}
