package org.hotpate.stream.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hotpate.stream.Fixtures.RUN;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.hotpate.io.AvroWire;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.RawRecord;
import org.hotpate.model.Rejected;
import org.hotpate.protocol.RunShape;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Only steps the run issued pass: a forged or corrupted step on the steps topic is dead-lettered as
 * INVALID_STEP with the reason, never opened.
 */
class DecodeStepsTest {
    private static final RunShape SHAPE =
            new RunShape(RUN, "ens", 42, 1050, 1000, 4, 8, 3, org.hotpate.protocol.EarlyStop.NONE);
    private static final StepFactory STEPS = new StepFactory(SHAPE, SequencePrompts.NONE);
    private OneInputStreamOperatorTestHarness<RawRecord, GenerationStep> h;

    @BeforeEach
    void open() throws Exception {
        h = ProcessFunctionTestHarnesses.forProcessFunction(new DecodeSteps(SHAPE));
    }

    @AfterEach
    void close() throws Exception {
        h.close();
    }

    private void send(GenerationStep s) throws Exception {
        h.processElement(new RawRecord("steps", 0, 0, null, AvroWire.encode(s)), 0);
    }

    private static GenerationStep forged(
            String ensemble, long seq, int step, int attempt, long seed, int version, int vocab) {
        return new GenerationStep(
                RUN, ensemble, seq, step, attempt, new int[step], seed, version, vocab, 0, 0);
    }

    private List<String> details() {
        return h.getSideOutput(Tags.REJECTED) == null
                ? List.of()
                : h.getSideOutput(Tags.REJECTED).stream()
                        .map(r -> r.getValue().reason() + ": " + r.getValue().detail())
                        .toList();
    }

    @Test
    void theRunsOwnStepsPass() throws Exception {
        send(STEPS.step(0, 0, 0, new int[0], 5));
        send(STEPS.step(3, 2, 1, new int[] {101, 102}, 5));
        assertThat(h.extractOutputValues()).hasSize(2);
        assertThat(details()).isEmpty();
    }

    @Test
    void stepsOfOtherRunsAreSkippedSilently() throws Exception {
        send(
                new RunShape(
                                "other-run",
                                "ens",
                                42,
                                1050,
                                1000,
                                4,
                                8,
                                3,
                                org.hotpate.protocol.EarlyStop.NONE)
                        .issue(0, 0, 0, new int[0], new int[0], "", 5));
        assertThat(h.extractOutputValues()).isEmpty();
        assertThat(details()).isEmpty();
    }

    /**
     * Fails on the code before this check: a forged step with a vocabulary size other than the
     * run's opened, votes for tokens the reducer's mechanism was not built for passed the vote
     * operator, and the reducer threw — an uncaught exception and a restart loop.
     */
    @Test
    void stepsTheRunDidNotIssueAreRejectedWithTheReason() throws Exception {
        int v = RunShape.RANDOMNESS_VERSION;
        send(forged("ens", 0, 0, 0, SHAPE.seed(0, 0, 0), v, 2000)); // vocabulary
        send(forged("ens", 0, 0, 0, SHAPE.seed(0, 0, 0) + 1, v, 1050)); // seed
        send(forged("ens", 0, 0, 0, SHAPE.seed(0, 0, 0), v + 1, 1050)); // version
        send(forged("other", 0, 0, 0, SHAPE.seed(0, 0, 0), v, 1050)); // ensemble
        send(forged("ens", 9, 0, 0, SHAPE.seed(9, 0, 0), v, 1050)); // sequence out of range
        send(forged("ens", 0, 8, 0, SHAPE.seed(0, 8, 0), v, 1050)); // position out of range
        send(forged("ens", 0, 0, 3, SHAPE.seed(0, 0, 3), v, 1050)); // attempt out of range
        send(
                new GenerationStep(
                        RUN, "ens", 0, 1, 0, new int[0], SHAPE.seed(0, 1, 0), v, 1050, 0, 0));
        // prefix length
        assertThat(h.extractOutputValues()).isEmpty();
        assertThat(details())
                .hasSize(8)
                .allMatch(d -> d.startsWith(Rejected.INVALID_STEP))
                .anyMatch(d -> d.contains("vocabulary size 2000"))
                .anyMatch(d -> d.contains("public seed"))
                .anyMatch(d -> d.contains("randomness version"))
                .anyMatch(d -> d.contains("ensemble other"))
                .anyMatch(d -> d.contains("sequence 9"))
                .anyMatch(d -> d.contains("position 8"))
                .anyMatch(d -> d.contains("attempt 3"))
                .anyMatch(d -> d.contains("prefix length"));
    }

    @Test
    void undecodableBytesAreDeadLetteredWithTheRawValue() throws Exception {
        h.processElement(
                new RawRecord("steps", 1, 7, null, "garbage".getBytes(StandardCharsets.UTF_8)), 0);
        assertThat(h.getSideOutput(Tags.REJECTED))
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.getValue().reason()).isEqualTo(Rejected.UNDECODABLE);
                            assertThat(r.getValue().value()).isNotNull();
                        });
    }
}
