package org.hotpate.stream.teachers;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.TeacherQuery;
import org.hotpate.model.TeacherRecord;
import org.hotpate.teachers.http.CompletionProtocol;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The HTTP teacher kind ({@code teacher.model: http}): keeps the first {@code teacher.max-records}
 * records of each teacher (per label too) and, for every step, emits one {@link TeacherQuery} per
 * teacher whose prompt is {@code teacher.prompt-template} filled with the teacher's records and the
 * public prompt + generated text; {@link HttpTeacherFunction} asks the endpoint (Flink async I/O,
 * capacity {@code teacher.concurrency}). State {@code teacher-texts} (ListState of
 * "label\u0000text"), as long as the run's job.
 */
public record HttpTeachers(
        String tokenizer,
        String template,
        int maxRecords,
        int maxPromptChars,
        boolean tokenIds,
        int padTokens,
        String url,
        String modelName,
        String apiKeyEnv,
        int topK,
        long timeoutMs,
        int retries,
        int batch,
        boolean serverSeeded,
        int concurrency)
        implements TeacherKind<TeacherQuery> {
    private static final long serialVersionUID = 1L;

    static HttpTeachers of(TeacherOptions t) {
        checkArgument(!t.url().isBlank(), "teacher.url must be set when teacher.model is http");
        return new HttpTeachers(
                t.tokenizer(),
                t.promptTemplate(),
                t.maxRecords(),
                t.maxPromptChars(),
                t.tokenIds(),
                t.padTokens(),
                t.url(),
                t.modelName(),
                t.apiKeyEnv(),
                t.topK(),
                t.timeoutMs(),
                t.retries(),
                t.batch(),
                t.serverSeeded(),
                t.concurrency());
    }

    @Override
    public TypeInformation<TeacherQuery> answerType() {
        return TypeInformation.of(TeacherQuery.class);
    }

    @Override
    public boolean answersInJob() {
        return false;
    }

    @Override
    public DataStream<Distribution> distributions(DataStream<TeacherQuery> queries, Wiring job) {
        return AsyncDataStream.unorderedWait(
                        queries,
                        new HttpTeacherFunction(
                                new HttpTeacherFunction.Settings(
                                        url,
                                        modelName,
                                        apiKeyEnv,
                                        topK,
                                        timeoutMs,
                                        retries,
                                        tokenizer,
                                        tokenIds,
                                        batch,
                                        serverSeeded,
                                        job.vocabularySize())),
                        job.stepDeadlineMs() + timeoutMs,
                        TimeUnit.MILLISECONDS,
                        concurrency)
                .uid("http-teachers")
                .name("http-teachers");
    }

    @Override
    public Teachers<TeacherQuery> open(RuntimeContext runtime) {
        ListState<String> texts =
                runtime.getListState(new ListStateDescriptor<>("teacher-texts", Types.STRING));
        Tokenizer tok = Tokenizer.named(tokenizer);
        return new Teachers<>() {
            @Override
            public void add(TeacherRecord r, long counted) throws Exception {
                if (counted < maxRecords * 16L) { // enough for any label's prompt
                    texts.add(r.label() + '\u0000' + r.text());
                }
            }

            @Override
            public TeacherQuery answer(long teacher, GenerationStep step) throws Exception {
                return query(tok, texts.get(), teacher, step);
            }
        };
    }

    private TeacherQuery query(
            Tokenizer tok, Iterable<String> all, long teacher, GenerationStep step) {
        List<String> mine = new ArrayList<>();
        if (all != null) {
            for (String t : all) {
                int sep = t.indexOf('\u0000');
                if ((step.label().isEmpty() || t.substring(0, sep).equals(step.label()))
                        && mine.size() < maxRecords) {
                    mine.add(t.substring(sep + 1));
                }
            }
        }
        if (tokenIds) {
            int[] ids =
                    CompletionProtocol.promptIds(
                            tok,
                            template,
                            mine,
                            maxPromptChars,
                            step.label(),
                            step.history(),
                            padTokens);
            return new TeacherQuery(
                    step.runId(),
                    step.sequenceId(),
                    step.step(),
                    step.attempt(),
                    teacher,
                    "",
                    ids,
                    step.publicSeed(),
                    step.deadlineMs());
        }
        String prompt =
                CompletionProtocol.fill(
                        template, mine, maxPromptChars, step.label(), tok.decode(step.history()));
        return new TeacherQuery(
                step.runId(),
                step.sequenceId(),
                step.step(),
                step.attempt(),
                teacher,
                prompt,
                new int[0],
                step.publicSeed(),
                step.deadlineMs());
    }
}
