package org.hotpate.teachers.text;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A model's own Hugging Face {@code tokenizer.json} ({@code tokenizer: {file: PATH}}).
 *
 * <ul>
 *   <li><b>Encoding</b> is Hugging Face's tokenizers library itself (Rust, through DJL's {@code
 *       ai.djl.huggingface:tokenizers}; its native library ships in the jar and is extracted to
 *       {@code ~/.djl.ai} without network), with no special tokens added: the file's special added
 *       tokens and post-processor are removed from the copy DJL loads, so a record containing the
 *       literal text of a special token ({@code <|endoftext|>}, {@code <|eot_id|>}) is encoded as
 *       ordinary text and cannot inject it — the rule of the tiktoken encodings.
 *   <li><b>Decoding</b> is to exact bytes, token by token (so a released token that ends inside a
 *       UTF-8 character is held back, never shown as U+FFFD): byte-level vocabularies (GPT-2, Llama
 *       3; decoder {@code ByteLevel}) map each character of a token through GPT-2's byte↔unicode
 *       table; SentencePiece-style vocabularies (Llama 2; {@code ByteFallback} / {@code Metaspace})
 *       map {@code <0xNN>} to its byte and {@code ▁} to a space (the leading space that Hugging
 *       Face's {@code Strip} decoder removes at a sequence start is kept). Other decoders are
 *       refused. Special tokens decode to nothing.
 *   <li>|V| = the largest id of the vocabulary or the added tokens + 1.
 *   <li><b>End of text</b>: the {@code eos_token} of a {@code tokenizer_config.json} next to the
 *       file, else the first special token among {@link #EOS_NAMES}; a file with neither is
 *       refused.
 * </ul>
 */
final class HfTokenizerFile {
    /** End-of-text tokens recognised without a tokenizer_config.json, in order of preference. */
    static final List<String> EOS_NAMES =
            List.of("<|endoftext|>", "<|end_of_text|>", "</s>", "<eos>", "<|eot_id|>");

    private static final ObjectMapper JSON = new ObjectMapper();

    private HfTokenizerFile() {}

    static Tokenizer load(String name, Path file) {
        try {
            return read(name, file);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "tokenizer file " + file + " cannot be read: " + e.getMessage());
        }
    }

    private static Tokenizer read(String name, Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("tokenizer file " + file + " does not exist");
        }
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "tokenizer file " + file + " is not JSON: " + e.getMessage());
        }
        JsonNode vocab = root.path("model").path("vocab");
        if (!vocab.isObject()) {
            throw new IllegalArgumentException(
                    "tokenizer file "
                            + file
                            + " has no model.vocab object (a Hugging Face BPE tokenizer.json is expected)");
        }
        Map<Integer, String> byId = new HashMap<>();
        int maxId = -1;
        for (Iterator<Map.Entry<String, JsonNode>> it = vocab.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            int id = e.getValue().asInt();
            byId.put(id, e.getKey());
            maxId = Math.max(maxId, id);
        }
        Map<String, Integer> special = new LinkedHashMap<>();
        Map<Integer, String> added = new HashMap<>();
        ArrayNode keptAdded = JSON.createArrayNode();
        for (JsonNode t : root.path("added_tokens")) {
            int id = t.path("id").asInt();
            String content = t.path("content").asText();
            maxId = Math.max(maxId, id);
            if (t.path("special").asBoolean(false)) {
                special.put(content, id);
            } else {
                added.put(id, content);
                keptAdded.add(t);
            }
        }
        Decoding decoding = Decoding.of(root.path("decoder"), file);
        byte[][] bytes = new byte[maxId + 1][];
        for (Map.Entry<Integer, String> e : byId.entrySet()) {
            bytes[e.getKey()] = decoding.bytes(e.getValue());
        }
        for (Map.Entry<Integer, String> e : added.entrySet()) {
            bytes[e.getKey()] = e.getValue().getBytes(StandardCharsets.UTF_8);
        }
        int eos = endOfText(file, special);
        ObjectNode forEncoding = ((ObjectNode) root).deepCopy();
        forEncoding.set("added_tokens", keptAdded);
        forEncoding.putNull("post_processor");
        forEncoding.putNull("truncation");
        forEncoding.putNull("padding");
        HuggingFaceTokenizer hf =
                HuggingFaceTokenizer.newInstance(
                        new ByteArrayInputStream(JSON.writeValueAsBytes(forEncoding)),
                        Map.of(
                                "addSpecialTokens", "false",
                                "truncation", "false",
                                "padding", "false"));
        return new Tokenizer(name, new Codec(hf, bytes), eos, maxId + 1, special);
    }

    private static int endOfText(Path file, Map<String, Integer> special) throws IOException {
        Path config = file.resolveSibling("tokenizer_config.json");
        if (Files.isRegularFile(config)) {
            JsonNode eos = JSON.readTree(config.toFile()).path("eos_token");
            String text = eos.isObject() ? eos.path("content").asText("") : eos.asText("");
            if (!text.isEmpty()) {
                Integer id = special.get(text);
                if (id == null) {
                    throw new IllegalArgumentException(
                            config
                                    + ": eos_token '"
                                    + text
                                    + "' is not a special token of "
                                    + file);
                }
                return id;
            }
        }
        for (String n : EOS_NAMES) {
            if (special.containsKey(n)) {
                return special.get(n);
            }
        }
        throw new IllegalArgumentException(
                "tokenizer file "
                        + file
                        + " names no end-of-text token: add a tokenizer_config.json with eos_token"
                        + " next to it, or a special token among "
                        + EOS_NAMES);
    }

    /** How a vocabulary entry maps to bytes, from the file's decoder. */
    private enum Decoding {
        BYTE_LEVEL,
        SENTENCE_PIECE;

        static Decoding of(JsonNode decoder, Path file) {
            List<String> types = new ArrayList<>();
            types.add(decoder.path("type").asText(""));
            for (JsonNode d : decoder.path("decoders")) {
                types.add(d.path("type").asText(""));
            }
            if (types.contains("ByteLevel")) {
                return BYTE_LEVEL;
            }
            if (types.contains("ByteFallback") || types.contains("Metaspace")) {
                return SENTENCE_PIECE;
            }
            throw new IllegalArgumentException(
                    "tokenizer file "
                            + file
                            + ": decoder "
                            + types
                            + " is not supported (hotpate decodes ByteLevel and SentencePiece-style"
                            + " ByteFallback/Metaspace vocabularies to exact bytes)");
        }

        byte[] bytes(String token) {
            if (this == BYTE_LEVEL) {
                byte[] out = new byte[token.length()];
                for (int i = 0; i < token.length(); i++) {
                    int b = UNICODE_TO_BYTE.getOrDefault(token.charAt(i), -1);
                    if (b < 0) {
                        return token.getBytes(StandardCharsets.UTF_8); // not a byte-level entry
                    }
                    out[i] = (byte) b;
                }
                return out;
            }
            if (token.length() == 6 && token.startsWith("<0x") && token.endsWith(">")) {
                try {
                    return new byte[] {(byte) Integer.parseInt(token.substring(3, 5), 16)};
                } catch (NumberFormatException notAByte) {
                    // an ordinary token that looks like one
                }
            }
            return token.replace('\u2581', ' ').getBytes(StandardCharsets.UTF_8);
        }
    }

    /** GPT-2's bytes_to_unicode, inverted: printable bytes map to themselves, the rest to 256+. */
    private static final Map<Character, Integer> UNICODE_TO_BYTE = new HashMap<>();

    static {
        int n = 0;
        for (int b = 0; b < 256; b++) {
            boolean printable =
                    (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            UNICODE_TO_BYTE.put((char) (printable ? b : 256 + n++), b);
        }
    }

    /** Byte-level character of a byte (for tests and fixtures). */
    static char byteToUnicode(int b) {
        for (Map.Entry<Character, Integer> e : UNICODE_TO_BYTE.entrySet()) {
            if (e.getValue() == b) {
                return e.getKey();
            }
        }
        throw new IllegalArgumentException("not a byte: " + b);
    }

    private record Codec(HuggingFaceTokenizer hf, byte[][] bytes) implements Tokenizer.Codec {
        @Override
        public int[] encode(String text) {
            long[] ids = hf.encode(text, false, false).getIds();
            int[] out = new int[ids.length];
            for (int i = 0; i < ids.length; i++) {
                out[i] = (int) ids[i];
            }
            return out;
        }

        @Override
        public byte[] tokenBytes(int id) {
            return id >= 0 && id < bytes.length ? bytes[id] : null;
        }
    }
}
