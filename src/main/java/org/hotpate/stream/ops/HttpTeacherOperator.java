package org.hotpate.stream.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.TeacherQuery;
import org.hotpate.model.TeacherRecord;
import org.hotpate.protocol.OpenSteps;
import org.hotpate.teachers.http.CompletionProtocol;
import org.hotpate.teachers.text.Tokenizer;

/**
 * HTTP teachers ({@code teacher.model: http}), keyed by teacher id: keeps the first {@code
 * teacher.max-records} records of each teacher (per label too) and, for every step, emits one
 * {@link TeacherQuery} per teacher whose prompt is {@code teacher.prompt-template} filled with the
 * teacher's records and the public prompt + generated text; {@link HttpTeacherFunction} asks the
 * endpoint (Flink async I/O). Same readiness gate, contribution bound and state-clearing rules as
 * {@link NgramTeacherOperator}; state {@code teacher-texts} (ListState of "label\u0000text").
 */
public final class HttpTeacherOperator
        extends KeyedBroadcastProcessFunction<Long, TeacherRecord, GenerationStep, TeacherQuery> {
    private static final long serialVersionUID = 1L;

    /** What the operator needs from the job config. */
    public record Settings(
            String tokenizer,
            String template,
            int maxRecords,
            int maxPromptChars,
            int maxPerUser,
            long retentionMs,
            boolean tokenIds,
            int padTokens)
            implements java.io.Serializable {}

    private final Settings settings;
    private transient ListState<String> texts;
    private transient UserContributionBound perUser;
    private transient ValueState<Long> records;
    private transient Tokenizer tokenizer;

    public HttpTeacherOperator(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext ctx) {
        texts =
                getRuntimeContext()
                        .getListState(new ListStateDescriptor<>("teacher-texts", Types.STRING));
        perUser = new UserContributionBound(getRuntimeContext(), settings.maxPerUser());
        records = getRuntimeContext().getState(NgramTeacherOperator.RECORDS);
        tokenizer = Tokenizer.named(settings.tokenizer());
    }

    @Override
    public void processElement(TeacherRecord r, ReadOnlyContext ctx, Collector<TeacherQuery> out)
            throws Exception {
        if (records.value() == null) {
            records.update(0L);
            ctx.timerService().registerEventTimeTimer(TeacherGate.READY);
        }
        if (r.isMarker()) {
            return;
        }
        if (!perUser.admit(r.user())) {
            return; // the contribution bound: dropped before the model sees it
        }
        if (records.value() < settings.maxRecords() * 16L) { // enough for any label's prompt
            texts.add(r.label() + '\u0000' + r.text());
        }
        records.update(records.value() + 1);
    }

    @Override
    public void processBroadcastElement(
            GenerationStep step, Context ctx, Collector<TeacherQuery> out) throws Exception {
        BroadcastState<String, GenerationStep> open =
                ctx.getBroadcastState(NgramTeacherOperator.OPEN_STEPS);
        OpenSteps.open(open.iterator(), step, settings.retentionMs());
        if (ctx.currentWatermark() >= TeacherGate.READY) {
            ctx.applyToKeyedState(
                    NgramTeacherOperator.RECORDS,
                    (teacher, state) -> out.collect(query(teacher, step)));
        } else {
            open.put(org.hotpate.protocol.StepId.keyOf(step), step);
        }
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<TeacherQuery> out) throws Exception {
        for (Map.Entry<String, GenerationStep> e :
                ctx.getBroadcastState(NgramTeacherOperator.OPEN_STEPS).immutableEntries()) {
            out.collect(query(ctx.getCurrentKey(), e.getValue()));
        }
    }

    private TeacherQuery query(long teacher, GenerationStep step) throws Exception {
        List<String> mine = new ArrayList<>();
        Iterable<String> all = texts.get();
        if (all != null) {
            for (String t : all) {
                int sep = t.indexOf('\u0000');
                if ((step.label().isEmpty() || t.substring(0, sep).equals(step.label()))
                        && mine.size() < settings.maxRecords()) {
                    mine.add(t.substring(sep + 1));
                }
            }
        }
        if (settings.tokenIds()) {
            int[] ids =
                    CompletionProtocol.promptIds(
                            tokenizer,
                            settings.template(),
                            mine,
                            settings.maxPromptChars(),
                            step.label(),
                            step.history(),
                            settings.padTokens());
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
        String prefix = tokenizer.decode(step.history());
        String prompt =
                CompletionProtocol.fill(
                        settings.template(), mine, settings.maxPromptChars(), step.label(), prefix);
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
