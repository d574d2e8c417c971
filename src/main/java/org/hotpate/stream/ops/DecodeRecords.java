package org.hotpate.stream.ops;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.io.AvroWire;
import org.hotpate.model.PrivateRecord;
import org.hotpate.model.RawRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.TeacherRecord;
import org.hotpate.teachers.records.RecordFields;
import org.hotpate.teachers.records.RecordValidator;
import org.hotpate.teachers.records.UserDirectory;
import org.hotpate.teachers.text.Tokenizer;

/**
 * Decodes private records from the topic (any producer may write it), validates them with the same
 * {@link RecordValidator} the driver uses for files, assigns each to its user's teacher ({@link
 * UserDirectory}: disjoint by construction) and tokenizes the text. Undecodable Avro, invalid
 * fields and users the directory does not know go to {@link Tags#REJECTED} (the raw value is kept
 * only for undecodable bytes). Stateless.
 */
public final class DecodeRecords extends ProcessFunction<RawRecord, TeacherRecord> {
    private static final long serialVersionUID = 1L;

    private final String runId;
    private final RecordFields fields;
    private final UserDirectory directory;
    private final String tokenizerName;
    private transient RecordValidator validator;
    private transient Tokenizer tokenizer;
    private transient Counter rejected;
    private transient Counter accepted;

    public DecodeRecords(
            String runId, RecordFields fields, UserDirectory directory, String tokenizerName) {
        this.runId = runId;
        this.fields = fields;
        this.directory = directory;
        this.tokenizerName = tokenizerName;
    }

    @Override
    public void open(OpenContext ctx) {
        validator = new RecordValidator(fields);
        tokenizer = Tokenizer.named(tokenizerName);
        rejected = getRuntimeContext().getMetricGroup().counter("rejected");
        accepted = getRuntimeContext().getMetricGroup().counter("records");
    }

    @Override
    public void processElement(RawRecord r, Context ctx, Collector<TeacherRecord> out) {
        PrivateRecord decoded;
        try {
            decoded = AvroWire.decodePrivateRecord(r.value());
        } catch (AvroWire.UndecodableException e) {
            reject(ctx, r, e.reason(), e.getMessage(), r.value());
            return;
        }
        RecordValidator.Result v = validator.record(decoded);
        if (!v.valid()) {
            reject(ctx, r, v.reason(), v.detail(), null);
            return;
        }
        long teacher = directory.teacherOf(v.record().user());
        if (teacher < 0) {
            reject(
                    ctx,
                    r,
                    RecordValidator.UNKNOWN_USER,
                    "a user the run's directory does not know (written after the run started?)",
                    null);
            return;
        }
        accepted.inc();
        String label = fields.labelled() ? v.record().label() : "";
        out.collect(
                new TeacherRecord(
                        teacher,
                        v.record().user(),
                        label,
                        v.record().text(),
                        tokenizer.encode(v.record().text())));
    }

    private void reject(Context ctx, RawRecord r, String reason, String detail, byte[] value) {
        rejected.inc();
        ctx.output(Tags.REJECTED, Rejected.ofRaw(r, reason, detail, runId, value));
    }
}
