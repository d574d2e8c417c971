package org.hotpate.stream.ops;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.model.Distribution;
import org.hotpate.model.Rejected;
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
    private transient org.hotpate.protocol.Voter voter;
    private transient Counter rejected;

    public VoteAnswers(DecodeDistributions.Settings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext ctx) {
        voter = new org.hotpate.protocol.Voter(settings.sampler());
        rejected = getRuntimeContext().getMetricGroup().counter("rejectedInvalid");
    }

    @Override
    public void processElement(Distribution d, Context ctx, Collector<Vote> out) {
        AnswerRule.Verdict v = AnswerRule.judge(d, settings.teachers(), settings.shape(), voter);
        if (v.rejected()) {
            rejected.inc();
            ctx.output(
                    Tags.REJECTED,
                    Rejected.of(
                            settings.topic(), v.reason(), v.detail(), d.runId(), d.teacherId()));
        } else {
            out.collect(v.asVote(d));
        }
    }
}
