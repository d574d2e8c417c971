package org.hotpate.stream.ops;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Meter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.io.AvroWire;
import org.hotpate.model.Distribution;
import org.hotpate.model.PayloadKind;
import org.hotpate.model.RawRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.Vote;
import org.hotpate.stream.CoreBindings;
import org.hotpate.stream.JobConfig;
import org.hotpate.stream.StepFactory;

/**
 * Decodes raw {@code distributions} records (Avro single-object encoding) and votes where the
 * payload lands. Undecodable bytes go to {@link Tags#REJECTED} with reason UNDECODABLE
 * (UNKNOWN_SCHEMA for a fingerprint this version does not read) and the raw value; answers for
 * other runs sharing the topic are skipped (counted in {@code otherRun}). Stateless.
 *
 * <p><b>Vote at the source</b> (issue 12): a step's public seed, randomness version and vocabulary
 * are functions of the run and the step's (sequence, position, attempt) ({@link StepFactory}), so
 * the coordinated vote of an answer needs no step record. This operator, chained with the Kafka
 * source, validates each answer (unknown teacher, core structural checks, token ids below the
 * vocabulary) and replaces its payload by the vote it stands for — the shape of a model-side vote
 * at the run's randomness version — so only ~60-byte votes cross the network to the teacher-keyed
 * {@link VoteOperator}, which still checks that the step is open, deduplicates, applies per-teacher
 * rules and emits the vote. Answers outside the run's sequence/position/attempt bounds and
 * model-side votes pass unchanged (the vote operator rejects or checks them as before), so a flood
 * of answers to steps that can never exist builds no step tables here.
 */
public final class DecodeDistributions extends ProcessFunction<RawRecord, Distribution> {
    private static final long serialVersionUID = 1L;
    private static final int[] NO_TOKENS = new int[0];
    private static final double[] NO_VALUES = new double[0];

    /** What decoding and voting need: the run, its step bounds and its sampler. */
    public record Settings(
            String topic,
            int teachers,
            StepFactory factory,
            int sequences,
            int maxSteps,
            int maxAttempts,
            JobConfig.Sampler sampler,
            boolean votesDirect)
            implements java.io.Serializable {}

    private final Settings settings;
    private transient Counter rejected;
    private transient Counter rejectedInvalid;
    private transient Counter otherRun;
    private transient Meter decoded;
    private transient CoreBindings.Voter voter;

    public DecodeDistributions(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext ctx) {
        rejected = getRuntimeContext().getMetricGroup().counter("rejectedUndecodable");
        rejectedInvalid = getRuntimeContext().getMetricGroup().counter("rejectedInvalid");
        otherRun = getRuntimeContext().getMetricGroup().counter("otherRun");
        decoded = JobMetrics.distributions(getRuntimeContext());
        voter = CoreBindings.voter(settings.sampler());
    }

    @Override
    public void processElement(RawRecord r, Context ctx, Collector<Distribution> out) {
        Distribution d;
        try {
            d = AvroWire.decodeDistribution(r.value());
        } catch (AvroWire.UndecodableException e) {
            rejected.inc();
            ctx.output(
                    Tags.REJECTED, Rejected.ofRaw(r, e.reason(), e.getMessage(), null, r.value()));
            return;
        }
        if (!settings.factory().runId().equals(d.runId())) {
            otherRun.inc();
            return;
        }
        decoded.markEvent();
        if (!withinRun(d) || (d.kind() == PayloadKind.MODEL_VOTE && !settings.votesDirect())) {
            out.collect(d);
            return;
        }
        if (d.teacherId() < 0 || d.teacherId() >= settings.teachers()) {
            reject(
                    ctx,
                    d,
                    Rejected.UNKNOWN_TEACHER,
                    "teacher " + d.teacherId() + " is not in 0.." + (settings.teachers() - 1));
            return;
        }
        int vote;
        try {
            vote = vote(d);
        } catch (AnswerVote.VersionMismatch e) {
            reject(ctx, d, Rejected.RANDOMNESS_VERSION, e.getMessage());
            return;
        } catch (IllegalArgumentException e) {
            reject(ctx, d, Rejected.INVALID_DISTRIBUTION, e.getMessage());
            return;
        }
        if (settings.votesDirect()) {
            ctx.output(
                    Tags.SOURCE_VOTES,
                    new Vote(
                            d.runId(), d.sequenceId(), d.step(), d.attempt(), d.teacherId(), vote));
            return;
        }
        out.collect(
                new Distribution(
                        d.runId(),
                        d.sequenceId(),
                        d.step(),
                        d.attempt(),
                        d.teacherId(),
                        PayloadKind.MODEL_VOTE,
                        NO_TOKENS,
                        NO_VALUES,
                        1.0,
                        Double.NaN,
                        vote,
                        CoreBindings.RANDOMNESS_VERSION,
                        d.sentAtMs()));
    }

    /** The answer's vote at its step, by the vote operator's own rule ({@link AnswerVote}). */
    private int vote(Distribution d) {
        StepFactory f = settings.factory();
        return AnswerVote.of(
                d,
                d.kind() == PayloadKind.MODEL_VOTE ? null : d.toCore(),
                f.seed(d.sequenceId(), d.step(), d.attempt()),
                CoreBindings.RANDOMNESS_VERSION,
                f.vocabularySize(),
                voter);
    }

    private boolean withinRun(Distribution d) {
        return d.sequenceId() >= 0
                && d.sequenceId() < settings.sequences()
                && d.step() >= 0
                && d.step() < settings.maxSteps()
                && d.attempt() >= 0
                && d.attempt() < settings.maxAttempts();
    }

    private void reject(Context ctx, Distribution d, String reason, String detail) {
        rejectedInvalid.inc();
        ctx.output(Tags.REJECTED, Rejected.of(settings.topic(), reason, detail, d));
    }
}
