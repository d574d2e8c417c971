package org.hotpate.stream;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.BroadcastConnectedStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.TeacherRecord;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.RecordsConfig;
import org.hotpate.stream.ops.DecodeRecords;
import org.hotpate.stream.teachers.RecordsTeacherOperator;
import org.hotpate.stream.teachers.TeacherGate;
import org.hotpate.stream.teachers.TeacherKind;

/**
 * The records branch of the topology (records runs):
 *
 * <pre>
 * records (bounded) ─ decode, validate, user → teacher, tokenize ─┐
 * markers 0..n-1 (bounded) ───────────────────────────────────────┴ keyBy(teacher) ─┐
 * steps ─ constant READY watermark ─ broadcast ─────────────────── RecordsTeacherOperator (the teacher kind)
 *   ─▶ SPARSE distributions ─▶ the answer rule (VoteAnswers) ─▶ votes, with the decoded Kafka votes ─▶ vote
 * </pre>
 *
 * <p>The markers make every teacher exist (a homogeneous group that no user hashes to abstains
 * instead of being waited for).
 */
final class RecordsBranch {
    private RecordsBranch() {}

    static SingleOutputStreamOperator<TeacherRecord> decode(
            StreamExecutionEnvironment env,
            JobConfig cfg,
            String runId,
            JobIo.RecordsInput records) {
        return env.fromSource(records.source(), WatermarkStrategy.noWatermarks(), "records-source")
                .uid("records-source")
                .process(
                        new DecodeRecords(
                                runId,
                                cfg.records().fields(),
                                records.directory(),
                                cfg.records().tokenizer()))
                .uid("decode-records")
                .name("decode-records");
    }

    static DataStream<Distribution> teachers(
            JobConfig cfg,
            SingleOutputStreamOperator<TeacherRecord> records,
            DataStream<GenerationStep> steps,
            long retention) {
        StreamExecutionEnvironment env = records.getExecutionEnvironment();
        int n = cfg.ensemble().teachers();
        DataStream<TeacherRecord> markers =
                env.fromSequence(0, n - 1)
                        .uid("teacher-markers-source")
                        .name("teacher-markers-source")
                        .map(TeacherRecord::marker)
                        .returns(Types.POJO(TeacherRecord.class))
                        .uid("teacher-markers")
                        .name("teacher-markers");
        RecordsConfig rc = cfg.records();
        BroadcastConnectedStream<TeacherRecord, GenerationStep> connected =
                records.union(markers)
                        .keyBy(TeacherRecord::teacherId, Types.LONG)
                        .connect(
                                steps.assignTimestampsAndWatermarks(TeacherGate.stepsWatermarks())
                                        .uid("teacher-steps-watermarks")
                                        .name("teacher-steps-watermarks")
                                        .broadcast(RecordsTeacherOperator.OPEN_STEPS));
        return wire(
                rc.teacher().kind(),
                connected,
                rc.maxPerUser(),
                retention,
                new TeacherKind.Wiring(
                        cfg.ensemble().vocabularySize(), cfg.generation().stepDeadlineMs()));
    }

    /** The one records-teacher operator, delegating to the run's teacher kind. */
    private static <A> DataStream<Distribution> wire(
            TeacherKind<A> kind,
            BroadcastConnectedStream<TeacherRecord, GenerationStep> connected,
            int maxPerUser,
            long retention,
            TeacherKind.Wiring job) {
        DataStream<A> answers =
                connected
                        .process(
                                new RecordsTeacherOperator<>(kind, maxPerUser, retention),
                                kind.answerType())
                        .uid("teachers")
                        .name("teachers");
        return kind.distributions(answers, job);
    }
}
