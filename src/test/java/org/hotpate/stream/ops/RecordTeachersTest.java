package org.hotpate.stream.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.hotpate.io.AvroWire;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.PrivateRecord;
import org.hotpate.model.RawRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.TeacherQuery;
import org.hotpate.model.TeacherRecord;
import org.hotpate.stream.teachers.HttpTeachers;
import org.hotpate.stream.teachers.NgramTeachers;
import org.hotpate.stream.teachers.RecordsTeacherOperator;
import org.hotpate.stream.teachers.TeacherGate;
import org.hotpate.teachers.records.RecordFields;
import org.hotpate.teachers.records.RecordValidator;
import org.hotpate.teachers.records.UserDirectory;
import org.hotpate.teachers.text.Tokenizer;
import org.junit.jupiter.api.Test;

/** The records branch's operators under Flink test harnesses. */
class RecordTeachersTest {
    private static final Tokenizer TOK = Tokenizer.named("cl100k_base");

    @Test
    void decodeValidatesTopicRecordsAndSendsEveryRecordOfAUserToItsTeacher() throws Exception {
        UserDirectory dir = UserDirectory.hashed(5, 1);
        var fn =
                new DecodeRecords(
                        "run", new RecordFields("user", "text", "", "", 10), dir, "cl100k_base");
        OneInputStreamOperatorTestHarness<RawRecord, TeacherRecord> h =
                ProcessFunctionTestHarnesses.forProcessFunction(fn);
        long off = 0;
        for (int u = 0; u < 20; u++) {
            for (int i = 0; i < 3; i++) {
                h.processElement(
                        raw(off++, AvroWire.encode(new PrivateRecord("u" + u, "hi " + i, "", -1))),
                        0);
            }
        }
        h.processElement(raw(off++, "garbage".getBytes()), 0);
        h.processElement(raw(off++, AvroWire.encode(new PrivateRecord(" ", "x", "", -1))), 0);
        h.processElement(raw(off++, AvroWire.encode(new PrivateRecord("u1", "", "", -1))), 0);
        h.processElement(
                raw(off++, AvroWire.encode(new PrivateRecord("u1", "far too long text", "", -1))),
                0);
        Map<String, Long> teacherOf = new HashMap<>();
        for (TeacherRecord r : h.extractOutputValues()) {
            assertThat(teacherOf.computeIfAbsent(r.user(), u -> r.teacherId()))
                    .as("one teacher per user")
                    .isEqualTo(r.teacherId());
            assertThat(r.teacherId()).isEqualTo(dir.teacherOf(r.user()));
            assertThat(TOK.decode(r.tokens())).isEqualTo(r.text());
        }
        assertThat(h.extractOutputValues()).hasSize(60);
        List<String> reasons = new ArrayList<>();
        for (StreamRecord<Rejected> r : h.getSideOutput(Tags.REJECTED)) {
            reasons.add(r.getValue().reason());
        }
        assertThat(reasons)
                .containsExactly(
                        Rejected.UNDECODABLE,
                        RecordValidator.MISSING_USER,
                        RecordValidator.EMPTY_TEXT,
                        RecordValidator.TEXT_TOO_LONG);
    }

    private static RawRecord raw(long offset, byte[] value) {
        return new RawRecord("t", 0, offset, null, value);
    }

    private static GenerationStep step(long seq, int[] prompt) {
        return new GenerationStep(
                "run",
                "e",
                seq,
                0,
                0,
                new int[0],
                1L,
                1,
                TOK.vocabularySize(),
                0,
                1000,
                prompt,
                "");
    }

    /**
     * A step that arrives before all records is answered only once the records input is complete
     * (watermark READY), and then with all counts; a later step is answered at once.
     */
    @Test
    void teachersAnswerOnlyAfterAllRecordsWithAllCounts() throws Exception {
        var fn =
                new RecordsTeacherOperator<>(
                        new NgramTeachers("cl100k_base", 2, 8, "", 2, 1.0, "text"), 1000, 600_000);
        KeyedBroadcastOperatorTestHarness<Long, TeacherRecord, GenerationStep, Distribution> h =
                ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(
                        fn,
                        TeacherRecord::teacherId,
                        Types.LONG,
                        RecordsTeacherOperator.OPEN_STEPS);
        int[] hello = TOK.encode("hello");
        int world = TOK.encode(" world")[0];
        int there = TOK.encode(" there")[0];
        h.processElement(new StreamRecord<>(rec(0, "a", "hello world")));
        h.processBroadcastElement(new StreamRecord<>(step(0, hello))); // early step
        assertThat(h.extractOutputValues()).as("nothing before all records are in").isEmpty();
        h.processElement(new StreamRecord<>(rec(0, "a", "hello there")));
        h.processElement(new StreamRecord<>(rec(0, "a", "hello there")));
        h.processElement(new StreamRecord<>(TeacherRecord.marker(1)));
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        h.processBroadcastWatermark(new Watermark(TeacherGate.READY));
        List<Distribution> out = h.extractOutputValues();
        assertThat(out).hasSize(2); // teacher 0 and the record-less teacher 1
        Distribution t0 = out.stream().filter(d -> d.teacherId() == 0).findFirst().orElseThrow();
        // all three records counted: " there" (2) before " world" (1)
        assertThat(t0.tokens()[0]).isEqualTo(there);
        assertThat(t0.tokens()[1]).isEqualTo(world);
        Distribution t1 = out.stream().filter(d -> d.teacherId() == 1).findFirst().orElseThrow();
        assertThat(t1.tokens()).as("a teacher without records abstains").isEmpty();
        h.processBroadcastElement(new StreamRecord<>(step(1, hello)));
        assertThat(h.extractOutputValues()).hasSize(4); // answered at once by both teachers
    }

