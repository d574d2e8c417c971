package org.hotpate.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.hotpate.eval.Fidelity;
import org.hotpate.eval.TextOrigin;
import org.hotpate.eval.records.PublicTexts;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.driver.RecordsLoader;
import org.hotpate.teachers.ngram.NgramModel;
import org.hotpate.teachers.ngram.PublicModels;
import org.hotpate.teachers.text.Tokenizer;

/**
 * After a run: a readable sample of the synthetic texts (from the public {@code records.jsonl}) on
 * the console, and — for a run whose private records come from {@code records.file} (a records run,
 * or external teachers such as the LLM worker that read it) with a {@code teacher.public-file} —
 * the fidelity of the texts (does the output read like the private records rather than the public
 * text; {@link Fidelity}) and the share of started records with at least one private token, added
 * to the operator-only {@code operator.json}; and a records run's batch figures (valid records,
 * rejected lines, load time, time to the first result and records/s), also into {@code
 * operator.json}.
 *
 * <p>The console holds public values only (issue 30 item 8): released texts, the share of started
 * records with a private token (from the public {@code records.jsonl}), n and the public
 * configuration. Every figure computed from the private records — fidelity (scored against the
 * private records' own model), valid-record and rejected-line counts, times and rates of the
 * teachers' build — is operator-only: written to {@code operator.json}, and the console says so by
 * name, never by value.
 */
final class RunTexts {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How many texts the console shows. */
    static final int SAMPLE = 8;

    private RunTexts() {}

    /**
     * The texts of {@code records.jsonl}, the records whose sequence started, and each started
     * record's released token ids.
     */
    record Texts(List<String> texts, int started, int nonEmpty, List<int[]> tokens) {}

