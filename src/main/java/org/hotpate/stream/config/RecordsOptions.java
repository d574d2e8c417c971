package org.hotpate.stream.config;

import static org.hotpate.stream.config.Option.positive;

import java.util.ArrayList;
import java.util.List;
import org.hotpate.stream.teachers.TeacherKinds;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The job-spec options of records runs (docs/records.md): the records file and topic, the teachers
 * built from them ({@code teacher.*}), the tokenizer and the public prompts. Declared like every
 * other option ({@link JobOptions}, which lists these last in {@link JobOptions#ALL}).
 */
public final class RecordsOptions {
    private RecordsOptions() {}

    private static final List<Option<?>> DECLARED = new ArrayList<>();

    private static <T> Option<T> declare(Option<T> o) {
        DECLARED.add(o);
        return o;
    }

    public static final Option<String> RECORDS_FILE =
            declare(
                    Option.string(
                            "records.file",
                            "",
                            "JSONL or JSONL.gz file of private records (one JSON object per line); the driver produces it into the private-records topic once (a re-run of the same file does not duplicate it) and the job reads only that file's records."));
    public static final Option<String> RECORDS_TOPIC =
            declare(
                    Option.string(
                                    "records.topic",
                                    "",
                                    "Topic the job reads records from (default: kafka.topics.private-records). Without records.file the job reads everything it holds up to its end offsets at start (a bounded batch).")
                            .derived("kafka.topics.private-records", ""));
    public static final Option<String> RECORDS_USER_FIELD =
            declare(
                    Option.string(
                            "records.user-field",
                            "user",
                            "JSON field of the user id (the privacy unit); a scalar. A dotted path (meta.user) is followed when no top-level key has that exact name."));
    public static final Option<String> RECORDS_TEXT_FIELD =
            declare(
                    Option.string(
                            "records.text-field",
                            "text",
                            "JSON field of the record text (a non-empty string)."));
    public static final Option<String> RECORDS_LABEL_FIELD =
            declare(
                    Option.string(
                            "records.label-field",
                            "",
                            "Optional JSON field of a label: teachers keep one model per label and answer a labelled sequence from that label's records."));
    public static final Option<String> RECORDS_TIME_FIELD =
            declare(
                    Option.string(
                            "records.time-field",
                            "",
                            "Optional JSON field of an event time (epoch ms or ISO-8601); informational."));
    public static final Option<Integer> RECORDS_MAX_PER_USER =
            declare(
                    positive(
                            Option.integer(
                                    "records.max-per-user",
                                    1000,
                                    "Contribution bound: records of a user past this many are dropped before any teacher sees them.")));
    public static final Option<Integer> RECORDS_MAX_TEXT_BYTES =
            declare(
                    positive(
                            Option.integer(
                                    "records.max-text-bytes",
                                    65536,
                                    "Records whose text has more UTF-8 bytes go to the rejected topic (TEXT_TOO_LONG).")));
    public static final Option<String> TEACHER_MODEL =
            declare(
                    Option.choice(
                            "teacher.model",
                            TeacherKinds.names().get(0),
                            TeacherKinds.describe(),
                            TeacherKinds.names()));
    public static final Option<Integer> TEACHER_ORDER =
            declare(
                    Option.integer("teacher.order", 3, "n-gram order (3 = trigrams).")
                            .check(v -> v >= 1 && v <= 8, "be in [1, 8]"));
    public static final Option<Integer> TEACHER_TOP_K =
            declare(
                    Option.integer(
                                    "teacher.top-k",
                                    64,
                                    "A teacher lists its k most likely next tokens (the http teacher asks for k logprobs); the rest of its mass abstains.")
                            .check(v -> v >= 1, "be >= 1"));
    public static final Option<String> TEACHER_PUBLIC_FILE =
            declare(
                    Option.string(
                            "teacher.public-file",
                            "",
                            "Public text (JSONL(.gz) with records.text-field, or plain text, one document per line) for the public backoff model of every teacher; never private records."));
    public static final Option<Integer> TEACHER_PUBLIC_ORDER =
            declare(
                    Option.integer(
                                    "teacher.public-order",
                                    0,
                                    "n-gram order of the public backoff model (ngram teachers). 0 = min(teacher.order, 2): a bigram keeps the public model's fluency without letting the teachers agree on copying public sentences verbatim.")
                            .derived("min(teacher.order, 2)", 0)
                            .check(v -> v >= 1 && v <= 8, "be in [1, 8] (0 = derived)"));
    public static final Option<Double> TEACHER_PUBLIC_WEIGHT =
            declare(
                    Option.real(
                                    "teacher.public-weight",
                                    org.hotpate.teachers.ngram.NgramModel.DEFAULT_PUBLIC_WEIGHT,
                                    "Weight in (0, 1] of the public backoff in an ngram teacher's distribution: the mass Witten-Bell would hand to the public model is scaled by it and the rest abstains (it never coordinates), so the teachers' own records weigh more in the vote. 1 = plain Witten-Bell.")
                            .check(v -> v > 0 && v <= 1, "be in (0, 1]"));
    public static final Option<String> TEACHER_PRIOR =
            declare(
                    Option.choice(
                            "teacher.prior",
                            "none",
                            "ngram teachers of a records run: dp-ngram releases a population prior before the run — the n-grams many users share, by user-level DP n-gram extraction (Kim et al. 2021), charged once to this run's budget (teacher.prior-share of it) — and every teacher backs off to it instead of teacher.public-file, so the public file never votes. none: back off to teacher.public-file.",
                            List.of("none", "dp-ngram")));
    public static final Option<Double> TEACHER_PRIOR_SHARE =
            declare(
                    Option.real(
                                    "teacher.prior-share",
                                    0.25,
                                    "teacher.prior dp-ngram: the share, in (0, 1), of the run's Renyi budget (at the run filter's order) that the prior's release spends.")
                            .check(v -> v > 0 && v < 1, "be in (0, 1)"));
    public static final Option<Integer> TEACHER_PRIOR_PER_USER =
            declare(
                    positive(
                            Option.integer(
                                    "teacher.prior-per-user",
                                    16,
                                    "teacher.prior dp-ngram: the most distinct n-grams of each length a user contributes (the contribution bound k; its L2 sensitivity is sqrt(2k) per length under replace-one).")));
    public static final Option<String> TEACHER_PRIOR_FILE =
            declare(
                    Option.string(
                            "teacher.prior-file",
                            "",
                            "A released population prior (prior.jsonl) that every ngram teacher backs off to instead of teacher.public-file. Public once released: with teacher.prior dp-ngram the driver releases one into <output.dir>/<run-id>/prior.jsonl and sets this; a prior.jsonl of an earlier run may be reused at no further cost."));
    public static final Option<String> TEACHER_URL =
            declare(
                    Option.string(
                            "teacher.url",
                            "",
                            "http: base URL of the OpenAI-compatible server (POST <url>/v1/completions)."));
    public static final Option<String> TEACHER_MODEL_NAME =
            declare(Option.string("teacher.model-name", "", "http: the request's model field."));
    public static final Option<String> TEACHER_API_KEY_ENV =
            declare(
                    Option.string(
                            "teacher.api-key-env",
                            "",
                            "http: name of an environment variable holding the API key (sent as Authorization: Bearer)."));

    /** The http teacher's default prompt. */
    public static final String DEFAULT_PROMPT_TEMPLATE =
            "Examples:\n{records}\n\nWrite one more in the same style.\n{prompt}";

    public static final Option<String> TEACHER_PROMPT_TEMPLATE =
            declare(
                    Option.string(
                                    "teacher.prompt-template",
                                    DEFAULT_PROMPT_TEMPLATE,
                                    "http: the teacher's prompt; {records} = the teacher's records (one per line), {label} = the sequence's label, {prompt} = the public prompt and the text generated so far.")
                            .check(v -> v.contains("{records}"), "contain {records}"));
    public static final Option<Integer> TEACHER_MAX_RECORDS =
            declare(
                    Option.integer(
                                    "teacher.max-records",
                                    8,
                                    "http: at most this many of a teacher's records go into its prompt (the first ones it received).")
                            .check(v -> v >= 1, "be >= 1"));
    public static final Option<Integer> TEACHER_MAX_PROMPT_CHARS =
            declare(
                    Option.integer(
                                    "teacher.max-prompt-chars",
                                    4000,
                                    "http: the {records} part of a prompt is cut to this many characters.")
                            .check(v -> v >= 1, "be >= 1"));
    public static final Option<Long> TEACHER_TIMEOUT_MS =
            declare(
                    Option.longInt("teacher.timeout-ms", 10000L, "http: timeout of one request.")
                            .check(v -> v >= 1, "be >= 1"));
    public static final Option<Integer> TEACHER_RETRIES =
            declare(
                    Option.integer(
                                    "teacher.retries",
                                    2,
                                    "http: retries after a failed request (exponential backoff from 100 ms), never past the step deadline; then the teacher abstains.")
                            .check(v -> v >= 0, "be >= 0"));
    public static final Option<Integer> TEACHER_CONCURRENCY =
            declare(
                    Option.integer(
                                    "teacher.concurrency",
                                    8,
                                    "http: requests in flight per job subtask (Flink async I/O capacity).")
                            .check(v -> v >= 1, "be >= 1"));
    public static final Option<Boolean> TEACHER_TOKEN_IDS =
            declare(
                    Option.bool(
                            "teacher.token-ids",
                            false,
                            "http: send prompts as token ids of the run's tokenizer (the generated prefix as released, never re-tokenized) and ask for return_tokens_as_token_ids (vLLM: answers as \"token_id:N\", no mass lost to string mapping; strings are still accepted and mapped through the tokenizer)."));
    public static final Option<Integer> TEACHER_BATCH =
            declare(
                    Option.integer(
                                    "teacher.batch",
                                    1,
                                    "http: prompts per request (a list in the completions prompt field, answered by choices[i].index); the prompts of one step are batched together.")
                            .check(v -> v >= 1 && v <= 4096, "be in [1, 4096]"));
    public static final Option<String> TEACHER_VOTE =
            declare(
                    Option.choice(
                            "teacher.vote",
                            "distribution",
                            "http: distribution = the top-k log-probabilities become a sparse distribution (the unlisted mass abstains) and the job draws the coordinated vote; server-seeded = the server samples one token per teacher with seed = the step's public seed (max_tokens 1, n 1): a coordinated draw only on vLLM's V1 sampler (docs/llm-teachers.md), refused for other servers.",
                            List.of("distribution", "server-seeded")));
    public static final Option<String> TEACHER_SERVER =
            declare(
                    Option.choice(
                            "teacher.server",
                            "vllm",
                            "http: what serves teacher.url — vllm (V1 engine: a per-request generator, an exponential race), vllm-v2 (model runner V2: noise keyed by seed and position; needs teacher.pad-tokens for server-seeded votes), llama.cpp, openai (logprobs capped at 20), other. Decides what teacher.vote and teacher.top-k may be.",
                            List.of("vllm", "vllm-v2", "llama.cpp", "openai", "other")));
    public static final Option<Integer> TEACHER_PAD_TOKENS =
            declare(
                    Option.integer(
                                    "teacher.pad-tokens",
                                    0,
                                    "http with teacher.token-ids: the private part of every prompt (the template before {prompt}) is cut or left-padded with the end-of-text token to exactly this many tokens, so all teachers' prompts of a step have one length (vllm-v2 keys its noise by position). 0 = no padding.")
                            .check(v -> v >= 0, "be >= 0"));
    public static final Option<String> TOKENIZER =
            declare(
                    Option.choice(
                            "tokenizer",
                            "cl100k_base",
                            "BPE tokenizer of records runs (jtokkit); the vocabulary size comes from it. `tokenizer: {file: PATH}` sets tokenizer.file instead.",
                            List.copyOf(Tokenizer.NAMES)));
    public static final Option<String> TOKENIZER_FILE =
            declare(
                    Option.string(
                            "tokenizer.file",
                            "",
                            "A model's own Hugging Face tokenizer.json (`tokenizer: {file: PATH}`; replaces `tokenizer`): vocabulary size, special and end-of-text tokens (eos_token of a tokenizer_config.json beside it), encoding and decoding. Must be readable where the job's teachers run."));
    public static final Option<String> GENERATION_PROMPT =
            declare(
                    Option.string(
                            "generation.prompt",
                            "",
                            "Public prompt: every sequence starts after it (not part of the output text)."));
    public static final Option<String> GENERATION_PROMPTS_FILE =
            declare(
                    Option.string(
                            "generation.prompts-file",
                            "",
                            "JSONL file of public prompts {prompt, label?}: sequence j uses line j mod lines."));
    public static final Option<List<String>> GENERATION_STOP =
            declare(
                    Option.stringList(
                                    "generation.stop",
                                    List.of("\n"),
                                    "Records runs: a sequence ends (STOP_TOKEN) when its text reaches one of these strings (cut before it), or at the end-of-text token.")
                            .check(
                                    v -> v.stream().noneMatch(String::isEmpty),
                                    "not contain an empty string"));

    /** The records options, in documentation order. */
    static List<Option<?>> declared() {
        return List.copyOf(DECLARED);
    }
}
