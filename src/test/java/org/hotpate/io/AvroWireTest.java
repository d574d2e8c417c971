package org.hotpate.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.hotpate.core.generation.FinishReason;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.Outcome;
import org.hotpate.model.PayloadKind;
import org.hotpate.model.PrivateRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.junit.jupiter.api.Test;

class AvroWireTest {
    @Test
    void stepsRoundTripWithTheWriterFingerprintInFront() throws Exception {
        GenerationStep s =
                new GenerationStep("r", "e", 3, 4, 1, new int[] {100, 200}, -5L, 1, 1050, 10, 20);
        byte[] b = AvroWire.encode(s);
        // Single-object encoding: C3 01 marker, then the schema's CRC-64-AVRO fingerprint (little
        // endian).
        assertThat(b[0]).isEqualTo((byte) 0xC3);
        assertThat(b[1]).isEqualTo((byte) 0x01);
        long fp =
                SchemaNormalization.parsingFingerprint64(
                        org.hotpate.io.avro.GenerationStep.getClassSchema());
        long got = 0;
        for (int i = 0; i < 8; i++) {
            got |= (b[2 + i] & 0xFFL) << (8 * i);
        }
        assertThat(got).isEqualTo(fp);
        GenerationStep back = AvroWire.decodeStep(b);
        assertThat(back.prefix()).containsExactly(100, 200);
        assertThat(back)
                .usingRecursiveComparison()
                .withEqualsForType(Double::equals, Double.class)
                .isEqualTo(s);
    }

    @Test
    void everyPayloadFormRoundTrips() throws Exception {
        Distribution[] ds = {
            new Distribution(
                    "r",
                    1,
                    2,
                    0,
                    7,
                    PayloadKind.SPARSE,
                    new int[] {1, 2},
                    new double[] {.5, .25},
                    1,
                    Double.NaN,
                    -1,
                    0,
                    9),
            new Distribution(
                    "r",
                    1,
                    2,
                    0,
                    7,
                    PayloadKind.TOP_K_LOGITS,
                    new int[] {1},
                    new double[] {-0.3},
                    0.7,
                    1.5,
                    -1,
                    0,
                    9),
            new Distribution(
                    "r",
                    1,
                    2,
                    0,
                    7,
                    PayloadKind.TOP_K_LOGITS,
                    new int[] {1},
                    new double[] {-0.3},
                    0.7,
                    Double.NaN,
                    -1,
                    0,
                    9),
            new Distribution(
                    "r",
                    1,
                    2,
                    0,
                    7,
                    PayloadKind.MODEL_VOTE,
                    new int[0],
                    new double[0],
                    1,
                    Double.NaN,
                    42,
                    1,
                    9),
            new Distribution(
                    "r",
                    1,
                    2,
                    0,
                    7,
                    PayloadKind.RAW_SAMPLES,
                    new int[] {3, 3, 4},
                    new double[0],
                    1,
                    Double.NaN,
                    -1,
                    0,
                    9),
        };
        for (Distribution d : ds) {
            assertThat(AvroWire.decodeDistribution(AvroWire.encode(d)))
                    .usingRecursiveComparison()
                    .withEqualsForType(Double::equals, Double.class)
                    .isEqualTo(d);
        }
    }

