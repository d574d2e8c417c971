package org.hotpate.stream.ops;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.io.AvroWire;
import org.hotpate.model.RawRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.TeacherFeedback;

/**
 * Decodes the job's own {@code teacher-feedback} records (scheme-a; Avro single-object encoding)
 * into the vote operator's {@link VoteOperator.Input}. Only the job writes the topic, so anything
 * undecodable is a fault, not an attack: it is dead-lettered (UNDECODABLE / UNKNOWN_SCHEMA, raw
 * value kept) and never charges anyone; feedback of other runs sharing the topic is skipped.
 * Stateless.
 */
public final class DecodeTeacherFeedback extends ProcessFunction<RawRecord, VoteOperator.Input> {
    private static final long serialVersionUID = 1L;
    private final String runId;
    private transient Counter rejected;
    private transient Counter otherRun;

    public DecodeTeacherFeedback(String runId) {
        this.runId = runId;
    }

    @Override
    public void open(OpenContext ctx) {
        rejected = getRuntimeContext().getMetricGroup().counter("rejectedUndecodable");
        otherRun = getRuntimeContext().getMetricGroup().counter("otherRun");
    }

    @Override
    public void processElement(RawRecord r, Context ctx, Collector<VoteOperator.Input> out) {
        TeacherFeedback f;
        try {
            f = AvroWire.decodeTeacherFeedback(r.value());
        } catch (AvroWire.UndecodableException e) {
            rejected.inc();
            ctx.output(
                    Tags.REJECTED, Rejected.ofRaw(r, e.reason(), e.getMessage(), null, r.value()));
            return;
        }
        if (!runId.equals(f.runId())) {
            otherRun.inc();
            return;
        }
        out.collect(VoteOperator.Input.of(f));
    }
}