    @Test
    void recordsPastTheUserBoundAreNeverCounted() throws Exception {
        var fn =
                new RecordsTeacherOperator<>(
                        new NgramTeachers("cl100k_base", 2, 8, "", 2, 1.0, "text"), 1, 600_000);
        KeyedBroadcastOperatorTestHarness<Long, TeacherRecord, GenerationStep, Distribution> h =
                ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(
                        fn,
                        TeacherRecord::teacherId,
                        Types.LONG,
                        RecordsTeacherOperator.OPEN_STEPS);
        h.processElement(new StreamRecord<>(rec(0, "a", "hello world")));
        h.processElement(new StreamRecord<>(rec(0, "a", "hello there")));
        h.processElement(new StreamRecord<>(rec(0, "a", "hello there")));
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        h.processBroadcastWatermark(new Watermark(TeacherGate.READY));
        h.processBroadcastElement(new StreamRecord<>(step(0, TOK.encode("hello"))));
        Distribution d = h.extractOutputValues().get(0);
        assertThat(d.tokens()[0]).isEqualTo(TOK.encode(" world")[0]);
        assertThat(d.tokens()).doesNotContain(TOK.encode(" there")[0]);
    }

    /**
     * The HTTP kind through the same operator: an early step waits for READY; each teacher's query
     * holds its own admitted records of the step's label only, and a teacher without records asks
     * with an empty {records} part.
     */
    @Test
    void httpTeachersAskWithTheirOwnAdmittedRecordsOfTheStepsLabel() throws Exception {
        var kind =
                new HttpTeachers(
                        "cl100k_base",
                        "{records}|{prompt}",
                        8,
                        1000,
                        false,
                        0,
                        "http://x",
                        "m",
                        "",
                        8,
                        1000,
                        0,
                        1,
                        false,
                        1);
        var fn = new RecordsTeacherOperator<>(kind, 2, 600_000);
        KeyedBroadcastOperatorTestHarness<Long, TeacherRecord, GenerationStep, TeacherQuery> h =
                ProcessFunctionTestHarnesses.forKeyedBroadcastProcessFunction(
                        fn,
                        TeacherRecord::teacherId,
                        Types.LONG,
                        RecordsTeacherOperator.OPEN_STEPS);
        GenerationStep early =
                new GenerationStep(
                        "run",
                        "e",
                        0,
                        0,
                        0,
                        new int[0],
                        1L,
                        1,
                        TOK.vocabularySize(),
                        0,
                        1000,
                        TOK.encode("the"),
                        "x");
        h.processBroadcastElement(new StreamRecord<>(early));
        h.processElement(new StreamRecord<>(rec(0, "a", "x", "alpha")));
        h.processElement(new StreamRecord<>(rec(0, "a", "y", "beta")));
        h.processElement(new StreamRecord<>(rec(0, "a", "x", "delta"))); // past a's bound of 2
        h.processElement(new StreamRecord<>(rec(0, "b", "x", "gamma")));
        h.processElement(new StreamRecord<>(TeacherRecord.marker(1)));
        assertThat(h.extractOutputValues()).as("nothing before all records are in").isEmpty();
        h.processWatermark(new Watermark(Long.MAX_VALUE));
        h.processBroadcastWatermark(new Watermark(TeacherGate.READY));
        Map<Long, String> prompts = new HashMap<>();
        for (TeacherQuery q : h.extractOutputValues()) {
            prompts.put(q.teacherId(), q.prompt());
        }
        assertThat(prompts).containsEntry(0L, "alpha\ngamma|the").containsEntry(1L, "|the");
    }

    private static TeacherRecord rec(long teacher, String user, String label, String text) {
        return new TeacherRecord(teacher, user, label, text, TOK.encode(text));
    }

    private static TeacherRecord rec(long teacher, String user, String text) {
        return new TeacherRecord(teacher, user, "", text, TOK.encode(text));
    }
}
