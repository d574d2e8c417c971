package org.hotpate.stream.ops;

import java.util.function.Consumer;
import org.apache.flink.metrics.Counter;
import org.hotpate.model.Distribution;
import org.hotpate.model.Rejected;
import org.hotpate.protocol.AnswerRule;
import org.hotpate.protocol.Voter;

/**
 * The answer rule where an answer enters the job ({@link DecodeDistributions}, {@link
 * VoteAnswers}): one instance per operator instance (its {@link Voter} caches step tables).
 */
final class AnswerVoting {
    private final DecodeDistributions.Settings settings;
    private final Voter voter;
    private final Counter rejected;

    AnswerVoting(DecodeDistributions.Settings settings, Counter rejected) {
        this.settings = settings;
        this.voter = new Voter(settings.sampler());
        this.rejected = rejected;
    }

    /** The verdict on {@code d}; a rejection goes to {@code deadLetters}, counted. */
    AnswerRule.Verdict judge(Distribution d, Consumer<Rejected> deadLetters) {
        AnswerRule.Verdict v = AnswerRule.judge(d, settings.teachers(), settings.shape(), voter);
        if (v.rejected()) {
            rejected.inc();
            deadLetters.accept(
                    Rejected.of(
                            settings.topic(), v.reason(), v.detail(), d.runId(), d.teacherId()));
        }
        return v;
    }

    /** Whether {@code v}'s vote goes straight to the reducer (no per-teacher rules). */
    boolean direct(AnswerRule.Verdict v) {
        return settings.votesDirect() && !v.outsideRun();
    }
}
