package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The streaming job's public step seeds (docs/shared-randomness.md §4, "Step seeds of a run"):
 * {@code SeedDerivation.stepSeed(sampler.seed, "<runId>/<sequenceId>", step, attempt)}. Known
 * answers from the Python reference of docs/shared-randomness.md §7. A re-run of the same spec (a
 * new run id) draws fresh shared randomness — before issue 10 the run id was not part of the seed
 * and a re-run repeated every seed.
 */
class StepSeedTest {
    @Test
    void stepSeedsOfARun_matchThePythonReference() {
        String run = "demo-20261123-101500-00ff";
        assertThat(CoreBindings.stepSeed(42, run, 0, 0, 0)).isEqualTo(0x55c4a7797112710cL);
        assertThat(CoreBindings.stepSeed(42, run, 0, 0, 1)).isEqualTo(0x4c4997841318c66dL);
        assertThat(CoreBindings.stepSeed(42, "demo-20261123-101501-1a2b", 0, 0, 0))
                .isEqualTo(0x4a0fb137f1ba203aL);
        assertThat(CoreBindings.stepSeed(11, "run-1", 3, 2, 1)).isEqualTo(4602650789489056444L);
    }

    @Test
    void aReRunOfTheSameSpecDrawsFreshSharedRandomness() {
        StepFactory a = new StepFactory("spec-20261123-101500-00ff", "ens", 42, 1050, 1000);
        StepFactory b = new StepFactory("spec-20261123-101501-1a2b", "ens", 42, 1050, 1000);
        for (int seq = 0; seq < 5; seq++) {
            for (int step = 0; step < 5; step++) {
                assertThat(a.seed(seq, step, 0)).isNotEqualTo(b.seed(seq, step, 0));
                assertThat(a.step(seq, step, 0, new int[step], 0).publicSeed())
                        .isEqualTo(a.seed(seq, step, 0));
            }
        }
    }
}
