package org.hotpate.eval.records;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hotpate.eval.ClassifierAccuracy;
import org.hotpate.eval.TextMetrics;
import org.hotpate.eval.UtilityRow;

/**
 * Scores the records evaluation: each method's released text against the held-out users' records
 * (one {@link UtilityRow}), and the non-private references (the ceiling: the real teaching records;
 * the floor: the best constant classifier).
 */
final class RecordsScoring {
    private RecordsScoring() {}

    /** One method's row of {@code utility.json}. */
    static UtilityRow score(String method, MethodOutput out, RecordsSetup s) {
        MethodContext c = s.context();
        Double accuracy =
                s.corpus().labelled()
                        ? ClassifierAccuracy.of(
                                out.labelledTexts(),
                                out.labelsGiven(),
                                s.testTexts(),
                                s.testLabels(),
                                c.classes(),
                                c.vocab())
                        : null;
        Double exposure =
                s.canaries().isEmpty()
                        ? null
                        : s.canaries().exposure(out.texts(), c.vocab(), c.o().seed());
        Object requested = out.details().get("sequences_requested");
        Double nonEmpty =
                requested == null
                        ? null
                        : ((Number) out.details().get("records_with_private_tokens")).doubleValue()
                                / ((Number) requested).doubleValue();
        Double fid =
                s.fidelity() == null || !RecordsEvaluation.TEXT_METHODS.contains(method)
                        ? null
                        : nanToNull(
                                s.fidelity()
                                        .summarize(
                                                out.texts().stream().map(c.tok()::decode).toList())
                                        .fidelity());
        return new UtilityRow(
                method,
                out.spentEpsilon(),
                out.tokens(),
                out.texts().size(),
                TextMetrics.jsBigram(out.texts(), s.testTexts()),
                TextMetrics.distinct2(out.texts()),
                accuracy,
                exposure,
                fid,
                nonEmpty);
    }

    /** The non-private references and the split's sizes ({@code references.json}). */
    static Map<String, Object> references(RecordsSetup s) {
        MethodContext c = s.context();
        List<int[]> teachTexts = new ArrayList<>();
        List<Integer> teachLabels = new ArrayList<>();
        for (List<RecordsCorpus.Rec> l : c.byUser().values()) {
            for (RecordsCorpus.Rec r : l) {
                teachTexts.add(r.tokens());
                teachLabels.add(r.label());
            }
        }
        Map<String, Object> refs = new LinkedHashMap<>();
        refs.put("teaching_users", c.n());
        refs.put("held_out_users", s.split().heldOut().size());
        refs.put("teaching_records", teachTexts.size());
        refs.put("held_out_records", s.testTexts().size());
        refs.put("classes", s.corpus().classes());
        refs.put("canaries", s.canaries().size());
        refs.put("real_js_bigram", TextMetrics.jsBigram(teachTexts, s.testTexts()));
        refs.put("real_distinct_2", TextMetrics.distinct2(teachTexts));
        if (s.corpus().labelled()) {
            refs.put(
                    "ceiling_accuracy",
                    ClassifierAccuracy.of(
                            teachTexts,
                            teachLabels.stream().mapToInt(Integer::intValue).toArray(),
                            s.testTexts(),
                            s.testLabels(),
                            c.classes(),
                            c.vocab()));
            refs.put("floor_accuracy", majorityShare(s.testLabels(), c.classes()));
        } else {
            refs.put("ceiling_accuracy", null);
            refs.put("floor_accuracy", null);
        }
        return refs;
    }

    /** The best constant classifier's accuracy on the test labels (the floor; see docs). */
    static double majorityShare(int[] labels, int classes) {
        if (labels.length == 0) {
            return 0;
        }
        int[] count = new int[classes];
        for (int l : labels) {
            count[l]++;
        }
        return Arrays.stream(count).max().orElse(0) / (double) labels.length;
    }

    private static Double nanToNull(double v) {
        return Double.isNaN(v) ? null : v;
    }
}
