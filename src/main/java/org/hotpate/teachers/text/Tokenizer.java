package org.hotpate.teachers.text;

import static org.hotpate.core.util.Preconditions.checkArgument;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.IntArrayList;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A BPE tokenizer by name: {@code cl100k_base} (default), {@code o200k_base}, {@code r50k_base}
 * (jtokkit, the Java port of OpenAI's tiktoken encodings), or {@code file:PATH} — a model's own
 * Hugging Face {@code tokenizer.json} ({@link HfTokenizerFile}: encoding by Hugging Face's
 * tokenizers through DJL, decoding to exact bytes). Pure: no Flink.
 *
 * <p>The vocabulary includes the special tokens (its size is the largest special id + 1); the
 * end-of-text token ({@code <|endoftext|>}) ends every training record and is the stop token of a
 * records run. Text is always encoded as ordinary text, so a record that contains the literal
 * string {@code <|endoftext|>} cannot inject the special token. Ids inside the vocabulary that the
 * encoding does not define (cl100k_base has a few gaps) decode to no bytes.
 *
 * <p>Decoding to text is UTF-8 with an incomplete trailing multi-byte sequence held back (a token
 * sequence may end inside a character; see {@link Utf8Text}); invalid bytes elsewhere become
 * U+FFFD.
 */
public final class Tokenizer {
    /** The names accepted by {@link #named(String)}. */
    public static final List<String> NAMES = List.of("cl100k_base", "o200k_base", "r50k_base");

    // Per encoding: the end-of-text id and the vocabulary size (largest special id + 1).
    private static final Map<String, int[]> SPECIALS =
            Map.of(
                    "cl100k_base", new int[] {100257, 100277},
                    "o200k_base", new int[] {199999, 200019},
                    "r50k_base", new int[] {50256, 50257});
    private static final Map<String, Tokenizer> CACHE = new ConcurrentHashMap<>();
    private static volatile EncodingRegistry registry;

    /** The prefix of a tokenizer name that names a Hugging Face tokenizer.json file. */
    public static final String FILE_PREFIX = "file:";

    /** What a vocabulary does: encode text as ordinary text, give one token's bytes. */
    interface Codec {
        int[] encode(String text);

        /** The bytes of one token; null for an id the vocabulary does not define. */
        byte[] tokenBytes(int id);
    }

    private final String name;
    private final Codec codec;
    private final int endOfText;
    private final int vocabularySize;
    private final Set<Integer> special;
    private final Map<String, Integer> specialByText;

    /** {@code specialByText}: every special token's text → its id (end-of-text included). */
    Tokenizer(
            String name,
            Codec codec,
            int endOfText,
            int vocabularySize,
            Map<String, Integer> specialByText) {
        this.name = name;
        this.codec = codec;
        this.endOfText = endOfText;
        this.vocabularySize = vocabularySize;
        this.specialByText = Map.copyOf(specialByText);
        this.special = Set.copyOf(specialByText.values());
    }

    /**
     * The tokenizer with this name (loaded once per JVM): one of {@link #NAMES}, or {@code
     * file:PATH} for a Hugging Face tokenizer.json.
     */
    public static Tokenizer named(String name) {
        checkArgument(
                name != null && (SPECIALS.containsKey(name) || name.startsWith(FILE_PREFIX)),
                "tokenizer must be one of "
                        + NAMES
                        + " or {file: tokenizer.json}; got '"
                        + name
                        + "'");
        return CACHE.computeIfAbsent(
                name,
                n -> {
                    if (n.startsWith(FILE_PREFIX)) {
                        return HfTokenizerFile.load(n, Path.of(n.substring(FILE_PREFIX.length())));
                    }
                    int[] s = SPECIALS.get(n);
                    return new Tokenizer(
                            n,
                            new Tiktoken(registry().getEncoding(n).orElseThrow()),
                            s[0],
                            s[1],
                            Map.of("<|endoftext|>", s[0]));
                });
    }

    /** Whether {@code name} is a valid tokenizer name (the file is not opened). */
    public static boolean isValidName(String name) {
        return name != null
                && (SPECIALS.containsKey(name)
                        || (name.startsWith(FILE_PREFIX) && name.length() > FILE_PREFIX.length()));
    }

    private record Tiktoken(Encoding encoding) implements Codec {
        @Override
        public int[] encode(String text) {
            return encoding.encodeOrdinary(text).toArray();
        }

        @Override
        public byte[] tokenBytes(int id) {
            IntArrayList one = new IntArrayList(1);
            one.add(id);
            try {
                return encoding.decodeBytes(one);
            } catch (RuntimeException unknownId) {
                return null; // an id inside the vocabulary range that the encoding does not define
            }
        }
    }

    private static EncodingRegistry registry() {
        if (registry == null) {
            synchronized (Tokenizer.class) {
                if (registry == null) {
                    registry = Encodings.newLazyEncodingRegistry();
                }
            }
        }
        return registry;
    }

    public String name() {
        return name;
    }

    /** |V|: token ids are 0..vocabularySize-1 (special tokens included). */
    public int vocabularySize() {
        return vocabularySize;
    }

    /** The id of {@code <|endoftext|>}: ends every record, stops a sequence. */
    public int endOfText() {
        return endOfText;
    }

    /** The ids of the special tokens (end-of-text included): they decode to nothing. */
    public Set<Integer> specialTokens() {
        return special;
    }

    /** The token ids of {@code text}, encoded as ordinary text (no special tokens). */
    public int[] encode(String text) {
        return codec.encode(text);
    }

    /**
     * The bytes of these tokens; unknown ids (gaps, out of range) and special tokens (the
     * end-of-text token included) decode to nothing.
     */
    public byte[] decodeBytes(int[] tokens) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int t : tokens) {
            if (t < 0 || t >= vocabularySize || special.contains(t)) {
                continue;
            }
            byte[] b = codec.tokenBytes(t);
            if (b != null) {
                out.writeBytes(b);
            }
        }
        return out.toByteArray();
    }

    /**
     * The UTF-8 text of these tokens; an incomplete trailing character is held back (not rendered),
     * invalid bytes elsewhere become U+FFFD.
     */
    public String decode(int[] tokens) {
        return Utf8Text.decodeHoldingBackTail(decodeBytes(tokens));
    }

    /**
     * The id of a token given as text (HTTP teachers): the id when the text is exactly one token or
     * a special token's text ({@code <|endoftext|>}), else -1.
     */
    public int singleTokenId(String tokenText) {
        if (tokenText == null || tokenText.isEmpty()) {
            return -1;
        }
        Integer sp = specialByText.get(tokenText);
        if (sp != null) {
            return sp;
        }
        int[] ids = encode(tokenText);
        return ids.length == 1 ? ids[0] : -1;
    }

    @Override
    public String toString() {
        return name;
    }
}
