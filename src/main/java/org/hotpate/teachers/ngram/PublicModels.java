package org.hotpate.teachers.ngram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.hotpate.teachers.records.RecordFiles;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The public backoff model of a run ({@code teacher.public-file}): an n-gram model of the same
 * order built only from public text — a JSONL(.gz) file whose lines carry the text field (lines
 * without it are skipped), or plain text with one document per line. Built once per JVM and file;
 * it never sees private records.
 */
public final class PublicModels {
    private PublicModels() {}

    private static final Map<String, NgramModel> CACHE = new ConcurrentHashMap<>();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The model of {@code file} (null when {@code file} is empty). */
    public static NgramModel load(String file, String textField, Tokenizer tokenizer, int order) {
        if (file == null || file.isEmpty()) {
            return null;
        }
        String key = file + "|" + textField + "|" + tokenizer.name() + "|" + order;
        return CACHE.computeIfAbsent(key, k -> build(Path.of(file), textField, tokenizer, order));
    }

    /**
     * The model of a released population prior file ({@link PopulationPrior}; {@code
     * teacher.prior-file}), built once per JVM and file.
     */
    public static NgramModel loadPrior(String file, Tokenizer tokenizer) {
        String key = "prior|" + file + "|" + tokenizer.name();
        return CACHE.computeIfAbsent(
                key,
                k -> {
                    try {
                        return PopulationPrior.model(
                                PopulationPrior.read(Path.of(file)),
                                tokenizer.vocabularySize(),
                                tokenizer.endOfText());
                    } catch (java.io.IOException e) {
                        throw new IllegalArgumentException(
                                "teacher.prior-file " + file + " cannot be read: " + e.getMessage(),
                                e);
                    }
                });
    }

    static NgramModel build(Path file, String textField, Tokenizer tokenizer, int order) {
        NgramModel m =
                new NgramModel(
                        order,
                        tokenizer.vocabularySize(),
                        tokenizer.endOfText(),
                        new InMemoryContextStore(),
                        null);
        try {
            RecordFiles.forEachLine(
                    file,
                    (n, bytes) -> {
                        String line = new String(bytes, StandardCharsets.UTF_8);
                        String text = line;
                        if (line.startsWith("{")) {
                            JsonNode o;
                            try {
                                o = JSON.readTree(line);
                            } catch (Exception e) {
                                o = null;
                            }
                            if (o != null && o.isObject()) {
                                JsonNode t = o.get(textField);
                                text = t != null && t.isTextual() ? t.asText() : null;
                            }
                        }
                        if (text != null && !text.isEmpty()) {
                            m.add("", tokenizer.encode(text));
                        }
                    });
        } catch (Exception e) {
            throw new IllegalArgumentException(
                    "teacher.public-file " + file + " cannot be read: " + e.getMessage(), e);
        }
        return m;
    }
}
