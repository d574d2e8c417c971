package org.hotpate.stream.ops;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Meter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.io.AvroWire;
import org.hotpate.model.Distribution;
import org.hotpate.model.RawRecord;
import org.hotpate.model.Rejected;

/**
 * Decodes raw {@code distributions} records (Avro single-object encoding). Undecodable bytes go to
 * {@link Tags#REJECTED} with reason UNDECODABLE (UNKNOWN_SCHEMA for a fingerprint this version does
 * not read) and the raw value; answers for other runs sharing the topic are skipped (counted in
 * {@code otherRun}). Stateless.
 */
public final class DecodeDistributions extends ProcessFunction<RawRecord, Distribution> {
    private static final long serialVersionUID = 1L;
    private final String runId;
    private transient Counter rejected;
    private transient Counter otherRun;
    private transient Meter decoded;

    public DecodeDistributions(String runId) {
        this.runId = runId;
    }

    @Override
    public void open(OpenContext ctx) {
        rejected = getRuntimeContext().getMetricGroup().counter("rejectedUndecodable");
        otherRun = getRuntimeContext().getMetricGroup().counter("otherRun");
        decoded = JobMetrics.distributions(getRuntimeContext());
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
        if (!runId.equals(d.runId())) {
            otherRun.inc();
            return;
        }
        decoded.markEvent();
        out.collect(d);
    }
}
