package org.hotpate.eval.records;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.hotpate.teachers.text.Tokenizer;

/**
 * One method's released text (token sequences) and labels (−1 = none), and its totals; {@code
 * publicTokens} marks, per text, the tokens that came from the public model (a ⊥ filled by the
 * public fallback) rather than from the private aggregate (null: none did).
 */
record MethodOutput(
        String method,
        List<int[]> texts,
        int[] labels,
        long tokens,
        double spentEpsilon,
        Map<String, Object> details,
        List<boolean[]> publicTokens) {
    static final String PUBLIC_OPEN = "«public: ";
    static final String PUBLIC_CLOSE = "»";

    MethodOutput(
            String method,
            List<int[]> texts,
            int[] labels,
            long tokens,
            double spentEpsilon,
            Map<String, Object> details) {
        this(method, texts, labels, tokens, spentEpsilon, details, null);
    }

    /**
     * Up to 8 outputs, decoded; tokens that came from the public model rather than the private
     * aggregate (a ⊥ filled by the public fallback) are shown inside {@link #PUBLIC_OPEN} … {@link
     * #PUBLIC_CLOSE}, so a sample never passes public filler off as private text.
     */
    List<String> decodeSamples(Tokenizer tok, List<String> classes) {
        List<String> s = new ArrayList<>();
        for (int i = 0; i < Math.min(8, texts.size()); i++) {
            String label = labels[i] >= 0 ? "[" + classes.get(labels[i]) + "] " : "";
            boolean[] pub = publicTokens == null ? null : publicTokens.get(i);
            s.add(label + markPublic(texts.get(i), pub, tok));
        }
        return s;
    }

    /** The text with its public spans marked (each maximal run decoded together). */
    static String markPublic(int[] tokens, boolean[] pub, Tokenizer tok) {
        if (pub == null) {
            return tok.decode(tokens);
        }
        StringBuilder b = new StringBuilder();
        int i = 0;
        while (i < tokens.length) {
            int j = i;
            while (j < tokens.length && pub[j] == pub[i]) {
                j++;
            }
            String t = tok.decode(Arrays.copyOfRange(tokens, i, j));
            b.append(pub[i] ? PUBLIC_OPEN + t + PUBLIC_CLOSE : t);
            i = j;
        }
        return b.toString();
    }

    /** Only the labelled texts (label ≥ 0), in order. */
    List<int[]> labelledTexts() {
        List<int[]> out = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            if (labels[i] >= 0) {
                out.add(texts.get(i));
            }
        }
        return out;
    }

    /** Only the labels ≥ 0, in order (aligned with {@link #labelledTexts()}). */
    int[] labelsGiven() {
        return Arrays.stream(labels).filter(l -> l >= 0).toArray();
    }
}
