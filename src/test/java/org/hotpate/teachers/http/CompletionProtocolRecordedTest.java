package org.hotpate.teachers.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.hotpate.teachers.text.Tokenizer;
import org.junit.jupiter.api.Test;

/**
 * The completions exchange against response bodies in vLLM's, llama.cpp's and OpenAI's shapes
 * (src/test/resources/http-recorded/README.md says where each comes from), and the requests the
 * vLLM-compatible options send.
 */
class CompletionProtocolRecordedTest {
    private static final Tokenizer GPT2 = Tokenizer.named("r50k_base");
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String body(String name) throws Exception {
        return Files.readString(Path.of("src/test/resources/http-recorded", name));
    }

    @Test
    void vllmTokenIdsAreTakenAsIdsPerPromptByIndexAndOutOfVocabularyIdsAbstain() throws Exception {
        List<CompletionProtocol.Answer> as =
                CompletionProtocol.parseBatch(
                        body("vllm-batch-token-ids.json"), 2, GPT2, 50257, false);
        assertThat(as.get(0).tokens()).containsExactly(264, 279, 50256);
        assertThat(as.get(0).probs()[0]).isCloseTo(Math.exp(-0.5), within(1e-12));
        // prompt 1: id 128001 is past this vocabulary: dropped, its mass abstains with the tail
        assertThat(as.get(1).tokens()).containsExactly(279, 264, 4221);
        assertThat(as.get(1).dropped()).isEqualTo(1);
        double mass = 0;
        for (double p : as.get(1).probs()) {
            mass += p;
        }
        assertThat(mass).as("top-K cap: the rest abstains").isLessThan(0.8);
    }

    @Test
    void vllmSeededAnswersAreTheSampledTokensWithProbabilityOne() throws Exception {
        List<CompletionProtocol.Answer> as =
                CompletionProtocol.parseBatch(body("vllm-seeded.json"), 2, GPT2, 50257, true);
        assertThat(as.get(0).tokens()).containsExactly(1050);
        assertThat(as.get(0).probs()).containsExactly(1.0);
        assertThat(as.get(1).tokens()).containsExactly(25);
    }

    @Test
    void llamaCppIdsAreUsedAsTheyAre() throws Exception {
        CompletionProtocol.Answer a =
                CompletionProtocol.parseBatch(body("llamacpp-content.json"), 1, GPT2, 50257, false)
                        .get(0);
        assertThat(a.tokens()).containsExactly(995, 2159, 0);
        assertThat(a.dropped()).isZero();
    }

    @Test
    void openAiStringsMapThroughTheTokenizerAndMultiTokenStringsAbstain() throws Exception {
        CompletionProtocol.Answer a = CompletionProtocol.parse(body("openai-legacy.json"), GPT2);
        assertThat(a.tokens()).containsExactly(995, 2159, 0);
        assertThat(a.dropped()).as("\" worldwide peace\" is two tokens").isEqualTo(1);
    }

    @Test
    void aBatchWithAMissingChoiceIsAnError() throws Exception {
        assertThatThrownBy(
                        () ->
                                CompletionProtocol.parseBatch(
                                        body("llamacpp-content.json"), 2, GPT2, 50257, false))
                .hasMessageContaining("no choice for prompt 1 of 2");
    }

    @Test
    void requestsCarryTokenIdListsSeedAndOneSample() throws Exception {
        JsonNode seeded =
                JSON.readTree(
                        CompletionProtocol.request(
                                "m",
                                List.of(new int[] {1, 2, 3}, new int[] {4, 5, 6}),
                                20,
                                true,
                                OptionalLong.of(-7104450792367271106L)));
        assertThat(seeded.path("prompt").toString()).isEqualTo("[[1,2,3],[4,5,6]]");
        assertThat(seeded.path("seed").asLong()).isEqualTo(-7104450792367271106L);
        assertThat(seeded.path("max_tokens").asInt()).isEqualTo(1);
        assertThat(seeded.path("n").asInt()).isEqualTo(1);
        assertThat(seeded.path("logprobs").asInt()).isZero();
        assertThat(seeded.path("return_tokens_as_token_ids").asBoolean()).isTrue();
        JsonNode one = JSON.readTree(CompletionProtocol.request("m", "hello", 5));
        assertThat(one.path("prompt").asText()).isEqualTo("hello");
        assertThat(one.has("seed")).isFalse();
        assertThat(one.path("logprobs").asInt()).isEqualTo(5);
        assertThat(one.has("return_tokens_as_token_ids")).isFalse();
    }

    @Test
    void promptIdsKeepTheReleasedHistoryAsIdsAndPadToOneLength() {
        int[] history = {464, 3290}; // released ids, never re-tokenized
        int[] ids =
                CompletionProtocol.promptIds(
                        GPT2, "Ex:\n{records}\n{prompt}", List.of("a b c"), 100, "", history, 0);
        int[] head = GPT2.encode("Ex:\na b c\n");
        assertThat(ids).startsWith(head).endsWith(history).hasSize(head.length + 2);
        int[] padded =
                CompletionProtocol.promptIds(
                        GPT2, "Ex:\n{records}\n{prompt}", List.of("a b c"), 100, "", history, 12);
        assertThat(padded).hasSize(14).startsWith(50256).endsWith(history);
        int[] cut =
                CompletionProtocol.promptIds(
                        GPT2,
                        "Ex:\n{records}\n{prompt}",
                        List.of("a much longer record with many words in it"),
                        100,
                        "",
                        history,
                        3);
        assertThat(cut).hasSize(5).endsWith(history);
    }
}
