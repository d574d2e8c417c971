package org.hotpate.eval;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How much a set of texts reads like the private data rather than the public data
 * (docs/evaluation.md, "Fidelity"): the mean, over texts with at least one word, of
 *
 * <pre>(ln P_priv(words) − ln P_pub(words)) / #words</pre>
 *
 * where P_priv and P_pub are word-bigram models fitted on the private and on the public texts.
 * Positive: the text is likelier under the private model (it carries what only the private data
 * says); negative: under the public one.
 *
 * <p>Definition, fixed so that runs compare: words are the whitespace-separated pieces of a text,
 * lower-cased; each text is framed by a start and an end symbol, so P(words) = Π P(w_i | w_{i−1})
 * over the words and the end; both models are add-k smoothed with k = {@value #K} over <em>one</em>
 * shared vocabulary (every word of either corpus, the end symbol and one unknown word), so the two
 * models differ only by what their texts contain, not by their smoothing. Real private subjects of
 * the demo corpus score about +3.4 and real public ones about −3.3 under this definition.
 *
 * <p><b>Operator-only.</b> The score is computed from the private texts (P_priv is fitted on them),
 * so it is a statistic of private data: it goes to {@code operator.json} and to the evaluation
 * report, never to a public output.
 */
public final class Fidelity {
    /** The add-k constant of both models. */
    public static final double K = 0.1;

    private static final String START = "\u0002<s>";
    private static final String END = "\u0003</s>";

    private final Model privateModel;
    private final Model publicModel;
    private final int vocabularySize;

    private Fidelity(Model priv, Model pub, int vocabularySize) {
        this.privateModel = priv;
        this.publicModel = pub;
        this.vocabularySize = vocabularySize;
    }

    /** The measure for these private and public texts (either may be empty, not both). */
    public static Fidelity of(List<String> privateTexts, List<String> publicTexts) {
        checkNotNull("privateTexts", privateTexts);
        checkNotNull("publicTexts", publicTexts);
        checkArgument(
                !privateTexts.isEmpty() || !publicTexts.isEmpty(),
                "fidelity needs private or public texts");
        Set<String> vocabulary = new HashSet<>();
        Model priv = Model.fit(privateTexts, vocabulary);
        Model pub = Model.fit(publicTexts, vocabulary);
        return new Fidelity(priv, pub, vocabulary.size() + 2); // + the end symbol and unknown
    }

    /** The words of a text as the measure sees them. */
    public static List<String> words(String text) {
        List<String> out = new ArrayList<>();
        for (String w : text.trim().split("\\s+")) {
            if (!w.isEmpty()) {
                out.add(w.toLowerCase(Locale.ROOT));
            }
        }
        return out;
    }

    /** The per-word log-likelihood ratio of one text, or NaN for a text without words. */
    public double score(String text) {
        List<String> w = words(text);
        if (w.isEmpty()) {
            return Double.NaN;
        }
        double sum = 0;
        String prev = START;
        for (int i = 0; i <= w.size(); i++) {
            String cur = i < w.size() ? w.get(i) : END;
            sum += privateModel.logProbability(prev, cur, vocabularySize);
            sum -= publicModel.logProbability(prev, cur, vocabularySize);
            prev = cur;
        }
        return sum / w.size();
    }

    /** The summary of a set of texts: the mean score and how many texts had words. */
    public record Summary(double fidelity, int scored, int texts) {
        /** Share of texts with at least one word (1 for an empty set). */
        public double nonEmptyShare() {
            return texts == 0 ? 1 : scored / (double) texts;
        }
    }

    /** The mean score over {@code texts} with at least one word (NaN if none has one). */
    public Summary summarize(List<String> texts) {
        checkNotNull("texts", texts);
        double sum = 0;
        int scored = 0;
        for (String t : texts) {
            double s = score(t);
            if (!Double.isNaN(s)) {
                sum += s;
                scored++;
            }
        }
        return new Summary(scored == 0 ? Double.NaN : sum / scored, scored, texts.size());
    }

    /** One add-k word-bigram model. */
    private record Model(Map<String, Integer> pairs, Map<String, Integer> contexts) {
        static Model fit(List<String> texts, Set<String> vocabulary) {
            Map<String, Integer> pairs = new HashMap<>();
            Map<String, Integer> contexts = new HashMap<>();
            for (String t : texts) {
                List<String> w = words(t);
                vocabulary.addAll(w);
                String prev = START;
                for (int i = 0; i <= w.size(); i++) {
                    String cur = i < w.size() ? w.get(i) : END;
                    pairs.merge(prev + '\u0000' + cur, 1, Integer::sum);
                    contexts.merge(prev, 1, Integer::sum);
                    prev = cur;
                }
            }
            return new Model(pairs, contexts);
        }

        double logProbability(String prev, String cur, int vocabularySize) {
            int c = pairs.getOrDefault(prev + '\u0000' + cur, 0);
            int n = contexts.getOrDefault(prev, 0);
            return Math.log((c + K) / (n + K * vocabularySize));
        }
    }
}
