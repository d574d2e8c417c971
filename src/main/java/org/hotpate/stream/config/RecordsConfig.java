package org.hotpate.stream.config;

import java.io.Serializable;
import java.util.List;
import org.hotpate.stream.teachers.TeacherKind;
import org.hotpate.stream.teachers.TeacherKinds;
import org.hotpate.stream.teachers.TeacherOptions;
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

    /**
     * {@code teacher.*}: the teacher kind ({@code teacher.model}, one of {@link TeacherKinds}),
     * n-gram order, top-k, public backoff text; for HTTP teachers the endpoint, prompt template and
     * limits. What a kind reads is {@link TeacherOptions}.
     */
    public record Teacher(OptionValues values) implements Serializable, TeacherOptions {
        /** The teacher kind, built from these options (refusing what it cannot honour). */
        public TeacherKind<?> kind() {
            return TeacherKinds.of(values.get(RecordsOptions.TEACHER_MODEL), this);
        }

        @Override
        public String tokenizer() {
            return new RecordsConfig(values).tokenizer();
        }

        @Override
        public String textField() {
            return values.get(RecordsOptions.RECORDS_TEXT_FIELD);
        }

        @Override
        public int order() {
            return values.get(RecordsOptions.TEACHER_ORDER);
        }

        @Override
        public int topK() {
            return values.get(RecordsOptions.TEACHER_TOP_K);
        }

        @Override
        public String publicFile() {
            return values.get(RecordsOptions.TEACHER_PUBLIC_FILE);
        }

        /** {@code teacher.public-order}, derived: min(order, 2). */
        @Override
        public int publicOrder() {
            return values.find(RecordsOptions.TEACHER_PUBLIC_ORDER)
                    .orElse(NgramModel.defaultPublicOrder(order()));
        }

        /** {@code teacher.public-weight}: γ of {@link NgramModel}. */
        @Override
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
        @Override
        public String priorFile() {
            return values.get(RecordsOptions.TEACHER_PRIOR_FILE);
        }

        @Override
        public String url() {
            return values.get(RecordsOptions.TEACHER_URL);
        }

        @Override
        public String modelName() {
            return values.get(RecordsOptions.TEACHER_MODEL_NAME);
        }

        /** {@code teacher.token-ids}: prompts as token ids, answers as "token_id:N". */
        @Override
        public boolean tokenIds() {
            return values.get(RecordsOptions.TEACHER_TOKEN_IDS);
        }

        /** {@code teacher.batch}: prompts per request. */
        @Override
        public int batch() {
            return values.get(RecordsOptions.TEACHER_BATCH);
        }

        /** {@code teacher.vote} is server-seeded: the server samples with the public seed. */
        @Override
        public boolean serverSeeded() {
            return values.get(RecordsOptions.TEACHER_VOTE).equals("server-seeded");
        }

        /** {@code teacher.server}: vllm, vllm-v2, llama.cpp, openai or other. */
        public String server() {
            return values.get(RecordsOptions.TEACHER_SERVER);
        }

        /** {@code teacher.pad-tokens}: the private part of a prompt in tokens (0 = as it is). */
        @Override
        public int padTokens() {
            return values.get(RecordsOptions.TEACHER_PAD_TOKENS);
        }

        @Override
        public String apiKeyEnv() {
            return values.get(RecordsOptions.TEACHER_API_KEY_ENV);
        }

        @Override
        public String promptTemplate() {
            return values.get(RecordsOptions.TEACHER_PROMPT_TEMPLATE);
        }

        @Override
        public int maxRecords() {
            return values.get(RecordsOptions.TEACHER_MAX_RECORDS);
        }

        @Override
        public int maxPromptChars() {
            return values.get(RecordsOptions.TEACHER_MAX_PROMPT_CHARS);
        }

        @Override
        public long timeoutMs() {
            return values.get(RecordsOptions.TEACHER_TIMEOUT_MS);
        }

        @Override
        public int retries() {
            return values.get(RecordsOptions.TEACHER_RETRIES);
        }

        @Override
        public int concurrency() {
            return values.get(RecordsOptions.TEACHER_CONCURRENCY);
        }
    }
}
