package org.hotpate.stream.ops;

import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.Release;
import org.hotpate.core.vote.VoteHistogram;
import org.hotpate.io.PrivacyEventJson;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.Rejected;
import org.hotpate.model.ReleaseCandidate;
import org.hotpate.model.Vote;
import org.hotpate.stream.CoreBindings;
import org.hotpate.stream.JobConfig;

/**
 * The step reducer (DESIGN.md topology step 3), keyed by run/sequence/step/attempt. Collects at
 * most one vote per teacher; closes when all n teachers voted or {@code step-deadline-ms} after it
 * first saw the step or a vote (missing teachers abstain); applies the mechanism once (secure noise
 * inside core) and emits the candidate to the run's accountant.
 *
 * <p>A closed step keeps its candidate ({@code step-release}) until a cleanup timer ({@code
 * retention}) fires: late or replayed votes for it are dead-lettered as LATE_VOTE and never cause a
 * second release. Votes and the deadline are cleared on close.
 */
public final class StepReducer
        extends KeyedCoProcessFunction<String, Vote, GenerationStep, ReleaseCandidate> {
    private static final long serialVersionUID = 1L;

    /** What the reducer needs from the job config. */
    public record Settings(
            String topic,
            int teachers,
            int vocabularySize,
            long stepDeadlineMs,
            long retentionMs,
            JobConfig.Mechanism mechanism)
            implements java.io.Serializable {}

    private final Settings settings;
    private transient MapState<Long, Integer> votes;
    private transient ValueState<Integer> voteCount;
    private transient ValueState<Long> deadline;
    private transient ValueState<ReleaseCandidate> released;
    private transient AggregationMechanism mechanism;
    private transient Counter lateVotes;
    private transient JobMetrics.LiveKeys openSteps;

    public StepReducer(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext ctx) {
        votes =
                getRuntimeContext()
                        .getMapState(new MapStateDescriptor<>("step-votes", Types.LONG, Types.INT));
        voteCount =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("step-vote-count", Types.INT));
        deadline =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("step-deadline", Types.LONG));
        released =
                getRuntimeContext()
                        .getState(
                                new ValueStateDescriptor<>(
                                        "step-release", Types.POJO(ReleaseCandidate.class)));
        mechanism =
                CoreBindings.mechanism(
                        settings.mechanism(), settings.vocabularySize(), settings.teachers());
        lateVotes = getRuntimeContext().getMetricGroup().counter("lateVotes");
        openSteps = JobMetrics.openSteps(getRuntimeContext());
    }

    @Override
    public void processElement1(Vote v, Context ctx, Collector<ReleaseCandidate> out)
            throws Exception {
        if (released.value() != null || votes.contains(v.teacherId())) {
            lateVotes.inc();
            String reason = released.value() != null ? Rejected.LATE_VOTE : Rejected.DUPLICATE_VOTE;
            ctx.output(
                    Tags.REJECTED,
                    new Rejected(
                            settings.topic(),
                            reason,
                            "step "
                                    + ctx.getCurrentKey()
                                    + (released.value() != null
                                            ? " already closed"
                                            : " already has this teacher's vote"),
                            v.runId(),
                            v.teacherId(),
                            -1,
                            -1L,
                            null,
                            System.currentTimeMillis()));
            return;
        }
        votes.put(v.teacherId(), v.token());
        int n = (voteCount.value() == null ? 0 : voteCount.value()) + 1;
        voteCount.update(n);
        armDeadline(ctx);
        if (n >= settings.teachers()) {
            close(v.runId(), ctx, out);
        }
    }

    @Override
    public void processElement2(GenerationStep step, Context ctx, Collector<ReleaseCandidate> out)
            throws Exception {
        if (released.value() == null) {
            armDeadline(ctx);
        }
    }

    private void armDeadline(Context ctx) throws Exception {
        if (deadline.value() == null) {
            long t = ctx.timerService().currentProcessingTime() + settings.stepDeadlineMs();
            deadline.update(t);
            ctx.timerService().registerProcessingTimeTimer(t);
            openSteps.add(ctx.getCurrentKey());
        }
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<ReleaseCandidate> out)
            throws Exception {
        if (released.value() != null) {
            released.clear(); // retention over: forget the closed step
        } else if (deadline.value() != null && ts >= deadline.value()) {
            String key = ctx.getCurrentKey();
            close(key.substring(0, key.indexOf('/')), ctx, out);
        }
    }

    private void close(String runId, Context ctx, Collector<ReleaseCandidate> out)
            throws Exception {
        VoteHistogram.Builder b = VoteHistogram.builder(settings.teachers());
        int answered = 0;
        for (Map.Entry<Long, Integer> e : votes.entries()) {
            b.vote(e.getKey().intValue(), e.getValue());
            answered++;
        }
        VoteHistogram h = b.build();
        Release r = mechanism.release(h);
        String[] k = ctx.getCurrentKey().split("/");
        ReleaseCandidate c =
                new ReleaseCandidate(
                        runId,
                        Long.parseLong(k[k.length - 3]),
                        Integer.parseInt(k[k.length - 2]),
                        Integer.parseInt(k[k.length - 1]),
                        r.token().orElse(-1),
                        mechanism.name(),
                        PrivacyEventJson.encode(r.event()),
                        r.noisyCount().orElse(Double.NaN),
                        r.chargedTeachers().stream().mapToLong(Integer::longValue).toArray(),
                        answered,
                        settings.teachers(),
                        System.currentTimeMillis());
        released.update(c);
        if (deadline.value() != null) {
            ctx.timerService().deleteProcessingTimeTimer(deadline.value());
        }
        votes.clear();
        voteCount.clear();
        deadline.clear();
        openSteps.remove(ctx.getCurrentKey());
        ctx.timerService()
                .registerProcessingTimeTimer(
                        ctx.timerService().currentProcessingTime() + settings.retentionMs());
        out.collect(c);
    }
}
