package org.hotpate.teachers.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tokenizer: {file: tokenizer.json}} on GPT-2's tokenizer.json (generated from r50k_base by
 * {@link Gpt2TokenizerJson}): Hugging Face's encoder (DJL, offline) gives GPT-2's ids, and the
 * byte-exact decoder gives back each text byte for byte.
 */
class TokenizerFileTest {
    private static Path gpt2;
    private static final List<String> TEXTS = new ArrayList<>();

    @BeforeAll
    static void fixture() throws Exception {
        gpt2 = Gpt2TokenizerJson.write(Path.of("target", "fixtures", "gpt2"));
        TEXTS.addAll(
                List.of(
                        "Hello, world! Plain ASCII with numbers 12345.",
                        "Café crème, naïve façade, São Paulo, Ærøskøbing",
                        "日本語のテキストと中文文本",
                        "emoji 😀🎉👩‍👩‍👧 and flags 🇫🇷",
                        "mixed: Grüße 😀 日本 — “quotes”\n second line\t tab  two spaces   ",
                        "it's they're we've I'm you'll he'd",
                        " leading space and trailing\n\n"));
        // the public side of the demo corpus: 300 real subject lines
        try (InputStream in =
                new GZIPInputStream(
                        Files.newInputStream(Path.of("data/spamassassin/public.jsonl.gz")))) {
            String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
            com.fasterxml.jackson.databind.ObjectMapper m =
                    new com.fasterxml.jackson.databind.ObjectMapper();
            for (int i = 0; i < lines.length && TEXTS.size() < 307; i++) {
                var node = m.readTree(lines[i]);
                node.fields()
                        .forEachRemaining(
                                e -> {
                                    if (e.getValue().isTextual()
                                            && (e.getKey().equals("subject")
                                                    || (e.getKey().equals("body")
                                                            && TEXTS.size() < 60))
                                            && !e.getValue().asText().isEmpty()) {
                                        TEXTS.add(e.getValue().asText());
                                    }
                                });
            }
        }
    }

    private static Tokenizer file() {
        return Tokenizer.named(Tokenizer.FILE_PREFIX + gpt2.toAbsolutePath());
    }

    @Test
    void shouldEncodeToGpt2IdsAndDecodeByteForByte() {
        Tokenizer t = file();
        Tokenizer r50k = Tokenizer.named("r50k_base");
        assertThat(TEXTS).hasSizeGreaterThan(100);
        for (String s : TEXTS) {
            int[] ids = t.encode(s);
            assertThat(ids).as(s).containsExactly(r50k.encode(s));
            assertThat(t.decodeBytes(ids)).as(s).isEqualTo(s.getBytes(StandardCharsets.UTF_8));
            assertThat(t.decode(ids)).isEqualTo(s);
        }
    }

    @Test
    void shouldReadVocabularySizeAndEndOfTextFromTheFile() {
        Tokenizer t = file();
        assertThat(t.vocabularySize()).isEqualTo(50257);
        assertThat(t.endOfText()).isEqualTo(50256);
        assertThat(t.specialTokens()).containsExactly(50256);
        assertThat(t.singleTokenId("<|endoftext|>")).isEqualTo(50256);
        assertThat(t.singleTokenId(" world")).isEqualTo(995);
        assertThat(t.singleTokenId(" worldwide peace")).isEqualTo(-1);
    }

    @Test
    void shouldNeverInjectASpecialTokenFromText() {
        Tokenizer t = file();
        int[] ids = t.encode("a <|endoftext|> b");
        assertThat(ids).doesNotContain(50256).containsExactly(r50kIds("a <|endoftext|> b"));
        assertThat(t.decode(new int[] {50256})).isEmpty();
    }

    /** The byte-exact decoder agrees with Hugging Face's own decoder on complete texts. */
    @Test
    void shouldDecodeAsHuggingFaceDoes() throws Exception {
        Tokenizer t = file();
        try (HuggingFaceTokenizer hf =
                HuggingFaceTokenizer.newInstance(gpt2, Map.of("addSpecialTokens", "false"))) {
            for (String s : TEXTS) {
                int[] ids = t.encode(s);
                long[] longs = new long[ids.length];
                for (int i = 0; i < ids.length; i++) {
                    longs[i] = ids[i];
                }
                assertThat(t.decode(ids)).isEqualTo(hf.decode(longs, true));
            }
        }
    }