    @Test
    void outputsRoundTrip() throws Exception {
        StepResult r = new StepResult("r", 1, 2, 0, Outcome.TOKEN, 5, "gnmax", "{}", 0.5, 3.5, 10);
        assertThat(AvroWire.decodeResult(AvroWire.encode(r)))
                .usingRecursiveComparison()
                .withEqualsForType(Double::equals, Double.class)
                .isEqualTo(r);
        StepResult f =
                new StepResult("r", 1, 2, 0, Outcome.FAIL, -1, "gnmax", "{}", 0.5, Double.NaN, 10);
        assertThat(AvroWire.decodeResult(AvroWire.encode(f)))
                .usingRecursiveComparison()
                .withEqualsForType(Double::equals, Double.class)
                .isEqualTo(f);
        SyntheticRecord s =
                new SyntheticRecord(
                        "r", 1, new int[] {101}, "101", 2, 1, 0, FinishReason.MAX_STEPS, 5);
        assertThat(AvroWire.decodeRecord(AvroWire.encode(s)))
                .usingRecursiveComparison()
                .withEqualsForType(Double::equals, Double.class)
                .isEqualTo(s);
        LedgerEntry e =
                new LedgerEntry(
                        "r",
                        LedgerKind.CHARGE,
                        1,
                        2,
                        0,
                        "gnmax",
                        "{}",
                        0.3,
                        1e-6,
                        4,
                        -1,
                        5,
                        -1,
                        Double.NaN,
                        3);
        assertThat(AvroWire.decodeLedger(AvroWire.encode(e)))
                .usingRecursiveComparison()
                .withEqualsForType(Double::equals, Double.class)
                .isEqualTo(e);
        LedgerEntry full =
                new LedgerEntry(
                        "r",
                        LedgerKind.ABANDONED,
                        1,
                        2,
                        3,
                        "gnmax",
                        "",
                        0.3,
                        1e-6,
                        4,
                        -1,
                        5,
                        17,
                        1.25,
                        -1);
        assertThat(AvroWire.decodeLedger(AvroWire.encode(full)))
                .usingRecursiveComparison()
                .withEqualsForType(Double::equals, Double.class)
                .isEqualTo(full);
        BudgetRecord b =
                new BudgetRecord(
                        "ds",
                        "run-1",
                        true,
                        "gnmax",
                        new double[] {2, 4},
                        new double[] {0.5, 1.5},
                        1e-9,
                        1e-6,
                        7,
                        6,
                        2.5,
                        99,
                        new double[] {3, 1e-6, 8, 0, 0});
        assertThat(BudgetLedgerWire.decodeBudgetRecord(BudgetLedgerWire.encode(b)))
                .get()
                .usingRecursiveComparison()
                .isEqualTo(b);
        Rejected x =
                new Rejected(
                        "t", Rejected.UNDECODABLE, "bad", null, -1, 0, 17, new byte[] {1, 2}, 5);
        assertThat(AvroWire.decodeRejected(AvroWire.encode(x)))
                .usingRecursiveComparison()
                .withEqualsForType(Double::equals, Double.class)
                .isEqualTo(x);
    }

    /**
     * Results written before the public/operator split (v1: with chargedTeachers, votesCast and
     * closedAtMs) still decode; the dropped fields are simply gone.
     */
    @Test
    void v1ResultsStillDecode() throws Exception {
        Schema v1;
        try (var in = getClass().getResourceAsStream("/schemas/legacy/step_result-v1.avsc")) {
            v1 = new Schema.Parser().parse(in);
        }
        org.apache.avro.generic.GenericRecord old =
                new org.apache.avro.generic.GenericData.Record(v1);
        old.put("runId", "r");
        old.put("sequenceId", 1L);
        old.put("step", 2);
        old.put("attempt", 0);
        old.put("outcome", "TOKEN");
        old.put("token", 5);
        old.put("mechanism", "gnmax");
        old.put("privacyEvent", "{}");
        old.put("epsilonSpent", 0.5);
        old.put("noisyCount", null);
        old.put("chargedTeachers", java.util.List.of(3L));
        old.put("votesCast", 9);
        old.put("teachers", 10);
        old.put("closedAtMs", 11L);
        java.nio.ByteBuffer bytes =
                new org.apache.avro.message.BinaryMessageEncoder<
                                org.apache.avro.generic.GenericRecord>(
                                org.apache.avro.generic.GenericData.get(), v1)
                        .encode(old);
        byte[] raw = new byte[bytes.remaining()];
        bytes.get(raw);
        StepResult r = AvroWire.decodeResult(raw);
        assertThat(r.token()).isEqualTo(5);
        assertThat(r.teachers()).isEqualTo(10);
        assertThat(r.epsilonSpent()).isEqualTo(0.5);
    }

