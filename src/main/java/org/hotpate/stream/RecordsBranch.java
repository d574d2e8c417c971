package org.hotpate.stream;

import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.BroadcastConnectedStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.TeacherQuery;
import org.hotpate.model.TeacherRecord;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.RecordsConfig;
import org.hotpate.stream.ops.DecodeRecords;
import org.hotpate.stream.ops.HttpTeacherFunction;
import org.hotpate.stream.ops.HttpTeacherOperator;
import org.hotpate.stream.ops.NgramTeacherOperator;
import org.hotpate.stream.ops.TeacherGate;

/**
 * The records branch of the topology (records runs):
 *
 * <pre>
 * records (bounded) ─ decode, validate, user → teacher, tokenize ─┐
 * markers 0..n-1 (bounded) ───────────────────────────────────────┴ keyBy(teacher) ─┐
 * steps ─ constant READY watermark ─ broadcast ─────────────────── NgramTeacherOperator
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
                                        .broadcast(NgramTeacherOperator.OPEN_STEPS));
        if (rc.teacher().model() == RecordsConfig.Model.HTTP) {
            return httpTeachers(cfg, connected, retention);
        }
        return connected
                .process(
                        new NgramTeacherOperator(
                                new NgramTeacherOperator.Settings(
                                        rc.tokenizer(),
                                        rc.teacher().order(),
                                        rc.teacher().topK(),
                                        rc.maxPerUser(),
                                        rc.teacher().publicFile(),
                                        rc.teacher().publicOrder(),
                                        rc.teacher().publicWeight(),
                                        rc.fields().textField(),
                                        retention,
                                        rc.teacher().priorFile())))
                .uid("teachers")
                .name("teachers");
    }

    private static DataStream<Distribution> httpTeachers(
            JobConfig cfg,
            BroadcastConnectedStream<TeacherRecord, GenerationStep> connected,
            long retention) {
        RecordsConfig rc = cfg.records();
        RecordsConfig.Teacher t = rc.teacher();
        DataStream<TeacherQuery> queries =
                connected
                        .process(
                                new HttpTeacherOperator(
                                        new HttpTeacherOperator.Settings(
                                                rc.tokenizer(),
                                                t.promptTemplate(),
                                                t.maxRecords(),
                                                t.maxPromptChars(),
                                                rc.maxPerUser(),
                                                retention,
                                                t.tokenIds(),
                                                t.padTokens())))
                        .uid("teachers")
                        .name("teachers");
        return AsyncDataStream.unorderedWait(
                        queries,
                        new HttpTeacherFunction(
                                new HttpTeacherFunction.Settings(
                                        t.url(),
                                        t.modelName(),
                                        t.apiKeyEnv(),
                                        t.topK(),
                                        t.timeoutMs(),
                                        t.retries(),
                                        rc.tokenizer(),
                                        t.tokenIds(),
                                        t.batch(),
                                        t.serverSeeded(),
                                        cfg.ensemble().vocabularySize())),
                        cfg.generation().stepDeadlineMs() + t.timeoutMs(),
                        TimeUnit.MILLISECONDS,
                        t.concurrency())
                .uid("http-teachers")
                .name("http-teachers");
    }
}
