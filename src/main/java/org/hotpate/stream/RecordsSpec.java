package org.hotpate.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.hotpate.stream.JobSpec.Key;
import org.hotpate.stream.JobSpec.Type;
import org.hotpate.teachers.records.RecordFields;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The job-spec keys of records runs (private user records → per-user teachers → decoded text):
 * declared here and appended to {@link JobSpec#KEYS}, parsed into {@link RecordsConfig}.
 *
 * <p>Defaults that differ for records runs ({@code ensemble.source: records}) when the spec does
 * not set them: {@code ensemble.vocabulary} = the tokenizer's vocabulary (always: it cannot be set
 * to anything else), {@code generation.step-deadline-ms} = 60000 (teachers answer only once all
 * records are loaded; a step closes as soon as every teacher answered, so a long deadline costs
 * nothing when teachers answer).
 */
public final class RecordsSpec {
    private RecordsSpec() {}

    static final long RECORDS_STEP_DEADLINE_MS = 60_000;

    static final List<Key> KEYS =
            List.of(
                    Key.of(
                            "records.file",
                            Type.STRING,
                            "",
                            "JSONL or JSONL.gz file of private records (one JSON object per line); the driver produces it into the private-records topic once (a re-run of the same file does not duplicate it) and the job reads only that file's records."),
                    Key.of(
                            "records.topic",
                            Type.STRING,
                            "",
                            "Topic the job reads records from (default: kafka.topics.private-records). Without records.file the job reads everything it holds up to its end offsets at start (a bounded batch)."),
                    Key.of(
                            "records.user-field",
                            Type.STRING,
                            "user",
                            "JSON field of the user id (the privacy unit); a scalar. A dotted path (meta.user) is followed when no top-level key has that exact name."),
                    Key.of(
                            "records.text-field",
                            Type.STRING,
                            "text",
                            "JSON field of the record text (a non-empty string)."),
                    Key.of(
                            "records.label-field",
                            Type.STRING,
                            "",
                            "Optional JSON field of a label: teachers keep one model per label and answer a labelled sequence from that label's records."),
                    Key.of(
                            "records.time-field",
                            Type.STRING,
                            "",
                            "Optional JSON field of an event time (epoch ms or ISO-8601); informational."),
                    Key.of(
                            "records.max-per-user",
                            Type.INT,
                            1000,
                            "Contribution bound: records of a user past this many are dropped before any teacher sees them."),
                    Key.of(
                            "records.max-text-bytes",
                            Type.INT,
                            65536,
                            "Records whose text has more UTF-8 bytes go to the rejected topic (TEXT_TOO_LONG)."),
                    Key.choice(
                            "teacher.model",
                            "ngram",
                            "ngram: a Witten-Bell token n-gram model per teacher, in RocksDB keyed state; http: an OpenAI-compatible /v1/completions endpoint prompted with the teacher's records.",
                            "ngram",
                            "http"),
                    Key.of("teacher.order", Type.INT, 3, "n-gram order (3 = trigrams)."),
                    Key.of(
                            "teacher.top-k",
                            Type.INT,
                            64,
                            "A teacher lists its k most likely next tokens (the http teacher asks for k logprobs); the rest of its mass abstains."),
                    Key.of(
                            "teacher.public-file",
                            Type.STRING,
                            "",
                            "Public text (JSONL(.gz) with records.text-field, or plain text, one document per line) for the public backoff model of every teacher; never private records."),
                    Key.of(
                            "teacher.url",
                            Type.STRING,
                            "",
                            "http: base URL of the OpenAI-compatible server (POST <url>/v1/completions)."),
                    Key.of(
                            "teacher.model-name",
                            Type.STRING,
                            "",
                            "http: the request's model field."),
                    Key.of(
                            "teacher.api-key-env",
                            Type.STRING,
                            "",
                            "http: name of an environment variable holding the API key (sent as Authorization: Bearer)."),
                    Key.of(
                            "teacher.prompt-template",
                            Type.STRING,
                            RecordsConfig.Teacher.DEFAULT_TEMPLATE,
                            "http: the teacher's prompt; {records} = the teacher's records (one per line), {label} = the sequence's label, {prompt} = the public prompt and the text generated so far."),
                    Key.of(
                            "teacher.max-records",
                            Type.INT,
                            8,
                            "http: at most this many of a teacher's records go into its prompt (the first ones it received)."),
                    Key.of(
                            "teacher.max-prompt-chars",
                            Type.INT,
                            4000,
                            "http: the {records} part of a prompt is cut to this many characters."),
                    Key.of(
                            "teacher.timeout-ms",
                            Type.LONG,
                            10000L,
                            "http: timeout of one request."),
                    Key.of(
                            "teacher.retries",
                            Type.INT,
                            2,
                            "http: retries after a failed request (exponential backoff from 100 ms), never past the step deadline; then the teacher abstains."),
                    Key.of(
                            "teacher.concurrency",
                            Type.INT,
                            8,
                            "http: requests in flight per job subtask (Flink async I/O capacity)."),
                    Key.choice(
                            "tokenizer",
                            "cl100k_base",
                            "BPE tokenizer of records runs (jtokkit); the vocabulary size comes from it.",
                            Tokenizer.NAMES.toArray(String[]::new)),
                    Key.of(
                            "generation.prompt",
                            Type.STRING,
                            "",
                            "Public prompt: every sequence starts after it (not part of the output text)."),
                    Key.of(
                            "generation.prompts-file",
                            Type.STRING,
                            "",
                            "JSONL file of public prompts {prompt, label?}: sequence j uses line j mod lines."),
                    new Key(
                            "generation.stop",
                            Type.STRING_LIST,
                            List.of("\n"),
                            "Records runs: a sequence ends (STOP_TOKEN) when its text reaches one of these strings (cut before it), or at the end-of-text token.",
                            List.of()),
                    Key.of(
                            "kafka.topics.private-records",
                            Type.STRING,
                            "hotpate.private-records",
                            "Topic of private user records (schemas/private_record.avsc)."));