    @Test
    void shouldTakeTheEndOfTextTokenFromTokenizerConfig(@TempDir Path dir) throws Exception {
        Path copy = dir.resolve("tokenizer.json");
        String json = Files.readString(gpt2);
        // a second special token, named eos by the model's tokenizer_config.json
        json =
                json.replace(
                        "\"added_tokens\":[",
                        "\"added_tokens\":[{\"id\":50257,\"content\":\"<|eot|>\",\"special\":true},");
        Files.writeString(copy, json);
        Files.writeString(dir.resolve("tokenizer_config.json"), "{\"eos_token\": \"<|eot|>\"}");
        Tokenizer t = Tokenizer.named(Tokenizer.FILE_PREFIX + copy.toAbsolutePath());
        assertThat(t.endOfText()).isEqualTo(50257);
        assertThat(t.vocabularySize()).isEqualTo(50258);
        assertThat(t.specialTokens()).containsExactlyInAnyOrder(50256, 50257);
        assertThat(t.encode("x <|eot|>")).doesNotContain(50257);
    }

    @Test
    void shouldRefuseMissingAndMalformedFiles(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> Tokenizer.named("file:" + dir.resolve("nope.json")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not exist");
        Path bad = Files.writeString(dir.resolve("bad.json"), "{not json");
        assertThatThrownBy(() -> Tokenizer.named("file:" + bad))
                .hasMessageContaining("is not JSON");
        Path noVocab = Files.writeString(dir.resolve("novocab.json"), "{\"model\": {}}");
        assertThatThrownBy(() -> Tokenizer.named("file:" + noVocab))
                .hasMessageContaining("model.vocab");
        Path wordPiece =
                Files.writeString(
                        dir.resolve("wp.json"),
                        "{\"model\": {\"type\": \"WordPiece\", \"vocab\": {\"a\": 0}},"
                                + " \"decoder\": {\"type\": \"WordPiece\"}}");
        assertThatThrownBy(() -> Tokenizer.named("file:" + wordPiece))
                .hasMessageContaining("decoder [WordPiece] is not supported");
    }

    /**
     * The Python worker's encoder and this one agree: {@code clients/python/tests/vectors/} holds a
     * small byte-level tokenizer.json (trained on public subjects by hotpate_teacher.train) and the
     * ids Hugging Face's library gives for some texts; tests/test_bpe.py asserts the same ids.
     * Regenerate with {@link #writeSharedVectors}.
     */
    @Test
    void sharedVectorsAreHuggingFacesIds() throws Exception {
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        var cases = json.readTree(SHARED.resolve("tokenizer_vectors.json").toFile());
        Tokenizer t = Tokenizer.named("file:" + SHARED.resolve("tokenizer.json").toAbsolutePath());
        assertThat(t.vocabularySize()).isEqualTo(600);
        assertThat(cases.size()).isGreaterThanOrEqualTo(10);
        for (var c : cases) {
            int[] want = new int[c.path("ids").size()];
            for (int i = 0; i < want.length; i++) {
                want[i] = c.path("ids").get(i).asInt();
            }
            assertThat(t.encode(c.path("text").asText())).containsExactly(want);
            assertThat(t.decode(want)).isEqualTo(c.path("text").asText());
        }
    }

    static final Path SHARED = Path.of("clients/python/tests/vectors");

    static void writeSharedVectors() throws Exception {
        Tokenizer t = Tokenizer.named("file:" + SHARED.resolve("tokenizer.json").toAbsolutePath());
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        var out = json.createArrayNode();
        List<String> texts = new ArrayList<>(TEXTS.subList(0, 7));
        texts.addAll(
                List.of(
                        "Re: [ILUG] ipfw vs ipchains",
                        "Examples:\nRe: New Sequences Window\n\nWrite one more in the same style.\n",
                        "  multiple   spaces\tand\ttabs\r\n",
                        "<|endoftext|> is ordinary text here",
                        "numbers 1234567890 and 3.14159"));
        for (String s : texts) {
            var o = out.addObject();
            o.put("text", s);
            var ids = o.putArray("ids");
            for (int id : t.encode(s)) {
                ids.add(id);
            }
        }
        Files.writeString(SHARED.resolve("tokenizer_vectors.json"), json.writeValueAsString(out));
    }

    public static void main(String[] args) throws Exception {
        fixture();
        writeSharedVectors();
    }

    private static int[] r50kIds(String s) {
        return Tokenizer.named("r50k_base").encode(s);
    }
}
