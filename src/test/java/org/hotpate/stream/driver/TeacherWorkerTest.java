package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;

import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.PayloadKind;
import org.hotpate.protocol.RunShape;
import org.hotpate.protocol.Voter;
import org.hotpate.teachers.SimulatedTeachers;
import org.hotpate.teachers.TeacherAnswers;
import org.junit.jupiter.api.Test;

/** The worker's four payload forms are valid answers, and its model-side votes match the job's. */
class TeacherWorkerTest {
    private static final SimulatedTeachers TEACHERS = SimulatedTeachers.planetZ(1, 20, 50);

    private static TeacherWorker worker(PayloadKind kind, int topK) {
        return new TeacherWorker(
                new TeacherWorker.Settings("unused:1", "s", "d", "ens", null, 0, 50),
                new TeacherAnswers(
                        TEACHERS,
                        TeacherAnswers.Form.valueOf(kind.name()),
                        topK,
                        16,
                        Samplers.coordinated()));
    }

    private static GenerationStep step(int s) {
        return new GenerationStep(
                "r",
                "ens",
                0,
                s,
                0,
                new int[0],
                new RunShape(
                                "r",
                                "ens",
                                42,
                                1050,
                                1000,
                                1,
                                100,
                                1,
                                org.hotpate.protocol.EarlyStop.NONE)
                        .seed(0, s, 0),
                RunShape.RANDOMNESS_VERSION,
                1050,
                0,
                0);
    }

    @Test
    void sparseAnswersCarryTheTeachersDistributionOrItsTopK() {
        Distribution full = worker(PayloadKind.SPARSE, 0).distribution(step(0), 3, null);
        assertThat(full.toCore().listedMass())
                .isCloseTo(
                        TEACHERS.teacher(3).listedMass(),
                        org.assertj.core.data.Offset.offset(1e-9));
        Distribution top = worker(PayloadKind.SPARSE, 8).distribution(step(0), 3, null);
        assertThat(top.tokens()).hasSize(8);
        double least = java.util.Arrays.stream(top.values()).min().orElseThrow();
        double[] all = TEACHERS.teacher(3).probs();
        assertThat(java.util.Arrays.stream(all).filter(p -> p > least).count())
                .isLessThanOrEqualTo(7);
    }

    @Test
    void logitAnswersStandForTheSameProbabilities() {
        Distribution sparse = worker(PayloadKind.SPARSE, 16).distribution(step(0), 7, null);
        Distribution logits = worker(PayloadKind.TOP_K_LOGITS, 16).distribution(step(0), 7, null);
        double[] p = ((TeacherDistribution.TopKLogits) logits.toCore()).probabilities();
        assertThat(logits.tokens()).containsExactly(sparse.tokens());
        for (int i = 0; i < p.length; i++) {
            assertThat(p[i])
                    .isCloseTo(sparse.values()[i], org.assertj.core.data.Offset.offset(1e-12));
        }
    }

    @Test
    void modelSideVotesEqualTheVotesTheJobComputes() {
        Voter job = new Voter("coordinated");
        for (int s = 0; s < 5; s++) {
            GenerationStep st = step(s);
            StepRandomness r = StepRandomness.forStep(st.publicSeed(), 1050);
            for (int i = 0; i < 50; i++) {
                Distribution v = worker(PayloadKind.MODEL_VOTE, 0).distribution(st, i, r);
                assertThat(v.voteToken())
                        .isEqualTo(job.vote(TEACHERS.teacher(i), st.publicSeed(), 1050, i));
            }
        }
    }

    @Test
    void rawSamplesComeFromTheTeachersSupport() {
        Distribution raw = worker(PayloadKind.RAW_SAMPLES, 0).distribution(step(0), 9, null);
        assertThat(raw.tokens()).hasSize(16);
        java.util.Set<Integer> support = new java.util.HashSet<>();
        for (int t : TEACHERS.teacher(9).tokens()) {
            support.add(t);
        }
        assertThat(java.util.Arrays.stream(raw.tokens()).allMatch(support::contains)).isTrue();
        assertThat(raw.toCore().listedMass())
                .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    }
}
