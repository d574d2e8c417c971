package org.hotpate.stream.ops;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.TeacherRecord;
import org.hotpate.protocol.OpenSteps;
import org.hotpate.teachers.ngram.ContextStore;
import org.hotpate.teachers.ngram.FollowerTable;
import org.hotpate.teachers.ngram.NgramModel;
import org.hotpate.teachers.ngram.PublicModels;
import org.hotpate.teachers.text.Tokenizer;

/**
 * Teachers built from private records, keyed by teacher id: each teacher's Witten–Bell n-gram
 * counts ({@link NgramModel}) live in its RocksDB keyed state and grow as its records arrive; each
 * generation step (broadcast) is answered by every teacher of this subtask with the teacher's
 * next-token distribution given the step's prompt ++ generated tokens, truncated to its top-k (the
 * rest abstains), as a SPARSE {@link Distribution} into the vote path.
 *
 * <p>Privacy: a teacher's model reads only its own keyed state and the public backoff model (built
 * from public text only); users reach teachers disjointly upstream ({@code UserDirectory}), and at
 * most {@code maxPerUser} records of a user are counted (the rest are dropped, metric {@code
 * recordsOverUserLimit}).
 *
 * <p>Readiness ({@link TeacherGate}): a teacher answers only once all records are counted — a step
 * that arrives earlier waits in the broadcast state {@code teacher-open-steps} and is answered by
 * the teacher's timer at {@link TeacherGate#READY}. Later steps are answered at once for every
 * teacher of the subtask through {@code applyToKeyedState}, which sets each teacher as the current
 * key before calling back (the keys are copied to a list first, so reading other states of that key
 * while iterating is safe — Flink's AbstractKeyedStateBackend/HeapKeyedStateBackend).
 *
 * <p>State and clearing: {@code ngram-counts} (MapState encoded context → follower table) and
 * {@code user-records} (MapState user → records counted) and {@code teacher-records} (records
 * counted) live as long as the run's job (the teachers are the run's model); broadcast {@code
 * teacher-open-steps} loses a step when a later step/attempt of its sequence arrives or it is older
 * than the retention. Two in-memory caches, neither Flink state: {@code timerTables} holds one
 * teacher's tables only while its READY timer answers the open steps (at most open steps × order
 * entries, dropped when the timer returns); the model's public views (one ranking of the public
 * model's candidates per context, LRU of 64, public data only) are shared by all teachers of the
 * subtask ({@link NgramModel#next}). Known limit: after a restore, a step that arrived before the
 * restored watermark returned to READY is not answered by the teacher timers (they already fired);
 * it closes at its deadline with abstentions and is resampled.
 */
