package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class RunFollowerTest {
    @Test
    void progressLinePrintsTheBudgetRoundedUp() {
        // The budget is the guarantee: printed with fewer digits it must not read smaller.
        JobConfig cfg = JobSpec.parse("budget: {epsilon: 0.12341}", "x");
        RunFollower f =
                new RunFollower(
                        cfg,
                        "r",
                        System.currentTimeMillis(),
                        new Properties(),
                        new RunOutcome(
                                cfg.generation().sequences(),
                                cfg.generation().concurrency(),
                                false));
        assertThat(f.progressLine()).contains("ε 0.000/0.124 ");
    }
}
