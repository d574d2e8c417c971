package org.hotpate.stream.config;

import java.io.Serializable;
import java.util.List;
import org.hotpate.teachers.ngram.NgramModel;
import org.hotpate.teachers.records.RecordFields;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The records part of a job spec ({@code records.*}, {@code teacher.*}, {@code tokenizer}, {@code
 * generation.prompt|prompts-file|stop}, {@code kafka.topics.private-records}): where private
 * records come from, how teachers are built from them, and how text is prompted, stopped and
 * decoded. Options: {@link JobOptions}; docs/records.md.
 */
public record RecordsConfig(OptionValues values) implements Serializable {

    /** {@code records.file}: a JSONL(.gz) file the driver produces into the topic ("" = none). */
    public String file() {
        return values.get(RecordsOptions.RECORDS_FILE);
    }

    /**
     * The topic the job reads records from: {@code records.topic}, else the private-records one.
     */
    public String topic() {
        return values.find(RecordsOptions.RECORDS_TOPIC).orElse(privateRecordsTopic());
    }

    /** {@code kafka.topics.private-records}. */
    public String privateRecordsTopic() {
        return values.get(JobOptions.topic(Topic.PRIVATE_RECORDS));
    }

    /** The record fields and the text-size bound. */
    public RecordFields fields() {
        return new RecordFields(
                values.get(RecordsOptions.RECORDS_USER_FIELD),
                values.get(RecordsOptions.RECORDS_TEXT_FIELD),
                values.get(RecordsOptions.RECORDS_LABEL_FIELD),
                values.get(RecordsOptions.RECORDS_TIME_FIELD),
                values.get(RecordsOptions.RECORDS_MAX_TEXT_BYTES));
    }

    /** {@code records.max-per-user}: records of a user past this are dropped. */
    public int maxPerUser() {
        return values.get(RecordsOptions.RECORDS_MAX_PER_USER);
    }

    public Teacher teacher() {
        return new Teacher(values);
    }

    /**
     * The run's tokenizer name for {@code Tokenizer.named}: {@code tokenizer} (cl100k_base,
     * o200k_base, r50k_base), or {@code file:<absolute path>} with {@code tokenizer.file}.
     */
    public String tokenizer() {
        String file = values.get(RecordsOptions.TOKENIZER_FILE);
        return file.isEmpty() ? values.get(RecordsOptions.TOKENIZER) : fileTokenizer(file);
    }

    /** The tokenizer name of a tokenizer.json path (absolute: the teachers may run elsewhere). */
    static String fileTokenizer(String file) {
        return Tokenizer.FILE_PREFIX + java.nio.file.Path.of(file).toAbsolutePath().normalize();
    }

    /** {@code generation.prompt}: the public prefix of every sequence. */
    public String prompt() {
        return values.get(RecordsOptions.GENERATION_PROMPT);
    }

    /** {@code generation.prompts-file}: JSONL {prompt, label?}, one per sequence. */
    public String promptsFile() {
        return values.get(RecordsOptions.GENERATION_PROMPTS_FILE);
    }

    /** {@code generation.stop}: a sequence ends before the first of these strings. */
    public List<String> stop() {
        return values.get(RecordsOptions.GENERATION_STOP);
    }

    /** The teacher model: an n-gram model in the job, or an OpenAI-compatible HTTP endpoint. */
    public enum Model {
        NGRAM,
        HTTP
    }

    /**
     * {@code teacher.*}: model kind, n-gram order, top-k, public backoff text; for HTTP teachers
     * the endpoint, prompt template and limits.
     */
    public record Teacher(OptionValues values) implements Serializable {
        public Model model() {
            return Model.valueOf(values.get(RecordsOptions.TEACHER_MODEL).toUpperCase());
        }

        public int order() {
            return values.get(RecordsOptions.TEACHER_ORDER);
        }

        public int topK() {
            return values.get(RecordsOptions.TEACHER_TOP_K);
        }

        public String publicFile() {
            return values.get(RecordsOptions.TEACHER_PUBLIC_FILE);
        }

        /** {@code teacher.public-order}, derived: min(order, 2). */
        public int publicOrder() {
            return values.find(RecordsOptions.TEACHER_PUBLIC_ORDER)
                    .orElse(NgramModel.defaultPublicOrder(order()));
        }

        /** {@code teacher.public-weight}: γ of {@link NgramModel}. */
        public double publicWeight() {
            return values.get(RecordsOptions.TEACHER_PUBLIC_WEIGHT);
        }

        /** {@code teacher.prior}: whether the driver releases a DP n-gram population prior. */
        public boolean dpPrior() {
            return values.get(RecordsOptions.TEACHER_PRIOR).equals("dp-ngram");
        }

        public double priorShare() {
            return values.get(RecordsOptions.TEACHER_PRIOR_SHARE);
        }

        public int priorPerUser() {
            return values.get(RecordsOptions.TEACHER_PRIOR_PER_USER);
        }

        /** {@code teacher.prior-file}: the released prior the teachers back off to ("" = none). */
        public String priorFile() {
            return values.get(RecordsOptions.TEACHER_PRIOR_FILE);
        }

        public String url() {
            return values.get(RecordsOptions.TEACHER_URL);
        }

        public String modelName() {
            return values.get(RecordsOptions.TEACHER_MODEL_NAME);
        }

        /** {@code teacher.token-ids}: prompts as token ids, answers as "token_id:N". */
        public boolean tokenIds() {
            return values.get(RecordsOptions.TEACHER_TOKEN_IDS);
        }

        /** {@code teacher.batch}: prompts per request. */
        public int batch() {
            return values.get(RecordsOptions.TEACHER_BATCH);
        }

        /** {@code teacher.vote} is server-seeded: the server samples with the public seed. */
        public boolean serverSeeded() {
            return values.get(RecordsOptions.TEACHER_VOTE).equals("server-seeded");
        }

        /** {@code teacher.server}: vllm, vllm-v2, llama.cpp, openai or other. */
        public String server() {
            return values.get(RecordsOptions.TEACHER_SERVER);
        }

        /** {@code teacher.pad-tokens}: the private part of a prompt in tokens (0 = as it is). */
        public int padTokens() {
            return values.get(RecordsOptions.TEACHER_PAD_TOKENS);
        }

        public String apiKeyEnv() {
            return values.get(RecordsOptions.TEACHER_API_KEY_ENV);
        }

        public String promptTemplate() {
            return values.get(RecordsOptions.TEACHER_PROMPT_TEMPLATE);
        }

        public int maxRecords() {
            return values.get(RecordsOptions.TEACHER_MAX_RECORDS);
        }

        public int maxPromptChars() {
            return values.get(RecordsOptions.TEACHER_MAX_PROMPT_CHARS);
        }

        public long timeoutMs() {
            return values.get(RecordsOptions.TEACHER_TIMEOUT_MS);
        }

        public int retries() {
            return values.get(RecordsOptions.TEACHER_RETRIES);
        }

        public int concurrency() {
            return values.get(RecordsOptions.TEACHER_CONCURRENCY);
        }
    }
}
