package org.hotpate.stream.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hotpate.stream.Fixtures.RUN;
import static org.hotpate.stream.Fixtures.VOCAB;
import static org.hotpate.stream.Fixtures.sparse;
import static org.hotpate.stream.Fixtures.step;

import java.util.List;
import java.util.Random;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.hotpate.io.AvroWire;
import org.hotpate.model.Distribution;
import org.hotpate.model.PayloadKind;
import org.hotpate.model.RawRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.Vote;
import org.hotpate.stream.JobConfig;
import org.hotpate.stream.StepFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Vote at the source: the decode operator's vote must be the vote the teacher-keyed vote operator
 * computes from the step record (same public seed, same sampler), and bad answers are rejected with
 * the reasons the vote operator gave.
 */
class DecodeDistributionsTest {
    private static final JobConfig.Sampler SAMPLER = new JobConfig.Sampler(true, 42);
    private OneInputStreamOperatorTestHarness<RawRecord, Distribution> h;

    private void open() throws Exception {
        h =
                ProcessFunctionTestHarnesses.forProcessFunction(
                        new DecodeDistributions(
                                new DecodeDistributions.Settings(
                                        "dist",
                                        50,
                                        new StepFactory(RUN, "ens", 42, VOCAB, 1000),
                                        4,
                                        8,
                                        2,
                                        SAMPLER,
                                        false)));
    }

    @AfterEach
    void close() throws Exception {
        h.close();
    }

    private void send(Distribution d) throws Exception {
        h.processElement(new RawRecord("dist", 0, 0, null, AvroWire.encode(d)), 0);
    }

    private List<String> reasons() {
        return h.getSideOutput(Tags.REJECTED) == null
                ? List.of()
                : h.getSideOutput(Tags.REJECTED).stream().map(r -> r.getValue().reason()).toList();
    }

    @Test
    void votesAtTheSourceExactlyAsTheVoteOperatorDoesFromTheStep() throws Exception {
        open();
        Random r = new Random(7);
        var voteOperator =
                ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(
                        new VoteOperator(
                                new VoteOperator.Settings("dist", 50, 1000, 60_000, 0, 0, SAMPLER)),
                        VoteOperator.Input::teacherId,
                        org.apache.flink.api.common.typeinfo.Types.LONG,
                        VoteOperator.OPEN_STEPS);
        try {
            voteOperator.processBroadcastElement(step(1, 3, 0), 0);
            for (long teacher = 0; teacher < 50; teacher++) {
                // Most mass on the teacher's own favourite, the rest spread; some mass abstains.
                int[] tokens = new int[VOCAB];
                double[] p = new double[VOCAB];
                double mass = 0.6 + 0.4 * r.nextDouble();
                for (int i = 0; i < VOCAB; i++) {
                    tokens[i] = i;
                    p[i] = (i == teacher % VOCAB ? 0.8 : 0.2 / (VOCAB - 1)) * mass;
                }
                Distribution d = sparse(teacher, 1, 3, 0, tokens, p);
                send(d);
                voteOperator.processElement(VoteOperator.Input.of(d), 0);
            }
            List<Distribution> atSource = h.extractOutputValues();
            assertThat(atSource).hasSize(50).allMatch(d -> d.kind() == PayloadKind.MODEL_VOTE);
            assertThat(atSource).allMatch(d -> d.tokens().length == 0 && d.values().length == 0);
            List<Integer> fromStep =
                    voteOperator.extractOutputValues().stream().map(Vote::token).toList();
            assertThat(atSource.stream().map(Distribution::voteToken).toList()).isEqualTo(fromStep);
            assertThat(fromStep).contains(Vote.ABSTAIN); // the draw is not trivial
            assertThat(fromStep.stream().distinct().count()).isGreaterThan(1);
        } finally {
            voteOperator.close();
        }
    }

    @Test
    void rejectsBadAnswersAtTheSourceWithTheVoteOperatorsReasons() throws Exception {
        open();
        send(sparse(50, 0, 0, 0, new int[] {1}, new double[] {1.0})); // teacher 50 of 0..49
        send(sparse(1, 0, 0, 0, new int[] {1}, new double[] {Double.NaN}));
        send(sparse(2, 0, 0, 0, new int[] {1, 2}, new double[] {0.7, 0.6})); // mass > 1
        send(sparse(3, 0, 0, 0, new int[] {VOCAB}, new double[] {1.0})); // id ≥ vocabulary
        send(sparse(4, 0, 0, 0, new int[] {1, 1}, new double[] {0.5, 0.5})); // duplicate token
        assertThat(h.extractOutputValues()).isEmpty();
        assertThat(reasons())
                .containsExactly(
                        Rejected.UNKNOWN_TEACHER,
                        Rejected.INVALID_DISTRIBUTION,
                        Rejected.INVALID_DISTRIBUTION,
                        Rejected.INVALID_DISTRIBUTION,
                        Rejected.INVALID_DISTRIBUTION);
    }

    @Test
    void passesAnswersOutsideTheRunsStepsAndModelVotesUnchanged() throws Exception {
        open();
        Distribution unknownSequence = sparse(1, 4, 0, 0, new int[] {1}, new double[] {1.0});
        Distribution unknownPosition = sparse(1, 0, 8, 0, new int[] {1}, new double[] {1.0});
        Distribution unknownAttempt = sparse(1, 0, 0, 2, new int[] {1}, new double[] {1.0});
        send(unknownSequence);
        send(unknownPosition);
        send(unknownAttempt);
        send(org.hotpate.stream.Fixtures.modelVote(1, 0, 0, 0, 3, 99)); // checked downstream
        assertThat(h.extractOutputValues())
                .extracting(Distribution::kind)
                .containsExactly(
                        PayloadKind.SPARSE,
                        PayloadKind.SPARSE,
                        PayloadKind.SPARSE,
                        PayloadKind.MODEL_VOTE);
        assertThat(h.extractOutputValues().get(3).randomnessVersion()).isEqualTo(99);
        assertThat(reasons()).isEmpty();
    }
}
