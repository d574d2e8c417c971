package org.hotpate.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.hotpate.eval.records.RecordsCorpus;
import org.hotpate.teachers.ngram.ContextStore;
import org.hotpate.teachers.ngram.FollowerTable;
import org.hotpate.teachers.ngram.InMemoryContextStore;
import org.hotpate.teachers.ngram.NgramModel;
import org.hotpate.teachers.ngram.PublicModels;
import org.hotpate.teachers.records.RecordFields;
import org.hotpate.teachers.text.Tokenizer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The n-gram teachers' answers to one step, in µs per step: every teacher of the demo corpus (one
 * Witten–Bell trigram per sender over cl100k_base, the public bigram backoff at weight 0.5, top-K
 * 64 — the records job's defaults) answers {@code next} at one history, the teacher operator's
 * model work (without its RocksDB reads: the tables are in memory here). The histories are the
 * first {@code prefix} tokens of the first records of the corpus (0 = the empty history, where
 * every sequence starts).
 *
 * <p>Run: {@code ./hotpate bench NgramTeacher -f 1 -wi 3 -i 5} (from the repository root: it reads
 * {@code data/spamassassin}); another corpus and n: {@code -p corpusFile=FILE -p publicFile=FILE -p
 * teachersPerStep=100000} (docs/performance.md, "Records teachers at 10^4 and 10^5 users").
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class NgramTeacherBenchmark {
    static final int HISTORIES = 16;

    @Param({"0", "2", "5"})
    public int prefix;

    /** The private records (JSONL with {@code user}, {@code subject}). */
    @Param({"data/spamassassin/private.jsonl.gz"})
    public String corpusFile;

    /** The public backoff's text. */
    @Param({"data/spamassassin/public.jsonl.gz"})
    public String publicFile;

    /**
     * Teachers answering a step: 0 = one per user of the corpus; otherwise teacher i answers with
     * the tables of user i mod users (as the pipeline benchmark's simulated teachers cycle), so n =
     * 10^4 or 10^5 costs what that many such users would.
     */
    @Param({"0"})
    public int teachersPerStep;

    private final SwitchedStore store = new SwitchedStore();
    private NgramModel model;
    private List<InMemoryContextStore> teachers;
    private int[][] histories;
    private int at;

    @Setup
    public void setUp() throws Exception {
        Tokenizer tok = Tokenizer.named("cl100k_base");
        RecordFields fields = new RecordFields("user", "subject", "", "", 4096);
        RecordsCorpus corpus = RecordsCorpus.load(Path.of(corpusFile), fields, tok);
        NgramModel pub =
                PublicModels.load(publicFile, "subject", tok, NgramModel.defaultPublicOrder(3));
        // One model over a store switched to the current teacher's tables, as in the operator
        // (one NgramModel per subtask, its store the keyed RocksDB state of the current teacher).
        model = new NgramModel(3, tok.vocabularySize(), tok.endOfText(), store, pub, 0.5);
        Map<String, InMemoryContextStore> byUser = new LinkedHashMap<>();
        List<int[]> firsts = new ArrayList<>();
        for (RecordsCorpus.Rec r : corpus.records()) {
            store.current = byUser.computeIfAbsent(r.user(), u -> new InMemoryContextStore());
            model.add("", r.tokens());
            if (firsts.size() < HISTORIES && r.tokens().length >= prefix) {
                firsts.add(java.util.Arrays.copyOf(r.tokens(), prefix));
            }
        }
        List<InMemoryContextStore> users = new ArrayList<>(byUser.values());
        teachers = new ArrayList<>();
        int n = teachersPerStep == 0 ? users.size() : teachersPerStep;
        for (int i = 0; i < n; i++) {
            teachers.add(users.get(i % users.size()));
        }
        histories = firsts.toArray(new int[0][]);
    }

    /** Every teacher answers one step (the next of the {@value #HISTORIES} histories, in turn). */
    @Benchmark
    public void everyTeacherAnswersOneStep(Blackhole bh) throws Exception {
        int[] h = histories[at++ % histories.length];
        for (InMemoryContextStore t : teachers) {
            store.current = t;
            bh.consume(model.next("", h, 64));
        }
    }

    /** The operator's keyed store: the tables of whichever teacher is current. */
    static final class SwitchedStore implements ContextStore {
        InMemoryContextStore current;

        @Override
        public FollowerTable get(String contextKey) {
            return current.get(contextKey);
        }

        @Override
        public void put(String contextKey, FollowerTable table) {
            current.put(contextKey, table);
        }
    }
}
