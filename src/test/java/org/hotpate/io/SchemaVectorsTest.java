package org.hotpate.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecordBase;
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
import org.hotpate.model.TeacherFeedback;
import org.junit.jupiter.api.Test;

/**
 * The byte-exact examples in {@code schemas/vectors/} for producers and consumers in other
 * languages: one single-object-encoded record per topic ({@code NAME.bin}) and its Avro JSON
 * ({@code NAME.json}). Each must be exactly what {@link AvroWire} writes for the record below, and
 * must decode back to it and to the JSON. Regenerate after a schema change with {@code mvn -o test
 * -Dtest=SchemaVectorsTest -Dhotpate.writeVectors=true} and commit the files.
 */
class SchemaVectorsTest {
    private static final Path DIR = Path.of("schemas", "vectors");

    /** One example per topic record type: name → (bytes, what they decode to as Avro JSON). */
    private static Map<String, byte[]> vectors() {
        Map<String, byte[]> v = new LinkedHashMap<>();
        v.put(
                "generation_step",
                AvroWire.encode(
                        new GenerationStep(
                                "demo-20261123-065128-1117",
                                "ensemble-0",
                                3,
                                2,
                                0,
                                new int[] {697, 25},
                                -3316785720011823587L,
                                1,
                                100277,
                                1763880000000L,
                                1763880060000L)));
        v.put(
                "teacher_distribution",
                AvroWire.encode(
                        new Distribution(
                                "demo-20261123-065128-1117",
                                3,
                                2,
                                0,
                                41,
                                PayloadKind.SPARSE,
                                new int[] {510, 95},
                                new double[] {0.75, 0.125},
                                1,
                                Double.NaN,
                                -1,
                                0,
                                1763880000123L)));
        v.put(
                "step_result",
                AvroWire.encode(
                        new StepResult(
                                "demo-20261123-065128-1117",
                                3,
                                2,
                                0,
                                Outcome.TOKEN,
                                510,
                                "confident-gnmax",
                                "{\"type\":\"ConfidentGnmax\",\"sigma1\":60.0,\"threshold\":250.0,"
                                        + "\"sigma2\":30.0,\"answered\":true}",
                                0.73,
                                1311.0,
                                2284)));
        v.put(
                "synthetic_record",
                AvroWire.encode(
                        new SyntheticRecord(
                                "demo-20261123-065128-1117",
                                3,
                                new int[] {697, 25, 622, 70847, 63251},
                                "Re: JPEGs patented",
                                5,
                                0,
                                0,
                                FinishReason.STOP_TOKEN,
                                1763880100000L)));
        v.put(
                "ledger_event",
                AvroWire.encode(
                        new LedgerEntry(
                                "demo-20261123-065128-1117",
                                LedgerKind.CHARGE,
                                3,
                                2,
                                0,
                                "confident-gnmax",
                                "{\"type\":\"ConfidentGnmax\"}",
                                0.73,
                                1e-6,
                                17,
                                -1,
                                1763880000500L,
                                1998,
                                0.73,
                                1406)));
        v.put(
                "rejected_record",
                AvroWire.encode(
                        new Rejected(
                                "hotpate.distributions",
                                Rejected.UNDECODABLE,
                                "not single-object Avro: bad marker 0x7b",
                                null,
                                -1,
                                1,
                                4711,
                                "{not avro}".getBytes(StandardCharsets.UTF_8),
                                1763880000600L)));
        v.put(
                "private_record",
                AvroWire.encode(
                        new PrivateRecord(
                                "alice@example.org", "Re: apt 0.5.7 on RH 7.x", "ham", -1L)));
        v.put(
                "budget_ledger_record",
                BudgetLedgerWire.encode(
                        new BudgetRecord(
                                "records-hotpate.private-records",
                                "demo-20261123-065128-1117",
                                true,
                                "confident-gnmax",
                                new double[] {2, 8, 32},
                                new double[] {0.004, 0.016, 0.064},
                                0,
                                1e-6,
                                17,
                                15,
                                0.73,
                                1763880000500L,
                                new double[] {8, 1e-6, 8, 0, 0})));
        v.put(
                "teacher_feedback",
                AvroWire.encode(
                        new TeacherFeedback(
                                "individual-a-20261123-065128-1117",
                                3,
                                2,
                                0,
                                41,
                                true,
                                1763880000700L)));
        return v;
    }

