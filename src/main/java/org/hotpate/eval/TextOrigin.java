package org.hotpate.eval;

import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Whose words a run's records are, besides {@link Fidelity}: how diverse they are (distinct
 * records, the share the 10 most common records take), how many are a text found only in the public
 * file, and how many released tokens the public model alone would have proposed (its top-1 at that
 * prefix). Texts are compared after trimming, collapsing whitespace and lower-casing.
 *
 * <p><b>Which are public.</b> Distinct records, the 10 most common records' share and the public
 * top-1 share are functions of the released records and the public model only. "Found only in the
 * public file" is decided against the private texts, so {@code publicOnly} is a statistic of
 * private data: {@code operator.json} and the study's output only.
 */
public final class TextOrigin {
    private final Set<String> publicOnly;

    private TextOrigin(Set<String> publicOnly) {
        this.publicOnly = publicOnly;
    }

    /** The measure for these private and public texts. */
    public static TextOrigin of(List<String> privateTexts, List<String> publicTexts) {
        checkNotNull("privateTexts", privateTexts);
        checkNotNull("publicTexts", publicTexts);
        Set<String> priv = new HashSet<>();
        for (String t : privateTexts) {
            priv.add(normalize(t));
        }
        Set<String> only = new HashSet<>();
        for (String t : publicTexts) {
            String n = normalize(t);
            if (!n.isEmpty() && !priv.contains(n)) {
                only.add(n);
            }
        }
        return new TextOrigin(only);
    }

    static String normalize(String t) {
        return t.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    }

    /**
     * The figures of one run.
     *
     * @param nonEmpty records with at least one non-blank character
     * @param distinct distinct non-empty records
     * @param top10Share the share of the non-empty records that the 10 most common texts take
     * @param publicOnlyShare the share of the non-empty records equal to a text found only in the
     *     public file
     * @param publicTop1Share the share of released tokens that were the public model's top-1 token
     *     at their prefix (NaN when not measured)
     * @param mostCommon the 10 most common texts and their counts
     */
    public record Summary(
            long nonEmpty,
            long distinct,
            double top10Share,
            long publicOnly,
            double publicOnlyShare,
            double publicTop1Share,
            Map<String, Long> mostCommon) {}

    /**
     * Summarizes {@code texts}; {@code publicTop1} of {@code tokens} released tokens were the
     * public model's top-1 ({@code tokens} 0: not measured).
     */
    public Summary summarize(List<String> texts, long publicTop1, long tokens) {
        Map<String, Long> counts = new HashMap<>();
        long nonEmpty = 0;
        long publicOnlyRecords = 0;
        for (String t : texts) {
            String n = normalize(t);
            if (n.isEmpty()) {
                continue;
            }
            nonEmpty++;
            counts.merge(n, 1L, Long::sum);
            if (publicOnly.contains(n)) {
                publicOnlyRecords++;
            }
        }
        List<Map.Entry<String, Long>> sorted = new ArrayList<>(counts.entrySet());
        sorted.sort(
                (a, b) ->
                        !a.getValue().equals(b.getValue())
                                ? Long.compare(b.getValue(), a.getValue())
                                : a.getKey().compareTo(b.getKey()));
        Map<String, Long> top = new LinkedHashMap<>();
        long inTop = 0;
        for (int i = 0; i < Math.min(10, sorted.size()); i++) {
            top.put(sorted.get(i).getKey(), sorted.get(i).getValue());
            inTop += sorted.get(i).getValue();
        }
        double denom = Math.max(1, nonEmpty);
        return new Summary(
                nonEmpty,
                counts.size(),
                inTop / denom,
                publicOnlyRecords,
                publicOnlyRecords / denom,
                tokens == 0 ? Double.NaN : publicTop1 / (double) tokens,
                top);
    }
}
