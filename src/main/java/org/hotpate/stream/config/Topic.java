package org.hotpate.stream.config;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.hotpate.io.AvroWire;
import org.hotpate.io.BudgetLedgerWire;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.KafkaOut;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.PrivateRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.model.TeacherFeedback;
import org.hotpate.model.TeacherSpend;
import org.hotpate.protocol.SequenceId;

/**
 * The typed registry of the job's Kafka topics: each topic's id (its job-spec key {@code
 * kafka.topics.<id>} and default name {@code hotpate.<id>}), its description, who writes it (the
 * ACL layout), the record type with its Kafka key and Avro value (single-object encoding, {@code
 * schemas/}); who may read each is docs/threat-model.md's. The job, the driver, the cluster job,
 * the ACL layout and the benchmark take their topics from here; the names a run uses come from its
 * spec ({@link JobConfig.Topics}).
 *
 * <p>The budget-ledger topic holds two record types: each run's curve ({@link #BUDGET_LEDGER}) and
 * each teacher's spending ({@link #TEACHER_SPENDING}), one topic id.
 */
public final class Topic<T> implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Who writes a topic. */
    public enum Writer {
        /** The Flink job (and the driver, as the same principal). */
        JOB,
        /** The teacher workers (or an inference service). */
        TEACHERS,
        /** The driver of a records run, or the users' own producers. */
        RECORDS_PRODUCERS
    }

    /** A record's Kafka key. */
    @FunctionalInterface
    public interface KeyOf<T> extends Serializable {
        String key(T record);
    }

    /** A record's Kafka value. */
    @FunctionalInterface
    public interface Encoder<T> extends Serializable {
        byte[] encode(T record);
    }

    public static final Topic<GenerationStep> STEPS =
            new Topic<>(
                    "steps",
                    "Topic of generation steps.",
                    Writer.JOB,
                    s -> SequenceId.keyOf(s.runId(), s.sequenceId()),
                    AvroWire::encode);

    public static final Topic<Distribution> DISTRIBUTIONS =
            new Topic<>(
                    "distributions",
                    "Topic of teacher distributions.",
                    Writer.TEACHERS,
                    d -> Long.toString(d.teacherId()),
                    AvroWire::encode);

    public static final Topic<StepResult> RESULTS =
            new Topic<>(
                    "results",
                    "Topic of step results.",
                    Writer.JOB,
                    r -> SequenceId.keyOf(r.runId(), r.sequenceId()),
                    AvroWire::encode);

    public static final Topic<SyntheticRecord> RECORDS =
            new Topic<>(
                    "records",
                    "Topic of finished synthetic records.",
                    Writer.JOB,
                    SyntheticRecord::runId,
                    AvroWire::encode);

    public static final Topic<LedgerEntry> LEDGER =
            new Topic<>(
                    "ledger",
                    "Topic of privacy ledger events.",
                    Writer.JOB,
                    LedgerEntry::runId,
                    AvroWire::encode);

    public static final Topic<Rejected> REJECTED =
            new Topic<>(
                    "rejected",
                    "Topic of dead letters (operator-only).",
                    Writer.JOB,
                    r -> null,
                    AvroWire::encode);

    public static final Topic<BudgetRecord> BUDGET_LEDGER =
            new Topic<>(
                    "budget-ledger",
                    "Compacted topic of the durable per-dataset budget ledger (budget.ledger: kafka;"
                            + " operator-only), key <dataset>/run/<run id>.",
                    Writer.JOB,
                    BudgetRecord::key,
                    BudgetLedgerWire::encode);

    /** Each teacher's spending, on the budget-ledger topic (key {@code <dataset>/teacher/<id>}). */
    public static final Topic<TeacherSpend> TEACHER_SPENDING =
            new Topic<>(
                    "budget-ledger",
                    BUDGET_LEDGER.description,
                    Writer.JOB,
                    TeacherSpend::key,
                    BudgetLedgerWire::encode);

    public static final Topic<TeacherFeedback> TEACHER_FEEDBACK =
            new Topic<>(
                    "teacher-feedback",
                    "Topic on which the job feeds each scheme-a release's outcome back to the"
                            + " involved teachers' keyed state (written and read by the job only,"
                            + " exactly-once; operator-only), key: the teacher id.",
                    Writer.JOB,
                    f -> Long.toString(f.teacherId()),
                    AvroWire::encode);

    public static final Topic<PrivateRecord> PRIVATE_RECORDS =
            new Topic<>(
                    "private-records",
                    "Topic of private user records (schemas/private_record.avsc).",
                    Writer.RECORDS_PRODUCERS,
                    PrivateRecord::user,
                    AvroWire::encode);

    /** One entry per topic id, in documentation order (the teacher spending shares its topic). */
    public static final List<Topic<?>> ALL =
            List.of(
                    STEPS,
                    DISTRIBUTIONS,
                    RESULTS,
                    RECORDS,
                    LEDGER,
                    REJECTED,
                    BUDGET_LEDGER,
                    TEACHER_FEEDBACK,
                    PRIVATE_RECORDS);

    /**
     * The topics of the job and its teachers — the ACL layout (docs/threat-model.md) and the
     * Kubernetes topics; not the records run's private-records input.
     */
    public static final List<Topic<?>> JOB_TOPICS =
            List.of(
                    STEPS,
                    DISTRIBUTIONS,
                    RESULTS,
                    RECORDS,
                    LEDGER,
                    REJECTED,
                    BUDGET_LEDGER,
                    TEACHER_FEEDBACK);

    /**
     * What {@code run} creates when missing (the budget ledger is created compacted on its own).
     */
    public static final List<Topic<?>> CREATED_WITH_RUN =
            List.of(STEPS, DISTRIBUTIONS, RESULTS, RECORDS, LEDGER, REJECTED, TEACHER_FEEDBACK);

    private final String id;
    private final String description;
    private final Writer writer;
    private final KeyOf<T> keyOf;
    private final Encoder<T> encoder;

    private Topic(
            String id, String description, Writer writer, KeyOf<T> keyOf, Encoder<T> encoder) {
        this.id = id;
        this.description = description;
        this.writer = writer;
        this.keyOf = keyOf;
        this.encoder = encoder;
    }

    /** The id: the job-spec key is {@code kafka.topics.<id>}. */
    public String id() {
        return id;
    }

    /** {@code kafka.topics.<id>}. */
    public String optionKey() {
        return "kafka.topics." + id;
    }

    /** {@code hotpate.<id>}. */
    public String defaultName() {
        return "hotpate." + id;
    }

    public String description() {
        return description;
    }

    public Writer writer() {
        return writer;
    }

    /** {@code record} for the job's exactly-once sink, on the topic named {@code name}. */
    public KafkaOut out(String name, T record) {
        String key = keyOf.key(record);
        return new KafkaOut(
                name,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                encoder.encode(record));
    }

    @Override
    public String toString() {
        return id;
    }
}
