package org.hotpate.stream.ops;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.hotpate.protocol.SequenceProgress;
import org.hotpate.teachers.text.Tokenizer;

/**
 * How a sequence's tokens become its output text and when text ends it. Records runs decode with
 * the run's tokenizer (UTF-8, an incomplete trailing character held back) and stop at the
 * end-of-text token or before the first stop string ({@code generation.stop}); simulated runs
 * render Planet-Z numbers as digits ({@link TokenText}) and have no stop strings.
 */
public record SequenceText(String tokenizer, List<String> stop) implements Serializable {
    /** Simulated runs. */
    public static final SequenceText NUMBERS = new SequenceText("", List.of());

    public boolean decoded() {
        return !tokenizer.isEmpty();
    }

    /** The text of the tokens and whether a stop string (or end-of-text) ended it. */
    public record Cut(String text, boolean stopped) {}

    public Cut cut(int[] tokens) {
        if (!decoded()) {
            return new Cut(TokenText.render(tokens), false);
        }
        Tokenizer t = Tokenizer.named(tokenizer);
        String text = t.decode(tokens);
        int at = -1;
        for (String s : stop) {
            int i = text.indexOf(s);
            if (i >= 0 && (at < 0 || i < at)) {
                at = i;
            }
        }
        boolean eot = tokens.length > 0 && tokens[tokens.length - 1] == t.endOfText();
        return at >= 0 ? new Cut(text.substring(0, at), true) : new Cut(text, eot);
    }

    /**
     * The rule that ends a sequence when a token is appended: the stop token ({@link #stopToken}),
     * or — records runs — a stop string or end-of-text in the decoded text.
     */
    public SequenceProgress.StopRule stopRule(int configuredStopToken) {
        int stopToken = stopToken(configuredStopToken);
        return tokens ->
                tokens[tokens.length - 1] == stopToken || (decoded() && cut(tokens).stopped());
    }

    /**
     * The tokens that end a sequence on their own: the configured stop token, and in records runs
     * end-of-text and every token whose text holds a stop string (public: a function of the
     * tokenizer and the spec). Cached per tokenizer and stop strings.
     */
    public int[] stopTokens(int configuredStopToken) {
        java.util.TreeSet<Integer> out = new java.util.TreeSet<>();
        if (configuredStopToken >= 0) {
            out.add(configuredStopToken);
        }
        if (decoded()) {
            for (int t : STOP_TOKENS.computeIfAbsent(tokenizer + "\u0000" + stop, k -> scan())) {
                out.add(t);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private static final java.util.Map<String, int[]> STOP_TOKENS =
            new java.util.concurrent.ConcurrentHashMap<>();

    private int[] scan() {
        Tokenizer t = Tokenizer.named(tokenizer);
        java.util.List<Integer> out = new java.util.ArrayList<>();
        out.add(t.endOfText());
        if (!stop.isEmpty()) {
            for (int id = 0; id < t.vocabularySize(); id++) {
                if (id == t.endOfText()) {
                    continue;
                }
                String text;
                try {
                    text = new String(t.decodeBytes(new int[] {id}), StandardCharsets.UTF_8);
                } catch (RuntimeException unassigned) {
                    continue; // an id with no bytes (cl100k's gaps)
                }
                for (String s : stop) {
                    if (!s.isEmpty() && text.contains(s)) {
                        out.add(id);
                        break;
                    }
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The token that ends a sequence: the configured one, else end-of-text in records runs. */
    public int stopToken(int configured) {
        return configured >= 0 || !decoded() ? configured : Tokenizer.named(tokenizer).endOfText();
    }
}
