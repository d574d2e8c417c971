package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 item 4: with no teacher worker running, {@code ./hotpate run jobs/llm-demo.yaml} showed
 * no progress for 20 minutes and stalled without a word about teachers. Within a minute the driver
 * now says that the teachers are silent and where the worker must connect.
 */
class TeacherSilenceTest {
    private static final String SPEC =
            "ensemble: {source: external, kind: homogeneous, teachers: 256}\n"
                    + "generation: {step-deadline-ms: 300000}\n";

    private static String diagnosis(long elapsedMs, long answers) {
        return TeacherSilence.diagnosis(
                elapsedMs,
                answers,
                256,
                "localhost:19092",
                "hotpate.steps",
                "hotpate.dist",
                300000);
    }

    @Test
    void noAnswerAfterAMinute_namesTheSilenceAndWhereTheWorkerConnects() {
        assertThat(diagnosis(59_999, 0)).as("too early").isNull();
        assertThat(diagnosis(60_000, 0))
                .contains("none of the 256 teachers has answered")
                .contains("localhost:19092")
                .contains("read topic hotpate.steps")
                .contains("write topic hotpate.dist")
                .contains("--teachers 0-255")
                .contains("300000 ms")
                .contains("Still waiting");
        assertThat(diagnosis(60_000, 100))
                .contains("only 100 teacher answers arrived")
                .contains("all 256 teachers");
        assertThat(diagnosis(600_000, 256)).as("a step can close").isNull();
    }

    @Test
    void theWatchPrintsOnceAMinuteIn_andNothingAfterTheFirstResult() {
        JobConfig cfg = JobSpec.parse(SPEC, "x");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        long now = System.currentTimeMillis();
        new TeacherSilence(cfg, "localhost:19092", () -> 0).check(now, 0, out);
        assertThat(buf.size()).as("submitted just now").isZero();
        TeacherSilence s = new TeacherSilence(cfg, "localhost:19092", () -> 0);
        s.check(now - 61_000, 0, out);
        String printed = buf.toString(StandardCharsets.UTF_8);
        assertThat(printed)
                .contains("none of the 256 teachers")
                .contains(cfg.kafka().topics().name(org.hotpate.stream.config.Topic.STEPS));
        assertThat(s.last()).isEqualTo(printed.strip());
        s.check(now - 61_000, 0, out);
        assertThat(buf.toString(StandardCharsets.UTF_8))
                .as("not repeated at once")
                .isEqualTo(printed);
        TeacherSilence answered = new TeacherSilence(cfg, "localhost:19092", () -> 0);
        answered.check(now - 61_000, now - 1000, out);
        assertThat(answered.last()).as("the run has a result").isNull();
    }
}