    /** The Avro JSON of a single-object-encoded record, decoded with its generated class. */
    private static String json(String name, byte[] b) throws IOException {
        SpecificRecordBase r =
                switch (name) {
                    case "generation_step" ->
                            org.hotpate.io.avro.GenerationStep.getDecoder().decode(b);
                    case "teacher_distribution" ->
                            org.hotpate.io.avro.TeacherDistribution.getDecoder().decode(b);
                    case "step_result" -> org.hotpate.io.avro.StepResult.getDecoder().decode(b);
                    case "synthetic_record" ->
                            org.hotpate.io.avro.SyntheticRecord.getDecoder().decode(b);
                    case "ledger_event" -> org.hotpate.io.avro.LedgerEvent.getDecoder().decode(b);
                    case "rejected_record" ->
                            org.hotpate.io.avro.RejectedRecord.getDecoder().decode(b);
                    case "private_record" ->
                            org.hotpate.io.avro.PrivateRecord.getDecoder().decode(b);
                    case "budget_ledger_record" ->
                            org.hotpate.io.avro.BudgetLedgerRecord.getDecoder().decode(b);
                    case "teacher_feedback" ->
                            org.hotpate.io.avro.TeacherFeedback.getDecoder().decode(b);
                    default -> throw new IllegalArgumentException(name);
                };
        return r.toString() + "\n";
    }

    @Test
    void everyVectorIsWhatTheWireWritesAndDecodesToItsJson() throws Exception {
        boolean write = Boolean.getBoolean("hotpate.writeVectors");
        for (Map.Entry<String, byte[]> e : vectors().entrySet()) {
            Path bin = DIR.resolve(e.getKey() + ".bin");
            Path js = DIR.resolve(e.getKey() + ".json");
            if (write) {
                Files.createDirectories(DIR);
                Files.write(bin, e.getValue());
                Files.writeString(js, json(e.getKey(), e.getValue()));
            }
            byte[] onDisk = Files.readAllBytes(bin);
            assertThat(onDisk)
                    .as(bin + " (regenerate: see the class Javadoc)")
                    .isEqualTo(e.getValue());
            // single-object header: C3 01, then the 8-byte CRC-64-AVRO fingerprint
            assertThat(onDisk[0]).isEqualTo((byte) 0xC3);
            assertThat(onDisk[1]).isEqualTo((byte) 0x01);
            assertThat(json(e.getKey(), onDisk)).as(js.toString()).isEqualTo(Files.readString(js));
        }
        // the wire's own decoders read them back
        assertThat(
                        AvroWire.decodeStep(Files.readAllBytes(DIR.resolve("generation_step.bin")))
                                .prefix())
                .containsExactly(697, 25);
        assertThat(
                        AvroWire.decodeDistribution(
                                        Files.readAllBytes(DIR.resolve("teacher_distribution.bin")))
                                .values())
                .containsExactly(0.75, 0.125);
        assertThat(
                        AvroWire.decodeRecord(
                                        Files.readAllBytes(DIR.resolve("synthetic_record.bin")))
                                .text())
                .isEqualTo("Re: JPEGs patented");
        assertThat(
                        AvroWire.decodePrivateRecord(
                                        Files.readAllBytes(DIR.resolve("private_record.bin")))
                                .user())
                .isEqualTo("alice@example.org");
        assertThat(
                        BudgetLedgerWire.decodeBudgetRecord(
                                        Files.readAllBytes(DIR.resolve("budget_ledger_record.bin")))
                                .orElseThrow()
                                .datasetPlan())
                .containsExactly(8, 1e-6, 8, 0, 0);
        assertThat(
                        AvroWire.decodeTeacherFeedback(
                                Files.readAllBytes(DIR.resolve("teacher_feedback.bin"))))
                .isEqualTo(
                        new TeacherFeedback(
                                "individual-a-20261123-065128-1117",
                                3,
                                2,
                                0,
                                41,
                                true,
                                1763880000700L));
    }
}
