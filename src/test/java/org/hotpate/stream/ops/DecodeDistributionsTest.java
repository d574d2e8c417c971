package org.hotpate.stream.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hotpate.stream.Fixtures.RUN;
import static org.hotpate.stream.Fixtures.VOCAB;
import static org.hotpate.stream.Fixtures.sparse;
import static org.hotpate.stream.Fixtures.step;

import java.util.List;
import java.util.Random;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.hotpate.io.AvroWire;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.RawRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.Vote;
import org.hotpate.protocol.RunShape;
import org.hotpate.protocol.Voter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Vote at the source: the decode operator's vote must be the vote computed from the step record
 * (same public seed, same sampler), bad answers are rejected with their reasons, and answers to
 * steps outside the run go on without a vote.
 */
class DecodeDistributionsTest {
    private static final RunShape SHAPE =
            new RunShape(RUN, "ens", 42, VOCAB, 1000, 4, 8, 2, org.hotpate.protocol.EarlyStop.NONE);
    private OneInputStreamOperatorTestHarness<RawRecord, Vote> h;

    private void open(boolean votesDirect) throws Exception {
        h =
                ProcessFunctionTestHarnesses.forProcessFunction(
                        new DecodeDistributions(
                                new DecodeDistributions.Settings(
                                        "dist", 50, SHAPE, "coordinated", votesDirect)));
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
    void votesAtTheSourceExactlyAsFromTheStepRecord() throws Exception {
        open(false);
        Random r = new Random(7);
        GenerationStep step = step(1, 3, 0);
        Voter fromStep = new Voter("coordinated");
        List<Integer> expected = new java.util.ArrayList<>();
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
            expected.add(fromStep.vote(d.toCore(), step.publicSeed(), VOCAB, teacher));
        }
        List<Vote> atSource = h.extractOutputValues();
        assertThat(atSource).extracting(Vote::token).isEqualTo(expected);
        assertThat(expected).contains(Vote.ABSTAIN); // the draw is not trivial
        assertThat(expected.stream().distinct().count()).isGreaterThan(1);
    }

    @Test
    void withoutPerTeacherRulesVotesGoStraightToTheReducer() throws Exception {
        open(true);
        send(sparse(1, 0, 0, 0, new int[] {3}, new double[] {1.0}));
        send(sparse(1, 9, 0, 0, new int[] {3}, new double[] {1.0})); // outside: to the operator
        assertThat(h.getSideOutput(Tags.SOURCE_VOTES))
                .extracting(StreamRecord::getValue)
                .extracting(Vote::token)
                .containsExactly(3);
        assertThat(h.extractOutputValues()).extracting(Vote::sequenceId).containsExactly(9L);
    }

    @Test
    void rejectsBadAnswersAtTheSourceWithTheirReasons() throws Exception {
        open(false);
        send(sparse(50, 0, 0, 0, new int[] {1}, new double[] {1.0})); // teacher 50 of 0..49
        send(sparse(1, 0, 0, 0, new int[] {1}, new double[] {Double.NaN}));
        send(sparse(2, 0, 0, 0, new int[] {1, 2}, new double[] {0.7, 0.6})); // mass > 1
        send(sparse(3, 0, 0, 0, new int[] {VOCAB}, new double[] {1.0})); // id ≥ vocabulary
        send(sparse(4, 0, 0, 0, new int[] {1, 1}, new double[] {0.5, 0.5})); // duplicate token
        send(org.hotpate.stream.Fixtures.modelVote(5, 0, 0, 0, 3, 99)); // another PRF version
        send(org.hotpate.stream.Fixtures.modelVote(6, 0, 0, 0, VOCAB, RunShape.RANDOMNESS_VERSION));
        assertThat(h.extractOutputValues()).isEmpty();
        assertThat(reasons())
                .containsExactly(
                        Rejected.UNKNOWN_TEACHER,
                        Rejected.INVALID_DISTRIBUTION,
                        Rejected.INVALID_DISTRIBUTION,
                        Rejected.INVALID_DISTRIBUTION,
                        Rejected.INVALID_DISTRIBUTION,
                        Rejected.RANDOMNESS_VERSION,
                        Rejected.INVALID_DISTRIBUTION);
        assertThat(h.getSideOutput(Tags.REJECTED))
                .extracting(x -> x.getValue().detail())
                .allMatch(d -> !d.isBlank());
        // A rejected answer does not use up the teacher's vote: a valid one still counts.
        send(sparse(1, 0, 0, 0, new int[] {5}, new double[] {1.0}));
        assertThat(h.extractOutputValues()).extracting(Vote::token).containsExactly(5);
    }

    @Test
    void answersOutsideTheRunsStepsGoOnWithoutAVote() throws Exception {
        open(false);
        send(sparse(1, 4, 0, 0, new int[] {1}, new double[] {1.0})); // sequence
        send(sparse(1, 0, 8, 0, new int[] {1}, new double[] {1.0})); // position
        send(sparse(1, 0, 0, 2, new int[] {1}, new double[] {1.0})); // attempt
        send(org.hotpate.stream.Fixtures.modelVote(1, 0, 9, 0, 3, 99)); // never voted on
        assertThat(h.extractOutputValues())
                .extracting(Vote::sequenceId, Vote::step, Vote::attempt, Vote::token)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(4L, 0, 0, Vote.ABSTAIN),
                        org.assertj.core.groups.Tuple.tuple(0L, 8, 0, Vote.ABSTAIN),
                        org.assertj.core.groups.Tuple.tuple(0L, 0, 2, Vote.ABSTAIN),
                        org.assertj.core.groups.Tuple.tuple(0L, 9, 0, Vote.ABSTAIN));
        assertThat(reasons()).isEmpty();
    }
}
