package org.hotpate.stream.teachers;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.util.Collector;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.TeacherRecord;
import org.hotpate.teachers.ngram.ContextStore;
import org.hotpate.teachers.ngram.FollowerTable;
import org.hotpate.teachers.ngram.NgramModel;
import org.hotpate.teachers.ngram.PublicModels;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The n-gram teacher kind ({@code teacher.model: ngram}): each teacher's Witten–Bell n-gram counts
 * ({@link NgramModel}) live in its RocksDB keyed state and grow as its records arrive; a step is
 * answered with the teacher's next-token distribution given the step's prompt ++ generated tokens,
 * truncated to its top-k (the rest abstains), as a SPARSE {@link Distribution} into the vote path.
 * A teacher's model reads only its own keyed state and the public backoff model (built from public
 * text only, or the released population prior).
 *
 * <p>State: {@code ngram-counts} (MapState encoded context → follower table), as long as the run's
 * job. Two in-memory caches, neither Flink state: {@code timerTables} holds one teacher's tables
 * only while its READY timer answers the open steps (at most open steps × order entries, dropped
 * when the timer returns); the model's public views (one ranking of the public model's candidates
 * per context, LRU of 64, public data only) are shared by all teachers of the subtask ({@link
 * NgramModel#next}).
 */
public record NgramTeachers(
        String tokenizer,
        int order,
        int topK,
        String publicFile,
        int publicOrder,
        double publicWeight,
        String textField,
        String priorFile)
        implements TeacherKind<Distribution> {
    private static final long serialVersionUID = 1L;

    /** Without a population prior: the teachers back off to {@code publicFile}. */
    public NgramTeachers(
            String tokenizer,
            int order,
            int topK,
            String publicFile,
            int publicOrder,
            double publicWeight,
            String textField) {
        this(tokenizer, order, topK, publicFile, publicOrder, publicWeight, textField, "");
    }

    static NgramTeachers of(TeacherOptions t) {
        checkArgument(!t.serverSeeded(), "teacher.vote: server-seeded needs teacher.model: http");
        return new NgramTeachers(
                t.tokenizer(),
                t.order(),
                t.topK(),
                t.publicFile(),
                t.publicOrder(),
                t.publicWeight(),
                t.textField(),
                t.priorFile());
    }

    @Override
    public TypeInformation<Distribution> answerType() {
        return TypeInformation.of(Distribution.class);
    }

    @Override
    public boolean answersInJob() {
        return true;
    }

    @Override
    public boolean backsOffToPrior() {
        return true;
    }

    @Override
    public DataStream<Distribution> distributions(DataStream<Distribution> answers, Wiring job) {
        return answers;
    }

    @Override
    public Teachers<Distribution> open(RuntimeContext runtime) {
        MapState<String, FollowerTable> counts =
                runtime.getMapState(
                        new MapStateDescriptor<>(
                                "ngram-counts", Types.STRING, Types.POJO(FollowerTable.class)));
        Tokenizer t = Tokenizer.named(tokenizer);
        // A released population prior replaces the public file as every teacher's backoff.
        NgramModel publicModel =
                priorFile != null && !priorFile.isEmpty()
                        ? PublicModels.loadPrior(priorFile, t)
                        : PublicModels.load(publicFile, textField, t, publicOrder);
        return new Subtask(counts, t, publicModel, runtime.getMetricGroup().counter("answers"));
    }

    private final class Subtask implements Teachers<Distribution>, ContextStore {
        private final MapState<String, FollowerTable> counts;
        private final NgramModel model;
        private final Counter answers;

        /** One teacher's tables while its timer answers every open step; null otherwise. */
        private Map<String, FollowerTable> timerTables;

        Subtask(
                MapState<String, FollowerTable> counts,
                Tokenizer t,
                NgramModel publicModel,
                Counter answers) {
            this.counts = counts;
            this.answers = answers;
            this.model =
                    new NgramModel(
                            order,
                            t.vocabularySize(),
                            t.endOfText(),
                            this,
                            publicModel,
                            publicWeight);
        }

        @Override
        public FollowerTable get(String key) throws Exception {
            Map<String, FollowerTable> cache = timerTables;
            if (cache == null) {
                return counts.get(key);
            }
            if (cache.containsKey(key)) {
                return cache.get(key);
            }
            FollowerTable table = counts.get(key);
            cache.put(key, table);
            return table;
        }

        @Override
        public void put(String key, FollowerTable table) throws Exception {
            counts.put(key, table);
            if (timerTables != null) {
                timerTables.put(key, table);
            }
        }

        @Override
        public void add(TeacherRecord r, long counted) throws Exception {
            model.add("", r.tokens());
            if (!r.label().isEmpty()) {
                model.add(r.label(), r.tokens());
            }
        }

        @Override
        public Distribution answer(long teacher, GenerationStep step) throws Exception {
            NgramModel.Next next = model.next(step.label(), step.history(), topK);
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

        /**
         * The open steps mostly share contexts (every sequence starts from the same prompt): read
         * each of this teacher's tables from RocksDB once for all of them, then forget them.
         */
        @Override
        public void answerAll(
                long teacher, Iterable<GenerationStep> steps, Collector<Distribution> out)
                throws Exception {
            timerTables = new HashMap<>();
            try {
                Teachers.super.answerAll(teacher, steps, out);
            } finally {
                timerTables = null;
            }
        }
    }
}
