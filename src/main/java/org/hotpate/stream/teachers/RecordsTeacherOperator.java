package org.hotpate.stream.teachers;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.TeacherRecord;
import org.hotpate.protocol.OpenSteps;
import org.hotpate.protocol.StepId;

/**
 * Teachers built from private records, keyed by teacher id, of any {@link TeacherKind}: this
 * operator holds what every kind shares and hands the rest to the kind — counting an admitted
 * record ({@link TeacherKind.Teachers#add}) and answering a step ({@link
 * TeacherKind.Teachers#answer}).
 *
 * <p>Privacy: a teacher reads only its own keyed state (and public data); users reach teachers
 * disjointly upstream ({@code UserDirectory}), and at most {@code maxPerUser} records of a user are
 * counted ({@link UserContributionBound}; the rest are dropped before the kind sees them).
 *
 * <p>Readiness ({@link TeacherGate}): a teacher answers only once all records are counted — a step
 * that arrives earlier waits in the broadcast state {@code teacher-open-steps} and is answered by
 * the teacher's timer at {@link TeacherGate#READY}. Later steps are answered at once for every
 * teacher of the subtask through {@code applyToKeyedState}, which sets each teacher as the current
 * key before calling back (the keys are copied to a list first, so reading other states of that key
 * while iterating is safe — Flink's AbstractKeyedStateBackend/HeapKeyedStateBackend).
 *
 * <p>State: {@code teacher-records} (records counted; its first write registers the READY timer)
 * and {@code user-records} (the contribution bound) live as long as the run's job, as does the
 * kind's own keyed state; broadcast {@code teacher-open-steps} loses a step when a later
 * step/attempt of its sequence arrives or it is older than the retention. Known limit: after a
 * restore, a step that arrived before the restored watermark returned to READY is not answered by
 * the teacher timers (they already fired); it closes at its deadline with abstentions and is
 * resampled.
 */
public final class RecordsTeacherOperator<A>
        extends KeyedBroadcastProcessFunction<Long, TeacherRecord, GenerationStep, A> {
    private static final long serialVersionUID = 1L;

    public static final MapStateDescriptor<String, GenerationStep> OPEN_STEPS =
            new MapStateDescriptor<>(
                    "teacher-open-steps", Types.STRING, Types.POJO(GenerationStep.class));
    static final ValueStateDescriptor<Long> RECORDS =
            new ValueStateDescriptor<>("teacher-records", Types.LONG);

    private final TeacherKind<A> kind;
    private final int maxPerUser;
    private final long retentionMs;
    private transient ValueState<Long> records;
    private transient UserContributionBound perUser;
    private transient TeacherKind.Teachers<A> teachers;

    public RecordsTeacherOperator(TeacherKind<A> kind, int maxPerUser, long retentionMs) {
        this.kind = kind;
        this.maxPerUser = maxPerUser;
        this.retentionMs = retentionMs;
    }

    @Override
    public void open(OpenContext ctx) throws Exception {
        perUser = new UserContributionBound(getRuntimeContext(), maxPerUser);
        records = getRuntimeContext().getState(RECORDS);
        teachers = kind.open(getRuntimeContext());
    }

    @Override
    public void processElement(TeacherRecord r, ReadOnlyContext ctx, Collector<A> out)
            throws Exception {
        if (records.value() == null) {
            records.update(0L);
            ctx.timerService().registerEventTimeTimer(TeacherGate.READY);
        }
        if (r.isMarker()) {
            return;
        }
        if (!perUser.admit(r.user())) {
            return; // the contribution bound: dropped before the kind sees it
        }
        long counted = records.value();
        teachers.add(r, counted);
        records.update(counted + 1);
    }

    @Override
    public void processBroadcastElement(GenerationStep step, Context ctx, Collector<A> out)
            throws Exception {
        BroadcastState<String, GenerationStep> open = ctx.getBroadcastState(OPEN_STEPS);
        OpenSteps.open(open.iterator(), step, retentionMs);
        if (ctx.currentWatermark() >= TeacherGate.READY) {
            ctx.applyToKeyedState(
                    RECORDS, (teacher, state) -> out.collect(teachers.answer(teacher, step)));
        } else {
            open.put(StepId.keyOf(step), step); // answered by each teacher's READY timer
        }
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<A> out) throws Exception {
        List<GenerationStep> steps = new ArrayList<>();
        for (Map.Entry<String, GenerationStep> e :
                ctx.getBroadcastState(OPEN_STEPS).immutableEntries()) {
            steps.add(e.getValue());
        }
        teachers.answerAll(ctx.getCurrentKey(), steps, out);
    }
}