    /**
     * Ledger entries written before releasedVotes (v1) still decode, with -1 ("not applicable").
     * Fails when decodeLedger reads only the current schema's fingerprint.
     */
    @Test
    void v1LedgerEntriesStillDecode() throws Exception {
        Schema v1;
        try (var in = getClass().getResourceAsStream("/schemas/legacy/ledger_event-v1.avsc")) {
            v1 = new Schema.Parser().parse(in);
        }
        org.apache.avro.generic.GenericRecord old =
                new org.apache.avro.generic.GenericData.Record(v1);
        old.put("runId", "r");
        old.put("kind", "CHARGE");
        old.put("sequenceId", 1L);
        old.put("step", 2);
        old.put("attempt", 0);
        old.put("mechanism", "gnmax");
        old.put("privacyEvent", "{}");
        old.put("epsilonAfter", 0.3);
        old.put("delta", 1e-6);
        old.put("releases", 4L);
        old.put("teacherId", null);
        old.put("atMs", 5L);
        old.put("votesCast", 9);
        old.put("datasetEpsilonAfter", null);
        java.nio.ByteBuffer bytes =
                new org.apache.avro.message.BinaryMessageEncoder<
                                org.apache.avro.generic.GenericRecord>(
                                org.apache.avro.generic.GenericData.get(), v1)
                        .encode(old);
        byte[] raw = new byte[bytes.remaining()];
        bytes.get(raw);
        LedgerEntry e = AvroWire.decodeLedger(raw);
        assertThat(e.votesCast()).isEqualTo(9);
        assertThat(e.releasedVotes()).isEqualTo(-1);
    }

