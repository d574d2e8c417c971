package org.hotpate.stream.ops;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.model.Distribution;
import org.hotpate.model.Vote;
import org.hotpate.protocol.AnswerRule;

/**
 * The answer rule ({@link AnswerRule}) for answers made inside the job — the records teachers',
 * chained with them — so that every answer is validated and voted once, where it is made; its votes
 * go to the {@link VoteOperator} like the votes of {@link DecodeDistributions}. Stateless.
 */
public final class VoteAnswers extends ProcessFunction<Distribution, Vote> {
    private static final long serialVersionUID = 1L;

    private final DecodeDistributions.Settings settings;
    private transient AnswerVoting answers;

    public VoteAnswers(DecodeDistributions.Settings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext ctx) {
        answers =
                new AnswerVoting(
                        settings, getRuntimeContext().getMetricGroup().counter("rejectedInvalid"));
    }

    @Override
    public void processElement(Distribution d, Context ctx, Collector<Vote> out) {
        AnswerRule.Verdict v = answers.judge(d, x -> ctx.output(Tags.REJECTED, x));
        if (!v.rejected()) {
            out.collect(v.asVote(d));
        }
    }
}
