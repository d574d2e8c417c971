package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.hotpate.model.GenerationStep;
import org.junit.jupiter.api.Test;

/**
 * The run's one step-seed derivation (docs/shared-randomness.md §4, "Step seeds of a run"): {@code
 * SeedDerivation.stepSeed(sampler.seed, "<runId>/<sequenceId>", step, attempt)}, with known answers
 * from the Python reference of §7, and which steps are the run's own.
 */
class RunShapeTest {
    private static RunShape shape(String run, long seed) {
        return new RunShape(run, "ens", seed, 1050, 1000, 4, 8, 3, EarlyStop.NONE);
    }

    @Test
    void stepSeedsOfARun_matchThePythonReference() {
        RunShape a = shape("demo-20261123-101500-00ff", 42);
        assertThat(a.seed(0, 0, 0)).isEqualTo(0x55c4a7797112710cL);
        assertThat(a.seed(0, 0, 1)).isEqualTo(0x4c4997841318c66dL);
        assertThat(shape("demo-20261123-101501-1a2b", 42).seed(0, 0, 0))
                .isEqualTo(0x4a0fb137f1ba203aL);
        assertThat(shape("run-1", 11).seed(3, 2, 1)).isEqualTo(4602650789489056444L);
    }

    /**
     * A re-run of the same spec (a new run id) draws fresh shared randomness — before issue 10 the
     * run id was not part of the seed and a re-run repeated every seed — and an issued step carries
     * exactly the derived seed.
     */
    @Test
    void aReRunDrawsFreshSharedRandomness_andIssuedStepsCarryTheDerivedSeed() {
        RunShape a = shape("spec-20261123-101500-00ff", 42);
        RunShape b = shape("spec-20261123-101501-1a2b", 42);
        for (int seq = 0; seq < 4; seq++) {
            for (int step = 0; step < 5; step++) {
                assertThat(a.seed(seq, step, 0)).isNotEqualTo(b.seed(seq, step, 0));
                GenerationStep s = a.issue(seq, step, 0, new int[step], new int[0], "", 100);
                assertThat(s.publicSeed()).isEqualTo(a.seed(seq, step, 0));
                assertThat(s.randomnessVersion()).isEqualTo(RunShape.RANDOMNESS_VERSION);
                assertThat(s.deadlineMs()).isEqualTo(1100);
                assertThat(a.problem(s)).isNull();
            }
        }
    }

    @Test
    void containsOnlyStepsWithinTheRunsBounds() {
        RunShape s = shape("r", 1);
        assertThat(s.contains(new StepId("r", 3, 7, 2))).isTrue();
        assertThat(s.contains(new StepId("r", 4, 0, 0))).isFalse();
        assertThat(s.contains(new StepId("r", 0, 8, 0))).isFalse();
        assertThat(s.contains(new StepId("r", 0, 0, 3))).isFalse();
        assertThat(s.contains(new StepId("r", -1, 0, 0))).isFalse();
        assertThat(s.contains(new StepId("r", 0, -1, 0))).isFalse();
        assertThat(s.contains(new StepId("r", 0, 0, -1))).isFalse();
    }

    @Test
    void aStepTheRunDidNotIssueHasAProblem() {
        RunShape s = shape("r", 1);
        int v = RunShape.RANDOMNESS_VERSION;
        long seed = s.seed(0, 0, 0);
        assertThat(s.problem(step("ens", 0, 0, 0, seed, v, 2000))).contains("vocabulary size 2000");
        assertThat(s.problem(step("ens", 0, 0, 0, seed + 1, v, 1050))).contains("public seed");
        assertThat(s.problem(step("ens", 0, 0, 0, seed, v + 1, 1050)))
                .contains("randomness version");
        assertThat(s.problem(step("other", 0, 0, 0, seed, v, 1050))).contains("ensemble other");
        assertThat(s.problem(step("ens", 9, 0, 0, s.seed(9, 0, 0), v, 1050)))
                .contains("sequence 9");
        assertThat(s.problem(step("ens", 0, 8, 0, s.seed(0, 8, 0), v, 1050)))
                .contains("position 8");
        assertThat(s.problem(step("ens", 0, 0, 3, s.seed(0, 0, 3), v, 1050))).contains("attempt 3");
        GenerationStep noPrefix =
                new GenerationStep("r", "ens", 0, 1, 0, new int[0], s.seed(0, 1, 0), v, 1050, 0, 0);
        assertThat(s.problem(noPrefix)).contains("prefix length");
        GenerationStep badToken =
                new GenerationStep(
                        "r", "ens", 0, 1, 0, new int[] {1050}, s.seed(0, 1, 0), v, 1050, 0, 0);
        assertThat(s.problem(badToken)).contains("prefix token 1050");
    }

    private static GenerationStep step(
            String ensemble, long seq, int step, int attempt, long seed, int version, int vocab) {
        return new GenerationStep(
                "r", ensemble, seq, step, attempt, new int[step], seed, version, vocab, 0, 0);
    }
}
