package org.hotpate.stream.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.hotpate.stream.driver.RecordsSpec;
import org.junit.jupiter.api.Test;

/** The vLLM-compatible http options: what each server may be asked for, refused at spec parse. */
class HttpTeacherSpecTest {
    private static JobConfig spec(String teacher) {
        return JobSpec.parse(
                """
                records: {file: users.jsonl}
                ensemble: {source: records, kind: heterogeneous}
                teacher: {model: http, url: "http://127.0.0.1:8000", %s}
                budget: {epsilon: 4.0, delta: 1.0e-6}
                """
                        .formatted(teacher),
                "t");
    }

    @Test
    void serverSeededOnVllmParses() {
        RecordsConfig.Teacher t =
                spec("token-ids: true, vote: server-seeded, batch: 64").records().teacher();
        assertThat(t.serverSeeded()).isTrue();
        assertThat(t.tokenIds()).isTrue();
        assertThat(t.batch()).isEqualTo(64);
        assertThat(t.server()).isEqualTo("vllm");
        assertThat(spec("").records().teacher().serverSeeded()).isFalse();
    }

    @Test
    void serverSeededIsRefusedWhereTheSeedIsNotACoordinatedDraw() {
        for (String server : new String[] {"llama.cpp", "openai", "other"}) {
            assertThatThrownBy(() -> spec("vote: server-seeded, server: " + server))
                    .isInstanceOf(JobSpec.SpecException.class)
                    .hasMessageContaining("only on vLLM's V1 sampler")
                    .hasMessageContaining(server);
        }
    }

    @Test
    void vllmV2NeedsPromptsOfOneTokenLength() {
        assertThatThrownBy(() -> spec("vote: server-seeded, server: vllm-v2, token-ids: true"))
                .hasMessageContaining("keys its noise by position");
        assertThat(
                        spec("vote: server-seeded, server: vllm-v2, token-ids: true, pad-tokens: 512")
                                .records()
                                .teacher()
                                .padTokens())
                .isEqualTo(512);
        assertThatThrownBy(() -> spec("pad-tokens: 8"))
                .hasMessageContaining("teacher.pad-tokens needs teacher.token-ids");
    }

    @Test
    void openAiTopKAboveItsCapIsRefusedAndBadValuesNameTheKey() {
        assertThatThrownBy(() -> spec("server: openai, top-k: 64"))
                .hasMessageContaining("at most 20 log-probabilities");
        assertThat(spec("server: openai, top-k: 20").records().teacher().topK()).isEqualTo(20);
        assertThatThrownBy(() -> spec("token-ids: yes-please"))
                .hasMessageContaining("teacher.token-ids must be true or false");
        assertThatThrownBy(() -> spec("batch: 0")).hasMessageContaining("teacher.batch must be");
        assertThatThrownBy(() -> spec("vote: sampled"))
                .hasMessageContaining("teacher.vote must be one of");
    }

    /** A spec naming a tokenizer.json that is not there parses; the run refuses it (exit 2). */
    @Test
    void aMissingTokenizerFileIsRefusedBeforeTheRunAndTheNameIsExclusive() {
        JobConfig c =
                JobSpec.parse(
                        """
                        ensemble: {source: external, teachers: 4, vocabulary: 300}
                        tokenizer: {file: /nonexistent/tokenizer.json}
                        budget: {epsilon: 4.0, delta: 1.0e-6}
                        """,
                        "t");
        assertThatThrownBy(() -> RecordsSpec.checkFiles(c))
                .isInstanceOf(JobSpec.SpecException.class)
                .hasMessageContaining("tokenizer.file must be an existing file");
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        """
                                        ensemble: {source: external, teachers: 4}
                                        tokenizer: cl100k_base
                                        tokenizer.file: /x/tokenizer.json
                                        """,
                                        "t"))
                .isInstanceOf(JobSpec.SpecException.class)
                .hasMessageContaining("exclusive");
    }
}