    /** The core keys followed by the records keys. */
    static List<Key> withRecordKeys(List<Key> core) {
        List<Key> all = new ArrayList<>(core);
        all.addAll(KEYS);
        return List.copyOf(all);
    }

    /** Fills the records-run defaults into the flattened spec (see the class comment). */
    static void applyRecordsDefaults(Map<String, JsonNode> flat) {
        JsonNode source = flat.get("ensemble.source");
        if (source == null || !"records".equals(source.asText())) {
            return;
        }
        JsonNode tokenizer = flat.get("tokenizer");
        String name = tokenizer == null || tokenizer.isNull() ? "cl100k_base" : tokenizer.asText();
        if (!Tokenizer.NAMES.contains(name)) {
            return; // reported by the tokenizer key's own check
        }
        int vocabulary = Tokenizer.named(name).vocabularySize();
        JsonNode v = flat.get("ensemble.vocabulary");
        if (v != null && !v.isNull() && (!v.canConvertToInt() || v.asInt() != vocabulary)) {
            throw new JobSpec.SpecException(
                    "ensemble.vocabulary comes from the tokenizer in a records run ("
                            + name
                            + ": "
                            + vocabulary
                            + "); leave it out; got "
                            + v);
        }
        flat.put("ensemble.vocabulary", LongNode.valueOf(vocabulary));
        flat.putIfAbsent("generation.step-deadline-ms", LongNode.valueOf(RECORDS_STEP_DEADLINE_MS));
        flat.putIfAbsent("ensemble.id", TextNode.valueOf("records"));
    }

    /** Checks that concern a records run as a whole (files exist, policies that fit). */
    static JobConfig check(JobConfig c) {
        if (!c.ensemble().fromRecords()) {
            return c;
        }
        if (c.generation().onFail() == org.hotpate.core.generation.FailPolicy.FALLBACK) {
            throw new JobSpec.SpecException(
                    "generation.on-fail: fallback needs a simulated ensemble's public model; records"
                            + " runs use resample or stop");
        }
        return c;
    }

    /**
     * The files a records run reads exist and the prompts file parses (checked by {@code ./hotpate
     * run} before anything starts; not at spec parse, so a spec can be validated where its data is
     * not).
     */
    public static void checkFiles(JobConfig c) {
        if (!c.ensemble().fromRecords()) {
            return;
        }
        RecordsConfig r = c.records();
        requireFile("records.file", r.file());
        requireFile("teacher.public-file", r.teacher().publicFile());
        requireFile("generation.prompts-file", r.promptsFile());
        if (!r.promptsFile().isEmpty()) {
            try {
                SequencePrompts.of(c); // reports a bad line now, naming the file
            } catch (IllegalArgumentException e) {
                throw new JobSpec.SpecException(e.getMessage());
            }
        }
    }

    private static void requireFile(String key, String file) {
        if (!file.isEmpty() && !java.nio.file.Files.isRegularFile(java.nio.file.Path.of(file))) {
            throw new JobSpec.SpecException(key + " must be an existing file; got '" + file + "'");
        }
    }

    static RecordsConfig records(JobSpec.Values v) {
        String privateTopic = v.str("kafka.topics.private-records");
        String topic = v.str("records.topic");
        return new RecordsConfig(
                v.str("records.file"),
                topic.isEmpty() ? privateTopic : topic,
                privateTopic,
                new RecordFields(
                        v.str("records.user-field"),
                        v.str("records.text-field"),
                        v.str("records.label-field"),
                        v.str("records.time-field"),
                        v.i("records.max-text-bytes")),
                v.i("records.max-per-user"),
                new RecordsConfig.Teacher(
                        RecordsConfig.Model.valueOf(
                                v.str("teacher.model").toUpperCase(Locale.ROOT)),
                        v.i("teacher.order"),
                        v.i("teacher.top-k"),
                        v.str("teacher.public-file"),
                        v.str("teacher.url"),
                        v.str("teacher.model-name"),
                        v.str("teacher.api-key-env"),
                        v.str("teacher.prompt-template"),
                        v.i("teacher.max-records"),
                        v.i("teacher.max-prompt-chars"),
                        v.l("teacher.timeout-ms"),
                        v.i("teacher.retries"),
                        v.i("teacher.concurrency")),
                v.str("tokenizer"),
                v.str("generation.prompt"),
                v.str("generation.prompts-file"),
                v.list("generation.stop"));
    }
}
