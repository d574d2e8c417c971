package org.hotpate.stream.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.hotpate.teachers.text.Tokenizer;

/**
 * Job spec YAML → {@link JobConfig}, through the option declarations of {@link JobOptions}: every
 * key is read by its declared type and checked by its declared rules, then {@link JobConfig} checks
 * what concerns several keys. Unknown keys and bad values raise {@link SpecException} naming the
 * key; validation happens here, before any broker or cluster starts.
 *
 * <p>Shorthands: {@code kafka: embedded} means {@code kafka: {mode: embedded}}; likewise {@code
 * flink: embedded}. Records runs ({@code ensemble.source: records}) have other defaults when the
 * spec does not set them: {@code ensemble.vocabulary} = the tokenizer's vocabulary (always: it
 * cannot be set to anything else), {@code generation.step-deadline-ms} = 60000 (teachers answer
 * only once all records are loaded; a step closes as soon as every teacher answered, so a long
 * deadline costs nothing when teachers answer) and {@code ensemble.id} = {@code records}.
 */
public final class JobSpec {
    /** A bad job spec; the message names the key. */
    public static final class SpecException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public SpecException(String message) {
            super(message);
        }
    }

    static final long RECORDS_STEP_DEADLINE_MS = 60_000;

    private static final Map<String, Option<?>> BY_KEY =
            JobOptions.ALL.stream().collect(Collectors.toMap(Option::key, Function.identity()));
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** Keys that were renamed: reading one stops the run with this message. */
    private static final Map<String, String> RENAMED =
            Map.of(
                    "budget.per-teacher",
                    "budget.per-teacher was a cap on each teacher's token votes and is now"
                            + " budget.per-teacher-votes; individual (per-teacher) privacy accounting"
                            + " is budget.per-teacher-epsilon (with budget.per-teacher-delta) and"
                            + " mechanism.name scheme-b or scheme-a");

    private JobSpec() {}

    /** Parses and validates a spec file. */
    public static JobConfig load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new SpecException("cannot read job spec " + file + ": " + e.getMessage());
        }
        String base = file.getFileName().toString().replaceAll("\\.ya?ml$", "");
        return parse(text, base);
    }

    /** Parses and validates spec text; {@code defaultName} is used when {@code name} is absent. */
    public static JobConfig parse(String yaml, String defaultName) {
        JsonNode root;
        try {
            root = YAML.readTree(quoteInfinity(yaml));
        } catch (JsonProcessingException e) {
            throw new SpecException("job spec is not valid YAML: " + e.getOriginalMessage());
        }
        Map<String, JsonNode> flat = new TreeMap<>();
        if (root != null && !root.isNull() && !root.isMissingNode()) {
            if (!root.isObject()) {
                throw new SpecException("job spec must be a mapping of keys");
            }
            flatten("", root, flat);
        }
        applyRecordsDefaults(flat);
        Map<String, Object> values = new HashMap<>();
        for (Option<?> o : JobOptions.ALL) {
            Object v = o.read(flat.get(o.key()));
            if (v != null) {
                values.put(o.key(), v);
            }
        }
        values.putIfAbsent(JobOptions.NAME.key(), defaultName);
        try {
            return JobConfig.of(OptionValues.of(values));
        } catch (SpecException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new SpecException(e.getMessage());
        }
    }

    /** Fills the records-run defaults into the flattened spec (see the class comment). */
    private static void applyRecordsDefaults(Map<String, JsonNode> flat) {
        JsonNode source = flat.get(JobOptions.ENSEMBLE_SOURCE.key());
        JsonNode tokenizerFile = flat.get(RecordsOptions.TOKENIZER_FILE.key());
        boolean externalText =
                source != null
                        && "external".equals(source.asText())
                        && tokenizerFile != null
                        && !tokenizerFile.asText().isEmpty();
        if (source == null || !("records".equals(source.asText()) || externalText)) {
            return;
        }
        JsonNode tokenizer = flat.get(RecordsOptions.TOKENIZER.key());
        String name = tokenizer == null || tokenizer.isNull() ? "cl100k_base" : tokenizer.asText();
        JsonNode file = flat.get(RecordsOptions.TOKENIZER_FILE.key());
        if (file != null && file.isTextual() && !file.asText().isEmpty()) {
            if (tokenizer != null) {
                throw new SpecException(
                        "tokenizer and tokenizer.file are exclusive: name an encoding or a file");
            }
            if (!Files.isRegularFile(Path.of(file.asText()))) {
                // validated where the file is not (a model not yet trained or downloaded):
                // ./hotpate run refuses it before anything starts (RecordsSpec.checkFiles)
                return;
            }
            name = RecordsConfig.fileTokenizer(file.asText());
        } else if (!Tokenizer.NAMES.contains(name)) {
            return; // reported by the tokenizer key's own check
        }
        int vocabulary;
        try {
            vocabulary = Tokenizer.named(name).vocabularySize();
        } catch (IllegalArgumentException e) {
            throw new SpecException("tokenizer.file: " + e.getMessage());
        }
        JsonNode v = flat.get(JobOptions.ENSEMBLE_VOCABULARY.key());
        if (v != null && !v.isNull() && (!v.canConvertToInt() || v.asInt() != vocabulary)) {
            throw new SpecException(
                    "ensemble.vocabulary comes from the tokenizer in a records run ("
                            + name
                            + ": "
                            + vocabulary
                            + "); leave it out; got "
                            + v);
        }
        flat.put(JobOptions.ENSEMBLE_VOCABULARY.key(), LongNode.valueOf(vocabulary));
        if (externalText) {
            return; // the other defaults are the records teachers'
        }
        flat.putIfAbsent(
                JobOptions.GENERATION_STEP_DEADLINE_MS.key(),
                LongNode.valueOf(RECORDS_STEP_DEADLINE_MS));
        flat.putIfAbsent(JobOptions.ENSEMBLE_ID.key(), TextNode.valueOf("records"));
    }

    /**
     * Jackson's YAML parser cannot read the YAML float {@code .inf}; an unquoted {@code .inf}
     * scalar is quoted here and read back as +∞ by the options that accept it.
     */
    private static final java.util.regex.Pattern UNQUOTED_INF =
            java.util.regex.Pattern.compile(
                    "([:\\[,]\\s*)\\+?\\.(?:inf|Inf|INF)(?=\\s*(?:[,}\\]#]|$))",
                    java.util.regex.Pattern.MULTILINE);

    static String quoteInfinity(String yaml) {
        return UNQUOTED_INF.matcher(yaml).replaceAll("$1\".inf\"");
    }

    /** The option list as help text (one block per option). */
    public static String describeKeys() {
        StringBuilder sb = new StringBuilder();
        for (Option<?> o : JobOptions.ALL) {
            sb.append(
                    String.format(
                            "  %-34s %s (default: %s)%n      %s%n",
                            o.key(), o.typeName(), o.defaultText(), o.description()));
        }
        return sb.toString();
    }

    /**
     * The key table of docs/job-spec.md, one row per option: key, type, default, description (what
     * the docs must hold; {@code JobSpecTest} compares them).
     */
    public static List<String> markdownRows() {
        return JobOptions.ALL.stream()
                .map(
                        o ->
                                "| `"
                                        + o.key()
                                        + "` | "
                                        + markdown(o.typeName())
                                        + " | `"
                                        + o.defaultText()
                                        + "` | "
                                        + markdown(o.description())
                                        + " |")
                .toList();
    }

    private static String markdown(String s) {
        return s.replace("|", "\\|");
    }

    private static void flatten(String prefix, JsonNode node, Map<String, JsonNode> out) {
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String path = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
            JsonNode value = e.getValue();
            if (RENAMED.containsKey(path)) {
                throw new SpecException(RENAMED.get(path));
            }
            if (value.isObject() && isSection(path)) {
                flatten(path, value, out); // before the key itself: tokenizer: {file: F}
            } else if (BY_KEY.containsKey(path)) {
                out.put(path, value);
            } else if (value.isTextual() && BY_KEY.containsKey(path + ".mode")) {
                out.put(path + ".mode", value); // kafka: embedded
            } else {
                throw new SpecException("unknown key '" + path + "'" + suggestion(path));
            }
        }
    }

    private static boolean isSection(String path) {
        return BY_KEY.keySet().stream().anyMatch(k -> k.startsWith(path + "."));
    }

    private static String suggestion(String path) {
        String leaf = path.substring(path.lastIndexOf('.') + 1);
        return JobOptions.ALL.stream()
                .map(Option::key)
                .filter(p -> p.endsWith("." + leaf) || p.equals(leaf))
                .findFirst()
                .map(p -> " (did you mean '" + p + "'?)")
                .orElse(" (see ./hotpate run --help)");
    }

    /** For tests and docs: the keys of all options. */
    public static List<String> paths() {
        return JobOptions.ALL.stream().map(Option::key).toList();
    }
}
