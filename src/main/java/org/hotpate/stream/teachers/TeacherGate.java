package org.hotpate.stream.teachers;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.hotpate.model.GenerationStep;

/**
 * The readiness gate of teachers built from records. The records source is bounded: when it (and
 * the per-teacher markers) end, Flink emits the MAX watermark on that input. The steps input must
 * not hold the operator's combined watermark back, so it carries a constant watermark of {@link
 * #READY} (below MAX). The combined watermark thus reaches {@link #READY} exactly when every record
 * has been counted; a teacher answers only then (a timer at {@link #READY}, or at once for steps
 * that arrive later).
 */
public final class TeacherGate {
    private TeacherGate() {}

    /** The watermark (and timer time) at which all records have been read. */
    public static final long READY = Long.MAX_VALUE - 1;

    /** For the steps stream into the teacher operator: always at {@link #READY}. */
    public static WatermarkStrategy<GenerationStep> stepsWatermarks() {
        return WatermarkStrategy.<GenerationStep>forGenerator(ctx -> new ConstantHigh())
                .withTimestampAssigner((s, ts) -> s.issuedAtMs());
    }

    static final class ConstantHigh implements WatermarkGenerator<GenerationStep> {
        @Override
        public void onEvent(GenerationStep event, long eventTimestamp, WatermarkOutput output) {}

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            output.emitWatermark(new Watermark(READY));
        }
    }
}