public final class NgramTeacherOperator
        extends KeyedBroadcastProcessFunction<Long, TeacherRecord, GenerationStep, Distribution> {
    private static final long serialVersionUID = 1L;

    public static final MapStateDescriptor<String, GenerationStep> OPEN_STEPS =
            new MapStateDescriptor<>(
                    "teacher-open-steps", Types.STRING, Types.POJO(GenerationStep.class));
    static final ValueStateDescriptor<Long> RECORDS =
            new ValueStateDescriptor<>("teacher-records", Types.LONG);

    /** What the operator needs from the job config. */
    public record Settings(
            String tokenizer,
            int order,
            int topK,
            int maxPerUser,
            String publicFile,
            int publicOrder,
            double publicWeight,
            String textField,
            long retentionMs,
            String priorFile)
            implements java.io.Serializable {
        /** Without a population prior: the teachers back off to {@code publicFile}. */
        public Settings(
                String tokenizer,
                int order,
                int topK,
                int maxPerUser,
                String publicFile,
                int publicOrder,
                double publicWeight,
                String textField,
                long retentionMs) {
            this(
                    tokenizer,
                    order,
                    topK,
                    maxPerUser,
                    publicFile,
                    publicOrder,
                    publicWeight,
                    textField,
                    retentionMs,
                    "");
        }
    }

    private final Settings settings;
    private transient MapState<String, FollowerTable> counts;
    private transient UserContributionBound perUser;
    private transient ValueState<Long> records;
    private transient NgramModel model;

    /** One teacher's tables while its timer answers every open step; null otherwise. */
    private transient Map<String, FollowerTable> timerTables;

    private transient Counter answers;

    public NgramTeacherOperator(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext ctx) {
        counts =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>(
                                        "ngram-counts",
                                        Types.STRING,
                                        Types.POJO(FollowerTable.class)));
        perUser = new UserContributionBound(getRuntimeContext(), settings.maxPerUser());
        records = getRuntimeContext().getState(RECORDS);
        Tokenizer t = Tokenizer.named(settings.tokenizer());
        // A released population prior replaces the public file as every teacher's backoff.
        NgramModel publicModel =
                settings.priorFile() != null && !settings.priorFile().isEmpty()
                        ? PublicModels.loadPrior(settings.priorFile(), t)
                        : PublicModels.load(
                                settings.publicFile(),
                                settings.textField(),
                                t,
                                settings.publicOrder());
        ContextStore store =
                new ContextStore() {
                    @Override
                    public FollowerTable get(String key) throws Exception {
                        Map<String, FollowerTable> cache = timerTables;
                        if (cache == null) {
                            return counts.get(key);
                        }
                        if (cache.containsKey(key)) {
                            return cache.get(key);
                        }
                        FollowerTable t = counts.get(key);
                        cache.put(key, t);
                        return t;
                    }

                    @Override
                    public void put(String key, FollowerTable table) throws Exception {
                        counts.put(key, table);
                        if (timerTables != null) {
                            timerTables.put(key, table);
                        }
                    }
                };
        model =
                new NgramModel(
                        settings.order(),
                        t.vocabularySize(),
                        t.endOfText(),
                        store,
                        publicModel,
                        settings.publicWeight());
        answers = getRuntimeContext().getMetricGroup().counter("answers");
    }

    @Override
    public void processElement(TeacherRecord r, ReadOnlyContext ctx, Collector<Distribution> out)
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
        model.add("", r.tokens());
        if (!r.label().isEmpty()) {
            model.add(r.label(), r.tokens());
        }
        records.update(records.value() + 1);
    }

    @Override
    public void processBroadcastElement(
            GenerationStep step, Context ctx, Collector<Distribution> out) throws Exception {
        BroadcastState<String, GenerationStep> open = ctx.getBroadcastState(OPEN_STEPS);
        OpenSteps.open(open.iterator(), step, settings.retentionMs());
        if (ctx.currentWatermark() >= TeacherGate.READY) {
            ctx.applyToKeyedState(RECORDS, (teacher, state) -> out.collect(answer(teacher, step)));
        } else {
            open.put(
                    org.hotpate.protocol.StepId.keyOf(step),
                    step); // answered by each teacher's READY timer
        }
    }

    @Override
    public void onTimer(long ts, OnTimerContext ctx, Collector<Distribution> out) throws Exception {
        // The open steps mostly share contexts (every sequence starts from the same prompt): read
        // each of this teacher's tables from RocksDB once for all of them, then forget them.
        timerTables = new HashMap<>();
        try {
            for (Map.Entry<String, GenerationStep> e :
                    ctx.getBroadcastState(OPEN_STEPS).immutableEntries()) {
                out.collect(answer(ctx.getCurrentKey(), e.getValue()));
            }
        } finally {
            timerTables = null;
        }
    }

    private Distribution answer(long teacher, GenerationStep step) throws Exception {
        NgramModel.Next next = model.next(step.label(), step.history(), settings.topK());
        answers.inc();
        return Distribution.sparse(
                step.runId(),
                step.sequenceId(),
                step.step(),
                step.attempt(),
                teacher,
                next.tokens(),
                next.probs());
    }
}
