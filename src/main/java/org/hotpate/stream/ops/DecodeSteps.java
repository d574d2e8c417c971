package org.hotpate.stream.ops;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.io.AvroWire;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.RawRecord;
import org.hotpate.model.Rejected;
import org.hotpate.protocol.RunShape;
import org.hotpate.protocol.StepId;

/**
 * Decodes the {@code steps} topic and keeps this run's steps — only those the run itself issues
 * ({@link RunShape#problem}: the run's ensemble, randomness version and vocabulary, a position in
 * range, and exactly the public seed the run derives). Anything else on the topic with this run's
 * id is a step the run did not issue (a forged or corrupted record): it goes to {@link
 * Tags#REJECTED} as INVALID_STEP and never opens, so it can neither change the shared randomness
 * nor reach the reducer with a vocabulary the mechanism was not built for. Undecodable bytes are
 * dead-lettered with their raw value. Stateless.
 */
public final class DecodeSteps extends ProcessFunction<RawRecord, GenerationStep> {
    private static final long serialVersionUID = 1L;

    private final RunShape shape;
    private transient Counter rejected;

    public DecodeSteps(RunShape shape) {
        this.shape = shape;
    }

    @Override
    public void open(OpenContext ctx) {
        rejected = getRuntimeContext().getMetricGroup().counter("rejected");
    }

    @Override
    public void processElement(RawRecord r, Context ctx, Collector<GenerationStep> out) {
        GenerationStep s;
        try {
            s = AvroWire.decodeStep(r.value());
        } catch (AvroWire.UndecodableException e) {
            reject(ctx, r, e.reason(), e.getMessage(), null, r.value());
            return;
        }
        if (!shape.runId().equals(s.runId())) {
            return; // another run sharing the topic
        }
        String problem = shape.problem(s);
        if (problem != null) {
            reject(
                    ctx,
                    r,
                    Rejected.INVALID_STEP,
                    StepId.keyOf(s) + ": " + problem,
                    s.runId(),
                    null);
            return;
        }
        out.collect(s);
    }

    private void reject(
            Context ctx, RawRecord r, String reason, String detail, String runId, byte[] value) {
        rejected.inc();
        ctx.output(Tags.REJECTED, Rejected.ofRaw(r, reason, detail, runId, value));
    }
}