    static Texts read(Path recordsJsonl) throws IOException {
        List<String> texts = new ArrayList<>();
        int started = 0;
        int nonEmpty = 0;
        List<int[]> tokens = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(recordsJsonl)) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode o = JSON.readTree(line);
                if ("NOT_STARTED".equals(o.path("finishReason").asText())) {
                    continue;
                }
                started++;
                String text = o.path("text").asText("");
                texts.add(text);
                JsonNode ids = o.path("tokens");
                int[] t = new int[ids.size()];
                for (int i = 0; i < t.length; i++) {
                    t[i] = ids.get(i).asInt();
                }
                tokens.add(t);
                if (o.path("tokens").size() - o.path("fallbacks").asInt(0) > 0) {
                    nonEmpty++;
                }
            }
        }
        return new Texts(texts, started, nonEmpty, tokens);
    }

    /**
     * The console line of a records run's batch before the job starts: where the records come from
     * and n (public); the batch's counts and times are operator-only ({@link
     * #writeRecordsFigures}).
     */
    static String recordsLine(JobConfig cfg, RecordsLoader.Batch b, Path outDir) {
        return "hotpate run: records "
                + (b.sourceId() == null
                        ? "topic " + cfg.records().topic()
                        : cfg.records().file()
                                + " (source "
                                + b.sourceId()
                                + (b.loaded() ? ", produced now" : ", already on the topic")
                                + ")")
                + ": n = "
                + cfg.ensemble().teachers()
                + " teachers (public; every user id present); valid-record and rejected-line"
                + " counts, load time and records/s are operator-only: "
                + outDir.resolve("operator.json");
    }

    /**
     * Adds a records run's batch figures to the operator-only {@code operator.json} (under {@code
     * records}): valid records, users, the file's rejected lines by reason, the load time, the time
     * from submission to the first result and the records/s into the teachers it implies (NaN when
     * no result came). All of them follow the private records.
     */
    static void writeRecordsFigures(Path outDir, RecordsLoader.Batch b, double firstResultSeconds)
            throws IOException {
        Path op = outDir.resolve("operator.json");
        ObjectNode o =
                Files.exists(op)
                        ? (ObjectNode) JSON.readTree(op.toFile())
                        : JSON.createObjectNode();
        ObjectNode r = o.putObject("records");
        r.put("validRecords", b.records());
        r.put("users", b.users());
        r.set("fileRejections", JSON.valueToTree(b.fileRejections()));
        r.put("loadSeconds", b.seconds());
        if (Double.isNaN(firstResultSeconds)) {
            r.putNull("secondsToFirstResult");
            r.putNull("recordsPerSecond");
        } else {
            r.put("secondsToFirstResult", firstResultSeconds);
            r.put("recordsPerSecond", b.records() / firstResultSeconds);
        }
        Files.createDirectories(outDir);
        JSON.writerWithDefaultPrettyPrinter().writeValue(op.toFile(), o);
    }

    /** Prints the sample and, where it can be computed, writes the fidelity into operator.json. */
    static void report(JobConfig cfg, Path outDir, PrintStream err) {
        Path records = outDir.resolve("records.jsonl");
        Texts t;
        try {
            t = read(records);
        } catch (IOException e) {
            err.println("hotpate run: could not read " + records + ": " + e.getMessage());
            return;
        }
        List<String> shown = t.texts().stream().filter(s -> !s.isBlank()).limit(SAMPLE).toList();
        err.println(
                "hotpate run: synthetic texts ("
                        + t.nonEmpty()
                        + " of "
                        + t.started()
                        + " records have private tokens; all in "
                        + records
                        + "):");
        for (String s : shown) {
            err.println("  " + JSON.valueToTree(s)); // quoted: control characters stay visible
        }
        // records runs, and external teachers of a records.file (the LLM worker): scored against
        // the same private records
        if (!cfg.ensemble().fromRecords() && cfg.records().file().isEmpty()) {
            return;
        }
        String privateFile = cfg.records().file();
        String publicFile = cfg.records().teacher().publicFile();
        if (privateFile.isEmpty() || publicFile.isEmpty()) {
            err.println(
                    "hotpate run: fidelity not computed (it needs records.file and"
                            + " teacher.public-file)");
            return;
        }
        try {
            String field = cfg.records().fields().textField();
            Fidelity f =
                    Fidelity.of(
                            PublicTexts.read(Path.of(privateFile), field, Integer.MAX_VALUE),
                            PublicTexts.read(Path.of(publicFile), field, Integer.MAX_VALUE));
            Fidelity.Summary s = f.summarize(t.texts());
            double nonEmptyShare = t.started() == 0 ? 0 : t.nonEmpty() / (double) t.started();
            Path op = outDir.resolve("operator.json");
            ObjectNode o =
                    Files.exists(op)
                            ? (ObjectNode) JSON.readTree(op.toFile())
                            : JSON.createObjectNode();
            if (Double.isNaN(s.fidelity())) {
                o.putNull("fidelity");
            } else {
                o.put("fidelity", s.fidelity());
            }
            o.put("fidelityRecords", s.scored());
            o.put("nonEmptyShare", nonEmptyShare);
            o.put("recordsStarted", t.started());
            List<String> publicTexts =
                    PublicTexts.read(Path.of(publicFile), field, Integer.MAX_VALUE);
            TextOrigin.Summary origin =
                    TextOrigin.of(
                                    PublicTexts.read(
                                            Path.of(privateFile), field, Integer.MAX_VALUE),
                                    publicTexts)
                            .summarize(t.texts(), publicTop1(cfg, t.tokens()), tokens(t));
            o.set("textOrigin", JSON.valueToTree(origin));
            JSON.writerWithDefaultPrettyPrinter().writeValue(op.toFile(), o);
            err.println(
                    String.format(
                            Locale.ROOT,
                            "hotpate run: %.0f%% of started records non-empty; fidelity (private vs"
                                    + " public word-bigram log-likelihood ratio per word, scored"
                                    + " against the private records) is operator-only: %s",
                            100 * nonEmptyShare,
                            op));
            // Of the released records and the public model only, so public: the diversity and
            // how often the release was the public model's own top-1. The share equal to a text
            // found only in the public file is decided against the private texts: operator-only.
            err.println(
                    String.format(
                            Locale.ROOT,
                            "hotpate run: %d distinct of %d non-empty records, the 10 most common"
                                    + " %.0f%% of them; %.0f%% of released tokens were the public"
                                    + " model's top-1 (public-only records: operator.json)",
                            origin.distinct(),
                            origin.nonEmpty(),
                            100 * origin.top10Share(),
                            100 * origin.publicTop1Share()));
        } catch (Exception e) {
            err.println("hotpate run: fidelity not computed: " + e.getMessage());
        }
    }

    private static long tokens(Texts t) {
        return t.tokens().stream().mapToLong(a -> a.length).sum();
    }

    /**
     * How many released tokens the public model alone would have proposed: its most likely token
     * (the backoff model of {@code teacher.public-file}) after the record's earlier tokens.
     */
    private static long publicTop1(JobConfig cfg, List<int[]> records) throws Exception {
        var teacher = cfg.records().teacher();
        Tokenizer tok = Tokenizer.named(cfg.records().tokenizer());
        NgramModel pub =
                PublicModels.load(
                        teacher.publicFile(),
                        cfg.records().fields().textField(),
                        tok,
                        teacher.publicOrder());
        long n = 0;
        for (int[] r : records) {
            for (int i = 0; i < r.length; i++) {
                int[] top = pub.next("", java.util.Arrays.copyOf(r, i), 1).tokens();
                if (top.length > 0 && top[0] == r[i]) {
                    n++;
                }
            }
        }
        return n;
    }
}
