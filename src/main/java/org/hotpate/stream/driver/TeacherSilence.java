package org.hotpate.stream.driver;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.Topic;

/**
 * Says, while a run with external teachers ({@code ensemble.source: external}) waits, that its
 * teachers are not answering (issue 37 item 4: with no worker running, a run showed no progress for
 * 20 minutes and then stalled without a word about teachers). A warning only: the run keeps
 * waiting, since a worker may still connect (it reads {@code steps} from the earliest offset).
 */
final class TeacherSilence {
    /** How long after submission the first diagnosis comes. */
    static final long FIRST_CHECK_MS = 60_000;

    /** How often it is repeated while nothing changes. */
    static final long REPEAT_MS = 300_000;

    private final JobConfig cfg;
    private final String bootstrap;
    private final LongSupplier answers; // teacher answers on distributions since the run started
    private long nextCheckMs;
    private volatile String last;

    TeacherSilence(JobConfig cfg, String bootstrap, LongSupplier answers) {
        this.cfg = cfg;
        this.bootstrap = bootstrap;
        this.answers = answers;
    }

    /**
     * Called after each poll of the follower: at most once per {@link #REPEAT_MS} (the first {@link
     * #FIRST_CHECK_MS} after submission) and only before the run's first result, prints the
     * diagnosis to {@code out} when there is one.
     */
    void check(long submittedMs, long firstResultMs, PrintStream out) {
        long now = System.currentTimeMillis();
        if (out == null || firstResultMs != 0 || submittedMs == 0) {
            return;
        }
        if (nextCheckMs == 0) {
            nextCheckMs = submittedMs + FIRST_CHECK_MS;
        }
        if (now < nextCheckMs) {
            return;
        }
        nextCheckMs = now + REPEAT_MS;
        String d =
                diagnosis(
                        now - submittedMs,
                        answers.getAsLong(),
                        cfg.ensemble().teachers(),
                        bootstrap,
                        cfg.kafka().topics().name(Topic.STEPS),
                        cfg.kafka().topics().name(Topic.DISTRIBUTIONS),
                        cfg.generation().stepDeadlineMs());
        if (d != null) {
            last = d;
            out.println();
            out.println(d);
            out.flush();
        }
    }

    /** The last diagnosis printed (null: none). */
    String last() {
        return last;
    }

    /**
     * The diagnosis of a run that has no result {@code elapsedMs} after submission, with {@code
     * answers} teacher answers written since it started (null: nothing to say — too early, or at
     * least one answer per teacher arrived, so a step can close).
     */
    static String diagnosis(
            long elapsedMs,
            long answers,
            int teachers,
            String bootstrap,
            String stepsTopic,
            String distributionsTopic,
            long stepDeadlineMs) {
        if (elapsedMs < FIRST_CHECK_MS || answers >= teachers) {
            return null;
        }
        String what =
                answers == 0
                        ? "none of the " + teachers + " teachers has answered"
                        : "only "
                                + answers
                                + " teacher answers arrived (each step asks all "
                                + teachers
                                + " teachers)";
        return String.format(
                Locale.ROOT,
                "hotpate run: warning: no step result after %d s: %s. The external teacher worker"
                        + " must connect to %s, read topic %s and write topic %s (docs/llm-teachers.md:"
                        + " PYTHONPATH=clients/python python3 -m hotpate_teacher --model DIR"
                        + " --bootstrap %s --teachers 0-%d --spec SPEC); a step"
                        + " closes after generation.step-deadline-ms = %d ms with the answers it has."
                        + " Still waiting.",
                elapsedMs / 1000,
                what,
                bootstrap,
                stepsTopic,
                distributionsTopic,
                bootstrap,
                teachers - 1,
                stepDeadlineMs);
    }
}
