package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.hotpate.model.Vote;
import org.junit.jupiter.api.Test;

class StepIdTest {

    @Test
    void keyIsRunSequencePositionAttempt_andParsesBack() {
        StepId id = new StepId("demo-20261123-101500-00ff", 3, 2, 1);
        assertThat(id.key()).isEqualTo("demo-20261123-101500-00ff/3/2/1");
        assertThat(StepId.parse(id.key())).isEqualTo(id);
        assertThat(StepId.keyOf(new Vote(id.runId(), 3, 2, 1, 7, 4))).isEqualTo(id.key());
        assertThat(StepId.of(new Vote(id.runId(), 3, 2, 1, 7, 4))).isEqualTo(id);
    }

    /** The code before StepId cut a key at its first '/': a run id with '/' lost its tail. */
    @Test
    void aRunIdWithSlashesParsesBackWhole() {
        StepId id = new StepId("team/a/run-7", 12, 0, 4);
        assertThat(StepId.parse(id.key())).isEqualTo(id);
        SequenceId seq = new SequenceId("team/a/run-7", 12);
        assertThat(SequenceId.parse(seq.key())).isEqualTo(seq);
        assertThat(id.sequence()).isEqualTo(seq);
        assertThat(seq.step(0, 4)).isEqualTo(id);
    }

    @Test
    void malformedKeysAreRefusedNamingTheKey() {
        for (String bad : new String[] {"run/1/2", "1/2/3", "run/x/2/3", "run/1/2/3.5", ""}) {
            assertThatThrownBy(() -> StepId.parse(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + bad + "'");
        }
        assertThatThrownBy(() -> SequenceId.parse("run"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SequenceId.parse("run/x"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLaterPositionOrAttemptOfTheSameSequenceSupersedes() {
        StepId s = new StepId("r", 0, 2, 1);
        assertThat(new StepId("r", 0, 3, 0).supersedes(s)).isTrue();
        assertThat(new StepId("r", 0, 2, 2).supersedes(s)).isTrue();
        assertThat(s.supersedes(s)).isFalse();
        assertThat(new StepId("r", 0, 2, 0).supersedes(s)).isFalse();
        assertThat(new StepId("r", 0, 1, 9).supersedes(s)).isFalse();
        assertThat(new StepId("r", 1, 9, 9).supersedes(s)).as("another sequence").isFalse();
        assertThat(new StepId("q", 0, 9, 9).supersedes(s)).as("another run").isFalse();
    }
}
