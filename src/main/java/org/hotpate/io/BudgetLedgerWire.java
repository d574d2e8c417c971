package org.hotpate.io;

import java.util.List;
import org.apache.avro.message.BinaryMessageDecoder;
import org.hotpate.io.AvroWire.UndecodableException;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.LedgerMarker;
import org.hotpate.model.TeacherSpend;

/**
 * The entries of the budget-ledger topic on the wire: one Avro record, {@code BudgetLedgerRecord}
 * (single-object encoding, {@link AvroWire}), whose {@code kind} says which entry it is — a run's
 * budget record, a teacher's spending, a dataset's pseudonym secret, or a driver's marker (lease,
 * finished). Each decoder returns empty for the other kinds, so a reader of one kind skips the rest
 * of the topic.
 */
public final class BudgetLedgerWire {
    private BudgetLedgerWire() {}

    /**
     * Decodes current ledger entries and v1 entries (written before teacher entries carried {@code
     * pending} and {@code version}) and v2 entries (before run entries carried {@code priorSlack});
     * Avro schema resolution fills in their defaults, 0.
     */
    private static final BinaryMessageDecoder<org.hotpate.io.avro.BudgetLedgerRecord>
            LEDGER_DECODER =
                    AvroWire.decoderWithLegacy(
                            org.hotpate.io.avro.BudgetLedgerRecord.getClassSchema(),
                            "/schemas/legacy/budget_ledger_record-v1.avsc",
                            "/schemas/legacy/budget_ledger_record-v2.avsc");

    /** A run's budget record on the budget-ledger topic (kind {@code run}). */
    public static byte[] encode(BudgetRecord r) {
        var a =
                org.hotpate.io.avro.BudgetLedgerRecord.newBuilder()
                        .setDataset(r.dataset())
                        .setKind(BudgetRecord.RUN)
                        .setRunId(r.runId())
                        .setTeacherId(null)
                        .setDifferentiallyPrivate(r.differentiallyPrivate())
                        .setMechanism(r.mechanism())
                        .setOrders(AvroWire.doubles(r.orders()))
                        .setRdp(AvroWire.doubles(r.rdp()))
                        .setApproxDelta(r.approxDelta())
                        .setDelta(r.delta())
                        .setReleases(r.releases())
                        .setAnswered(r.answered())
                        .setEpsilon(r.epsilon())
                        .setUpdatedAtMs(r.updatedAtMs())
                        .setDatasetPlan(AvroWire.doubles(r.datasetPlan()))
                        .setPriorSlack(r.priorSlack())
                        .build();
        return AvroWire.bytes(() -> org.hotpate.io.avro.BudgetLedgerRecord.getEncoder().encode(a));
    }

    /** A run's budget record, or empty for other kinds (teacher entries are reserved). */
    public static java.util.Optional<BudgetRecord> decodeBudgetRecord(byte[] b)
            throws UndecodableException {
        var a = AvroWire.decode(() -> LEDGER_DECODER.decode(b), "BudgetLedgerRecord");
        if (!BudgetRecord.RUN.equals(a.getKind()) || a.getRunId() == null) {
            return java.util.Optional.empty();
        }
        try {
            return java.util.Optional.of(
                    new BudgetRecord(
                            a.getDataset(),
                            a.getRunId(),
                            a.getDifferentiallyPrivate(),
                            a.getMechanism(),
                            AvroWire.doubles(a.getOrders()),
                            AvroWire.doubles(a.getRdp()),
                            a.getApproxDelta(),
                            a.getDelta(),
                            a.getReleases(),
                            a.getAnswered(),
                            a.getEpsilon(),
                            a.getUpdatedAtMs(),
                            AvroWire.doubles(a.getDatasetPlan()),
                            a.getPriorSlack()));
        } catch (IllegalArgumentException e) {
            throw new UndecodableException("not a valid BudgetLedgerRecord: " + e.getMessage(), e);
        }
    }

    /**
     * A teacher's spending on the budget-ledger topic: kind {@code teacher}, {@code mechanism} =
     * the plan, {@code releases} = charges, {@code pending} = provisional charges (pending
     * involvements), {@code version} = the entry's change count, {@code answered} = 1 if retired,
     * {@code epsilon} at {@code delta}, {@code runId} = the run that wrote it.
     */
    public static byte[] encode(TeacherSpend t) {
        var a =
                org.hotpate.io.avro.BudgetLedgerRecord.newBuilder()
                        .setDataset(t.dataset())
                        .setKind(BudgetRecord.TEACHER)
                        .setRunId(t.runId())
                        .setTeacherId(t.teacherId())
                        .setDifferentiallyPrivate(true)
                        .setMechanism(t.plan())
                        .setOrders(List.of())
                        .setRdp(List.of())
                        .setApproxDelta(0)
                        .setDelta(t.delta())
                        .setReleases(t.charges())
                        .setPending(t.pending())
                        .setVersion(t.version())
                        .setAnswered(t.retired() ? 1 : 0)
                        .setEpsilon(t.epsilon())
                        .setUpdatedAtMs(t.updatedAtMs())
                        .setDatasetPlan(List.of())
                        .build();
        return AvroWire.bytes(() -> org.hotpate.io.avro.BudgetLedgerRecord.getEncoder().encode(a));
    }

