package org.hotpate.teachers;

import static org.assertj.core.api.Assertions.assertThat;

import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.Sampler;
import org.hotpate.core.sampling.Samplers;
import org.junit.jupiter.api.Test;

class SimulatedTeachersTest {
    private static final int LLAMA = 128_256;

    @Test
    void shifted_answersAsTeacherModDistinct_withEveryIdMovedUp() {
        SimulatedTeachers base = SimulatedTeachers.planetZ(1, 20, 10);
        SimulatedTeachers shifted = base.shifted(LLAMA - PlanetZEnsemble.VOCABULARY_SIZE, 10);
        assertThat(shifted.vocabularySize()).isEqualTo(LLAMA);
        for (int i : new int[] {0, 3, 13, 27}) {
            var p = shifted.teacher(i);
            var q = base.teacher(i % 10);
            assertThat(p.size()).isEqualTo(q.size());
            for (int j = 0; j < p.size(); j++) {
                assertThat(p.tokenAt(j)).isEqualTo(q.tokenAt(j) + LLAMA - 1_050);
                assertThat(p.probAt(j)).isEqualTo(q.probAt(j));
            }
        }
    }

    @Test
    void rankedTeachers_voteAsTheCoordinatedSamplerOnTheirDistributions() {
        Sampler coord = Samplers.coordinated();
        SimulatedTeachers shifted =
                SimulatedTeachers.planetZ(1, 20, 50)
                        .shifted(LLAMA - PlanetZEnsemble.VOCABULARY_SIZE, 50);
        SimulatedTeachers plain = SimulatedTeachers.planetZ(4, 20, 50);
        TeacherAnswers answers =
                new TeacherAnswers(shifted, TeacherAnswers.Form.MODEL_VOTE, 0, 0, coord);
        for (long step = 0; step < 25; step++) {
            // the worker's table covers only the shifted ids; votes must not depend on it
            StepRandomness big = answers.stepRandomness(1_000 + step, LLAMA);
            assertThat(big.firstToken()).isEqualTo(LLAMA - PlanetZEnsemble.VOCABULARY_SIZE);
            StepRandomness full = StepRandomness.forStep(1_000 + step, LLAMA);
            StepRandomness small = StepRandomness.forStep(2_000 + step, 1_050);
            for (int i = 0; i < 100; i++) {
                long key = SeedDerivation.teacherKey(i);
                assertThat(shifted.ranked(i).coordinatedVote(big, key))
                        .isEqualTo(coord.vote(shifted.teacher(i), full, key));
                assertThat(plain.ranked(i).coordinatedVote(small, key))
                        .isEqualTo(coord.vote(plain.teacher(i), small, key));
            }
        }
    }

    @Test
    void modelVoteAnswers_areTheCoordinatedSamplersVotes() {
        SimulatedTeachers t = SimulatedTeachers.planetZ(2, 20, 30);
        TeacherAnswers coordinated =
                new TeacherAnswers(t, TeacherAnswers.Form.MODEL_VOTE, 0, 0, Samplers.coordinated());
        TeacherAnswers independent =
                new TeacherAnswers(t, TeacherAnswers.Form.MODEL_VOTE, 0, 0, Samplers.independent());
        StepRandomness r = StepRandomness.forStep(77, 1_050);
        for (int i = 0; i < 30; i++) {
            long key = SeedDerivation.teacherKey(i);
            assertThat(coordinated.answer(i, 77, r).vote())
                    .isEqualTo(Samplers.coordinated().vote(t.teacher(i), r, key));
            assertThat(independent.answer(i, 77, r).vote())
                    .isEqualTo(Samplers.independent().vote(t.teacher(i), r, key));
        }
    }
}