    @Test
    void garbageAndOtherSchemasAreUndecodable() {
        byte[] step =
                AvroWire.encode(
                        new GenerationStep("r", "e", 3, 4, 1, new int[0], -5L, 1, 1050, 10, 20));
        assertThatThrownBy(() -> AvroWire.decodeDistribution(step))
                .isInstanceOf(AvroWire.UndecodableException.class);
        assertThatThrownBy(() -> AvroWire.decodeStep("hello".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(AvroWire.UndecodableException.class);
        assertThatThrownBy(() -> AvroWire.decodeStep(new byte[0]))
                .isInstanceOf(AvroWire.UndecodableException.class);
        assertThatThrownBy(() -> AvroWire.decodeStep(Arrays.copyOf(step, step.length - 3)))
                .isInstanceOf(AvroWire.UndecodableException.class);
    }

    @Test
    void everySchemaDocumentsEveryRecordAndField() {
        Schema[] schemas = {
            org.hotpate.io.avro.GenerationStep.getClassSchema(),
                    org.hotpate.io.avro.TeacherDistribution.getClassSchema(),
            org.hotpate.io.avro.Vote.getClassSchema(),
                    org.hotpate.io.avro.StepResult.getClassSchema(),
            org.hotpate.io.avro.SyntheticRecord.getClassSchema(),
                    org.hotpate.io.avro.LedgerEvent.getClassSchema(),
            org.hotpate.io.avro.RejectedRecord.getClassSchema(),
                    org.hotpate.io.avro.BudgetLedgerRecord.getClassSchema()
        };
        for (Schema s : schemas) {
            assertDocumented(s);
        }
    }

    private static void assertDocumented(Schema s) {
        if (s.getType() == Schema.Type.UNION) {
            s.getTypes().forEach(AvroWireTest::assertDocumented);
            return;
        }
        if (s.getType() != Schema.Type.RECORD) {
            return;
        }
        assertThat(s.getDoc()).as("doc of " + s.getFullName()).isNotBlank();
        for (Schema.Field f : s.getFields()) {
            assertThat(f.doc()).as("doc of " + s.getName() + "." + f.name()).isNotBlank();
            assertDocumented(f.schema());
        }
    }

    @Test
    void aKnownHeaderWithAnUnknownFingerprintIsUnknownSchema_garbageIsUndecodable()
            throws Exception {
        byte[] step =
                AvroWire.encode(
                        new GenerationStep("r", "e", 3, 4, 1, new int[0], -5L, 1, 1050, 10, 20));
        byte[] other = step.clone();
        other[5] ^= 0x5a; // inside the 8-byte fingerprint after the 2-byte marker
        assertThatThrownBy(() -> AvroWire.decodeStep(other))
                .isInstanceOfSatisfying(
                        AvroWire.UndecodableException.class,
                        e -> assertThat(e.reason()).isEqualTo(Rejected.UNKNOWN_SCHEMA));
        assertThatThrownBy(() -> AvroWire.decodeStep("hello".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOfSatisfying(
                        AvroWire.UndecodableException.class,
                        e -> assertThat(e.reason()).isEqualTo(Rejected.UNDECODABLE));
    }

    @Test
    void aPrivateRecordWhoseTextIsNotUtf8IsRejected_aRealReplacementCharacterIsNot()
            throws Exception {
        byte[] ok = AvroWire.encode(new PrivateRecord("u", "aXc", "", -1));
        int at = indexOf(ok, "aXc".getBytes(StandardCharsets.UTF_8));
        byte[] bad = ok.clone();
        bad[at + 1] = (byte) 0xff; // same length, so the Avro framing stays intact
        assertThatThrownBy(() -> AvroWire.decodePrivateRecord(bad))
                .isInstanceOfSatisfying(
                        AvroWire.UndecodableException.class,
                        e -> assertThat(e.reason()).isEqualTo(Rejected.NOT_UTF8));
        PrivateRecord real = new PrivateRecord("u", "a\uFFFDc", "", -1);
        assertThat(AvroWire.decodePrivateRecord(AvroWire.encode(real)).text())
                .isEqualTo("a\uFFFDc");
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }

    /**
     * Per-teacher ledger entries round-trip with their pending involvements and version, and
     * entries written with the v1 ledger schema (before those fields) still decode, with 0.
     */
    @Test
    void teacherEntriesCarryPendingAndV1EntriesStillDecode() throws Exception {
        org.hotpate.model.TeacherSpend t =
                new org.hotpate.model.TeacherSpend(
                        "D", 4, "scheme-a/p", 2, 3, 11, 0.7, 1e-6, false, "r", 9);
        assertThat(BudgetLedgerWire.decodeTeacherSpend(BudgetLedgerWire.encode(t))).contains(t);
        Schema v1;
        try (var in =
                getClass().getResourceAsStream("/schemas/legacy/budget_ledger_record-v1.avsc")) {
            v1 = new Schema.Parser().parse(in);
        }
        org.apache.avro.generic.GenericRecord old =
                new org.apache.avro.generic.GenericData.Record(v1);
        old.put("dataset", "D");
        old.put("kind", "teacher");
        old.put("runId", "r0");
        old.put("teacherId", 4L);
        old.put("differentiallyPrivate", true);
        old.put("mechanism", "scheme-a/p");
        old.put("orders", java.util.List.of());
        old.put("rdp", java.util.List.of());
        old.put("approxDelta", 0.0);
        old.put("delta", 1e-6);
        old.put("releases", 5L);
        old.put("answered", 1L);
        old.put("epsilon", 2.5);
        old.put("updatedAtMs", 3L);
        old.put("datasetPlan", java.util.List.of());
        java.nio.ByteBuffer bytes =
                new org.apache.avro.message.BinaryMessageEncoder<
                                org.apache.avro.generic.GenericRecord>(
                                org.apache.avro.generic.GenericData.get(), v1)
                        .encode(old);
        byte[] raw = new byte[bytes.remaining()];
        bytes.get(raw);
        org.hotpate.model.TeacherSpend read =
                BudgetLedgerWire.decodeTeacherSpend(raw).orElseThrow();
        assertThat(read.charges()).isEqualTo(5);
        assertThat(read.pending()).isZero();
        assertThat(read.version()).isZero();
        assertThat(read.retired()).isTrue();
        assertThat(BudgetLedgerWire.decodeBudgetRecord(raw))
                .isEmpty(); // a teacher entry, not a run's
    }

    /** A dataset's pseudonym secret on the ledger topic; readers of other kinds skip it. */
    @Test
    void pseudonymKeyEntriesRoundTripAndOtherReadersSkipThem() throws Exception {
        byte[] secret = new byte[32];
        secret[5] = 9;
        byte[] b = BudgetLedgerWire.encodePseudonymKey("D", secret, 1);
        var e = BudgetLedgerWire.decodePseudonymKey(b).orElseThrow();
        assertThat(e.getKey()).isEqualTo("D");
        assertThat(e.getValue()).isEqualTo(secret);
        assertThat(BudgetLedgerWire.decodeBudgetRecord(b)).isEmpty();
        assertThat(BudgetLedgerWire.decodeTeacherSpend(b)).isEmpty();
    }
}
