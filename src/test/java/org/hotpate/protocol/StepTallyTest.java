package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.hotpate.core.mechanism.Mechanisms;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.model.Vote;
import org.hotpate.model.VoteBatch;
import org.junit.jupiter.api.Test;

/** A step's tally: when it closes, which votes count, the quorum, and its release. */
class StepTallyTest {
    private static final StepId STEP = new StepId("r/x", 0, 2, 1);

    private static long[] batch(long[] teachers, int[] tokens) {
        return StepTally.pack(new VoteBatch("r/x", 0, 2, 1, teachers, tokens));
    }

    @Test
    void closesWhenEveryTeacherVotedAndTheStepWasSeen() {
        assertThat(StepTally.complete(3, true, 3)).isTrue();
        assertThat(StepTally.complete(4, true, 3)).as("duplicates count towards n").isTrue();
        assertThat(StepTally.complete(2, true, 3)).isFalse();
        assertThat(StepTally.complete(3, false, 3)).as("a step this run never issued").isFalse();
    }

    @Test
    void storedBatchesUnpackInArrivalOrderWithTheStepsIdentity() {
        List<Vote> v =
                StepTally.unpack(
                        STEP,
                        List.of(
                                batch(new long[] {2}, new int[] {5}),
                                batch(new long[] {0, 1}, new int[] {4, -1})));
        assertThat(v)
                .containsExactly(
                        new Vote("r/x", 0, 2, 1, 2, 5),
                        new Vote("r/x", 0, 2, 1, 0, 4),
                        new Vote("r/x", 0, 2, 1, 1, -1));
        assertThat(StepTally.unpack(STEP, null)).isEmpty();
    }

    @Test
    void aTeachersFirstVoteCounts_laterOnesAreDuplicates() {
        StepTally t =
                StepTally.count(
                        STEP,
                        List.of(
                                batch(new long[] {0, 1}, new int[] {4, 4}),
                                batch(new long[] {0, 2}, new int[] {5, -1})),
                        3);
        assertThat(t.counted()).extracting(Vote::teacherId).containsExactly(0L, 1L, 2L);
        assertThat(t.duplicates())
                .singleElement()
                .satisfies(d -> assertThat(d.token()).isEqualTo(5));
        assertThat(t.answered()).isEqualTo(3);
        assertThat(t.histogram().count(4)).isEqualTo(2);
        assertThat(t.histogram().count(5)).isZero();
    }

    @Test
    void belowTheQuorumAStepIsAbandoned() {
        StepTally t = StepTally.count(STEP, List.of(batch(new long[] {0}, new int[] {4})), 3);
        assertThat(t.meetsQuorum(2)).isFalse();
        assertThat(t.meetsQuorum(1)).isTrue();
        assertThat(t.meetsQuorum(0)).isTrue();
    }

    @Test
    void anEnsembleMechanismReleasesFromTheCanonicalHistogram() {
        StepTally t =
                StepTally.count(STEP, List.of(batch(new long[] {0, 1, 2}, new int[] {4, 4, 5})), 3);
        StepRelease r =
                StepRelease.of(
                        Mechanisms.create(
                                "targmax", Map.of("threshold", 1.0), 10, 3, NoiseSources.secure()),
                        t);
        assertThat(r.token()).isEqualTo(4);
        assertThat(r.involvedTeachers()).isEmpty();
        assertThat(r.event()).isNotNull();
    }

    @Test
    void theRunsAccountingModeChoosesWhatReleasesTheStep() {
        StepTally t =
                StepTally.count(STEP, List.of(batch(new long[] {0, 1, 2}, new int[] {4, 4, 5})), 3);
        boolean[] built = {false};
        java.util.function.Supplier<org.hotpate.core.mechanism.AggregationMechanism> ensemble =
                () -> {
                    built[0] = true;
                    return Mechanisms.create(
                            "targmax", Map.of("threshold", 1.0), 10, 3, NoiseSources.secure());
                };
        AccountingMode ensembleOnly = new AccountingMode.EnsembleOnly();
        assertThat(ensembleOnly.releasesFromHistogram()).isTrue();
        StepRelease r = ensembleOnly.release(t, 7, NoiseSources.secure(), ensemble);
        assertThat(built[0]).as("an ensemble mode releases through the mechanism").isTrue();
        assertThat(r.token()).isEqualTo(4);
        assertThat(new AccountingMode.VoteCap(3).release(t, 7, NoiseSources.secure(), ensemble))
                .extracting(StepRelease::token)
                .isEqualTo(4);

        built[0] = false;
        IndividualScheme b =
                new IndividualScheme(
                        new org.hotpate.core.accounting.SchemeBStep.Plan(
                                new org.hotpate.core.accounting.SchemeBStep.Params(2, 40, 1.0),
                                3,
                                2.0,
                                2),
                        1e-6,
                        10,
                        () ->
                                new org.hotpate.core.sampling.TeacherDistribution
                                        .SparseProbabilities(new int[] {4}, new double[] {1.0}));
        AccountingMode perTeacher = new AccountingMode.ChargeAtVote(b);
        assertThat(perTeacher.releasesFromHistogram()).isFalse();
        StepRelease s =
                perTeacher.release(t, 7, NoiseSources.seededInsecureForTestsOnly(1), ensemble);
        assertThat(built[0])
                .as("a per-teacher scheme never builds the ensemble mechanism")
                .isFalse();
        assertThat(s.event())
                .isEqualTo(
                        b.release(t.counted(), 7, NoiseSources.seededInsecureForTestsOnly(1))
                                .event());
    }
}
