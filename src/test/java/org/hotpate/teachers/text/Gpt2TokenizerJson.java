package org.hotpate.teachers.text;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * GPT-2's tokenizer.json, written from jtokkit's {@code r50k_base} (which is GPT-2's encoding: the
 * same 50,257 byte-level BPE tokens and pre-tokenizer regex) in Hugging Face's format: the
 * vocabulary as byte-level strings and the merges recovered from the ranks the way Hugging Face's
 * tiktoken converter does (the merge that made token r is the two-part split BPE reaches on r's
 * bytes with ranks below r). Generated in tests (no network, nothing checked in: the file is ~2
 * MB); tests then check its ids against r50k_base's, so a wrong conversion fails them.
 */
public final class Gpt2TokenizerJson {
    private Gpt2TokenizerJson() {}

    /** Writes {@code dir/tokenizer.json} (once per path) and returns it. */
    public static synchronized Path write(Path dir) throws IOException {
        Path file = dir.resolve("tokenizer.json");
        if (Files.isRegularFile(file)) {
            return file;
        }
        Files.createDirectories(dir);
        Tokenizer r50k = Tokenizer.named("r50k_base");
        int eot = r50k.endOfText();
        byte[][] bytes = new byte[eot][];
        Map<String, Integer> rank = new HashMap<>();
        for (int i = 0; i < eot; i++) {
            bytes[i] = r50k.decodeBytes(new int[] {i});
            rank.put(latin1(bytes[i]), i);
        }
        ObjectMapper json = new ObjectMapper();
        ObjectNode vocab = json.createObjectNode();
        ArrayNode merges = json.createArrayNode();
        for (int i = 0; i < eot; i++) {
            vocab.put(unicode(bytes[i]), i);
            if (bytes[i].length > 1) {
                List<String> parts = bpe(bytes[i], rank, i);
                if (parts.size() != 2) {
                    throw new IllegalStateException("token " + i + " splits into " + parts);
                }
                merges.add(unicode(bytes(parts.get(0))) + " " + unicode(bytes(parts.get(1))));
            }
        }
        vocab.put("<|endoftext|>", eot);
        ObjectNode root = json.createObjectNode();
        root.put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        ObjectNode added = root.putArray("added_tokens").addObject();
        added.put("id", eot);
        added.put("content", "<|endoftext|>");
        added.put("single_word", false);
        added.put("lstrip", false);
        added.put("rstrip", false);
        added.put("normalized", true);
        added.put("special", true);
        root.putNull("normalizer");
        root.set("pre_tokenizer", byteLevel(json));
        root.set("post_processor", byteLevel(json));
        root.set("decoder", byteLevel(json));
        ObjectNode model = root.putObject("model");
        model.put("type", "BPE");
        model.putNull("dropout");
        model.putNull("unk_token");
        model.put("continuing_subword_prefix", "");
        model.put("end_of_word_suffix", "");
        model.put("fuse_unk", false);
        model.put("byte_fallback", false);
        model.set("vocab", vocab);
        model.set("merges", merges);
        Files.write(file, json.writeValueAsBytes(root));
        return file;
    }

    private static ObjectNode byteLevel(ObjectMapper json) {
        ObjectNode o = json.createObjectNode();
        o.put("type", "ByteLevel");
        o.put("add_prefix_space", false);
        o.put("trim_offsets", true);
        o.put("use_regex", true);
        return o;
    }

    /** tiktoken's BPE on one token's bytes, merging only pairs ranked below {@code maxRank}. */
    private static List<String> bpe(byte[] token, Map<String, Integer> rank, int maxRank) {
        List<String> parts = new ArrayList<>();
        for (byte b : token) {
            parts.add(latin1(new byte[] {b}));
        }
        while (true) {
            int best = -1;
            int bestRank = Integer.MAX_VALUE;
            for (int j = 0; j + 1 < parts.size(); j++) {
                Integer r = rank.get(parts.get(j) + parts.get(j + 1));
                if (r != null && r < maxRank && r < bestRank) {
                    best = j;
                    bestRank = r;
                }
            }
            if (best < 0) {
                return parts;
            }
            parts.set(best, parts.get(best) + parts.remove(best + 1));
        }
    }

    private static String latin1(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private static byte[] bytes(String latin1) {
        return latin1.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String unicode(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(HfTokenizerFile.byteToUnicode(x & 0xFF));
        }
        return s.toString();
    }
}