    /**
     * A dataset's pseudonym secret on the budget-ledger topic (kind {@code pseudonym-key}, key
     * {@code <dataset>/pseudonym-key}; {@code mechanism} = the secret in hex).
     */
    public static byte[] encodePseudonymKey(String dataset, byte[] secret, long atMs) {
        var a =
                org.hotpate.io.avro.BudgetLedgerRecord.newBuilder()
                        .setDataset(dataset)
                        .setKind(BudgetRecord.PSEUDONYM_KEY)
                        .setRunId(null)
                        .setTeacherId(null)
                        .setDifferentiallyPrivate(true)
                        .setMechanism(java.util.HexFormat.of().formatHex(secret))
                        .setOrders(List.of())
                        .setRdp(List.of())
                        .setDelta(0)
                        .setUpdatedAtMs(atMs)
                        .setDatasetPlan(List.of())
                        .build();
        return AvroWire.bytes(() -> org.hotpate.io.avro.BudgetLedgerRecord.getEncoder().encode(a));
    }

    /** The dataset and secret of a pseudonym-key entry, or empty for other kinds. */
    public static java.util.Optional<java.util.Map.Entry<String, byte[]>> decodePseudonymKey(
            byte[] b) throws UndecodableException {
        var a = AvroWire.decode(() -> LEDGER_DECODER.decode(b), "BudgetLedgerRecord");
        if (!BudgetRecord.PSEUDONYM_KEY.equals(a.getKind())) {
            return java.util.Optional.empty();
        }
        try {
            return java.util.Optional.of(
                    java.util.Map.entry(
                            a.getDataset(), java.util.HexFormat.of().parseHex(a.getMechanism())));
        } catch (IllegalArgumentException e) {
            throw new UndecodableException("not a valid pseudonym-key entry", e);
        }
    }

    /** A teacher entry of the budget-ledger topic, or empty for other kinds. */
    public static java.util.Optional<TeacherSpend> decodeTeacherSpend(byte[] b)
            throws UndecodableException {
        var a = AvroWire.decode(() -> LEDGER_DECODER.decode(b), "BudgetLedgerRecord");
        if (!BudgetRecord.TEACHER.equals(a.getKind())) {
            return java.util.Optional.empty();
        }
        if (a.getTeacherId() == null || a.getRunId() == null) {
            throw new UndecodableException("teacher ledger entry without teacherId or runId", null);
        }
        try {
            return java.util.Optional.of(
                    new TeacherSpend(
                            a.getDataset(),
                            a.getTeacherId(),
                            a.getMechanism(),
                            a.getReleases(),
                            a.getPending(),
                            a.getVersion(),
                            a.getEpsilon(),
                            a.getDelta(),
                            a.getAnswered() > 0,
                            a.getRunId(),
                            a.getUpdatedAtMs()));
        } catch (IllegalArgumentException e) {
            throw new UndecodableException("not a valid teacher entry: " + e.getMessage(), e);
        }
    }

    /**
     * A driver's marker on the budget-ledger topic (not a spending entry; the spending readers skip
     * it): kind {@code lease} (a run's claim on its dataset: {@code runId}, {@code mechanism} = the
     * claim id, {@code releases} = 1 held / 0 released, {@code updatedAtMs} = the last heartbeat,
     * {@code answered} unused) or kind {@code finished} ({@code runId} = the ledger account of a
     * run that ended cleanly; it cannot be resumed).
     */
    public static byte[] encode(LedgerMarker m) {
        var a =
                org.hotpate.io.avro.BudgetLedgerRecord.newBuilder()
                        .setDataset(m.dataset())
                        .setKind(m.kind())
                        .setRunId(m.runId())
                        .setTeacherId(null)
                        .setDifferentiallyPrivate(true)
                        .setMechanism(m.tag())
                        .setOrders(List.of())
                        .setRdp(List.of())
                        .setApproxDelta(0)
                        .setDelta(0)
                        .setReleases(m.held() ? 1 : 0)
                        .setAnswered(0)
                        .setEpsilon(0)
                        .setUpdatedAtMs(m.atMs())
                        .setDatasetPlan(List.of())
                        .build();
        return AvroWire.bytes(() -> org.hotpate.io.avro.BudgetLedgerRecord.getEncoder().encode(a));
    }

    /** A marker of the budget-ledger topic ({@link #encode(LedgerMarker)}), or empty. */
    public static java.util.Optional<LedgerMarker> decodeMarker(byte[] b)
            throws UndecodableException {
        var a =
                AvroWire.decode(
                        () -> org.hotpate.io.avro.BudgetLedgerRecord.getDecoder().decode(b),
                        "BudgetLedgerRecord");
        if (!LedgerMarker.LEASE.equals(a.getKind()) && !LedgerMarker.FINISHED.equals(a.getKind())) {
            return java.util.Optional.empty();
        }
        if (a.getRunId() == null) {
            throw new UndecodableException("ledger marker without runId", null);
        }
        return java.util.Optional.of(
                new LedgerMarker(
                        a.getDataset(),
                        a.getKind(),
                        a.getRunId(),
                        a.getMechanism(),
                        a.getReleases() > 0,
                        a.getUpdatedAtMs()));
    }
}
