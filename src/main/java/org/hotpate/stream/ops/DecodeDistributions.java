package org.hotpate.stream.ops;

import java.io.Serializable;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Meter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.io.AvroWire;
import org.hotpate.model.Distribution;
import org.hotpate.model.RawRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.Vote;
import org.hotpate.protocol.AnswerRule;
import org.hotpate.protocol.RunShape;

/**
 * Decodes raw {@code distributions} records (Avro single-object encoding) and votes where the
 * payload lands ({@link AnswerRule}, issue 12), chained with the Kafka source: only ~60-byte votes
 * cross the network. Undecodable bytes go to {@link Tags#REJECTED} with reason UNDECODABLE
 * (UNKNOWN_SCHEMA for a fingerprint this version does not read) and the raw value; answers for
 * other runs sharing the topic are skipped (counted in {@code otherRun}); answers the rule rejects
 * are dead-lettered with its reason. Stateless.
 *
 * <p>Votes go to the teacher-keyed {@link VoteOperator} (open-step check, dedupe, per-teacher
 * accounting), or — runs without per-teacher rules ({@link Settings#votesDirect}) — straight to the
 * combiner and the reducer ({@link Tags#SOURCE_VOTES}). An answer to a step outside the run's
 * bounds carries no vote and always goes to the vote operator, which holds it for one deadline and
 * dead-letters it: such a step never opens, and a flood of them builds no step tables here.
 */
public final class DecodeDistributions extends ProcessFunction<RawRecord, Vote> {
    private static final long serialVersionUID = 1L;

    /** What decoding and voting need: the run's shape, n, its sampler, where votes go. */
    public record Settings(
            String topic, int teachers, RunShape shape, String sampler, boolean votesDirect)
            implements Serializable {}

    private final Settings settings;
    private transient Counter rejected;
    private transient Counter otherRun;
    private transient Meter decoded;
    private transient AnswerVoting answers;

    public DecodeDistributions(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext ctx) {
        rejected = getRuntimeContext().getMetricGroup().counter("rejectedUndecodable");
        otherRun = getRuntimeContext().getMetricGroup().counter("otherRun");
        decoded = JobMetrics.distributions(getRuntimeContext());
        answers =
                new AnswerVoting(
                        settings, getRuntimeContext().getMetricGroup().counter("rejectedInvalid"));
    }

    @Override
    public void processElement(RawRecord r, Context ctx, Collector<Vote> out) {
        Distribution d;
        try {
            d = AvroWire.decodeDistribution(r.value());
        } catch (AvroWire.UndecodableException e) {
            rejected.inc();
            ctx.output(
                    Tags.REJECTED, Rejected.ofRaw(r, e.reason(), e.getMessage(), null, r.value()));
            return;
        }
        if (!settings.shape().runId().equals(d.runId())) {
            otherRun.inc();
            return;
        }
        decoded.markEvent();
        AnswerRule.Verdict v = answers.judge(d, x -> ctx.output(Tags.REJECTED, x));
        if (v.rejected()) {
            return;
        }
        if (answers.direct(v)) {
            ctx.output(Tags.SOURCE_VOTES, v.asVote(d));
        } else {
            out.collect(v.asVote(d));
        }
    }
}
