package org.hotpate.teachers.ngram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.hotpate.core.prior.DpNgramExtraction;
import org.hotpate.core.prior.DpNgramExtraction.Gram;
import org.hotpate.core.prior.DpNgramExtraction.Released;

/**
 * The population prior as a teacher's backoff: the n-gram table released by {@link
 * DpNgramExtraction} turned into an {@link NgramModel} (its noisy counts are the follower counts, a
 * released ℓ-gram is context = its first ℓ − 1 elements, follower = its last), and its file form.
 *
 * <p>Once released the table is public: it is a function of the DP release only, so every teacher
 * may read it (DESIGN invariant 7 forbids sharing what is built from private records <i>without</i>
 * a DP release; this table is the release). The file ({@code prior.jsonl}: one {@code {"gram":
 * [ids], "count": c}} per released n-gram, −1 for the begin marker) is what a run publishes and
 * what its teachers load.
 */
public final class PopulationPrior {
    private PopulationPrior() {}

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The model of a released table (order = the table's longest n-gram; no backoff of its own).
     */
    public static NgramModel model(Released table, int vocabularySize, int endOfText) {
        int order = Math.max(1, table.levels().size());
        InMemoryContextStore store = new InMemoryContextStore();
        Map<String, TreeMap<Integer, Long>> byContext = new HashMap<>();
        for (Map<Gram, Long> level : table.levels()) {
            for (Map.Entry<Gram, Long> e : level.entrySet()) {
                int[] g = e.getKey().elements();
                int last = g[g.length - 1];
                if (last < 0 || last >= vocabularySize) {
                    throw new IllegalArgumentException(
                            "prior n-gram " + e.getKey() + " holds a token outside the vocabulary");
                }
                byContext
                        .computeIfAbsent(
                                ContextKey.of("", g, 0, g.length - 1), k -> new TreeMap<>())
                        .merge(last, e.getValue(), Long::sum);
            }
        }
        for (Map.Entry<String, TreeMap<Integer, Long>> e : byContext.entrySet()) {
            int[] ws = new int[e.getValue().size()];
            int[] cs = new int[ws.length];
            int i = 0;
            for (Map.Entry<Integer, Long> f : e.getValue().entrySet()) {
                ws[i] = f.getKey();
                cs[i++] = (int) Math.min(Integer.MAX_VALUE, f.getValue());
            }
            store.put(e.getKey(), FollowerTable.EMPTY.plusAll(ws, cs));
        }
        return new NgramModel(order, vocabularySize, endOfText, store, null);
    }

    /** Writes the table as JSONL (n-grams by length, then by elements). */
    public static void write(Released table, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (Map<Gram, Long> level : table.levels()) {
                List<Map.Entry<Gram, Long>> rows = new ArrayList<>(level.entrySet());
                rows.sort(
                        (a, b) ->
                                java.util.Arrays.compare(
                                        a.getKey().elements(), b.getKey().elements()));
                for (Map.Entry<Gram, Long> e : rows) {
                    ObjectNode o = JSON.createObjectNode();
                    var arr = o.putArray("gram");
                    for (int x : e.getKey().elements()) {
                        arr.add(x);
                    }
                    o.put("count", e.getValue());
                    w.write(JSON.writeValueAsString(o));
                    w.newLine();
                }
            }
        }
    }

    /** Reads a table written by {@link #write}; a malformed line is an error naming it. */
    public static Released read(Path file) throws IOException {
        List<Map<Gram, Long>> levels = new ArrayList<>();
        int lineNo = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            JsonNode o;
            try {
                o = JSON.readTree(line);
            } catch (IOException e) {
                throw new IOException(file + " line " + lineNo + " is not JSON: " + e.getMessage());
            }
            JsonNode g = o.get("gram");
            JsonNode c = o.get("count");
            if (g == null || !g.isArray() || g.isEmpty() || c == null || !c.canConvertToLong()) {
                throw new IOException(
                        file + " line " + lineNo + " needs {\"gram\": [ids], \"count\": n}");
            }
            int[] el = new int[g.size()];
            for (int i = 0; i < el.length; i++) {
                el[i] = g.get(i).asInt();
            }
            while (levels.size() < el.length) {
                levels.add(new HashMap<>());
            }
            levels.get(el.length - 1).put(new Gram(el), c.asLong());
        }
        return new Released(levels);
    }
}
