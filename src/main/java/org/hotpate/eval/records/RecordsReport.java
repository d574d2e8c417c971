package org.hotpate.eval.records;

import static org.hotpate.eval.HtmlFormat.esc;
import static org.hotpate.eval.HtmlFormat.fmt;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.eval.UtilityRow;

/**
 * Writes a records evaluation: {@code utility.json} with exactly the keys ({@code epsilon},
 * {@code delta}, {@code methods}: one {@link UtilityRow} per method), {@code references.json} (the
 * non-private ceiling and the floor, the split, each method's calibration) and a self-contained
 * {@code report.html} with inline SVG bar charts.
 */
public final class RecordsReport {
    private static final ObjectMapper JSON =
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private RecordsReport() {}

    /** Writes the three files into {@code dir} (created) and returns their paths. */
    public static List<Path> write(
            RecordsEvaluation.Result r, PrivacyBudget budget, String command, Path dir)
            throws IOException {
        Files.createDirectories(dir);
        Map<String, Object> utility = new LinkedHashMap<>();
        utility.put("epsilon", budget.epsilon());
        utility.put("delta", budget.delta());
        utility.put("methods", r.rows());
        Path u = dir.resolve("utility.json");
        JSON.writeValue(u.toFile(), utility);
        Map<String, Object> refs = new LinkedHashMap<>();
        refs.put("command", command);
        refs.putAll(r.references());
        refs.put("methods", r.details());
        Path f = dir.resolve("references.json");
        JSON.writeValue(f.toFile(), refs);
        Path h = dir.resolve("report.html");
        Files.writeString(h, html(r, budget, command), StandardCharsets.UTF_8);
        return List.of(u, f, h);
    }

    static String html(RecordsEvaluation.Result r, PrivacyBudget budget, String command) {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">")
                .append("<title>hotpate evaluate --workload records</title><style>")
                .append("body{font-family:sans-serif;max-width:980px;margin:2em auto;color:#222}")
                .append(
                        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;")
                .append("text-align:right}th{background:#f4f4f4}td.l{text-align:left}")
                .append("pre{background:#f7f7f7;padding:8px;white-space:pre-wrap}")
                .append("</style></head><body>\n");
        b.append("<h1>Seed methods on real records at equal ε</h1>\n");
        b.append(
                String.format(
                        Locale.ROOT, "<p>ε = %s, δ = %s.</p>\n", budget.epsilon(), budget.delta()));
        b.append("<pre>").append(esc(command)).append("</pre>\n");
        Map<String, Object> refs = r.references();
        b.append("<h2>Utility</h2>\n<table><tr><th>method</th><th>ε spent</th><th>tokens</th>")
                .append("<th>records</th><th>js_bigram ↓</th><th>distinct_2</th><th>accuracy</th>")
                .append("<th>canary exposure (bits)</th><th>fidelity ↑</th>")
                .append("<th>non-empty share</th></tr>\n");
        for (UtilityRow row : r.rows()) {
            b.append("<tr><td class=\"l\">")
                    .append(esc(row.method()))
                    .append("</td><td>")
                    .append(fmt(row.epsilon(), 4))
                    .append("</td><td>")
                    .append(row.tokens())
                    .append("</td><td>")
                    .append(row.records())
                    .append("</td><td>")
                    .append(fmt(row.jsBigram(), 4))
                    .append("</td><td>")
                    .append(fmt(row.distinct2(), 4))
                    .append("</td><td>")
                    .append(row.accuracy() == null ? "—" : fmt(row.accuracy(), 4))
                    .append("</td><td>")
                    .append(row.canaryExposure() == null ? "—" : fmt(row.canaryExposure(), 3))
                    .append("</td><td>")
                    .append(row.fidelity() == null ? "—" : fmt(row.fidelity(), 3))
                    .append("</td><td>")
                    .append(row.nonEmptyShare() == null ? "—" : fmt(row.nonEmptyShare(), 3))
                    .append("</td></tr>\n");
        }
        b.append("</table>\n<p>References (not private): real teaching text js_bigram ")
                .append(num(refs.get("real_js_bigram")))
                .append(", distinct_2 ")
                .append(num(refs.get("real_distinct_2")))
                .append("; classifier trained on the real teaching records (ceiling) ")
                .append(num(refs.get("ceiling_accuracy")))
                .append("; best constant classifier (floor) ")
                .append(num(refs.get("floor_accuracy")))
                .append(". Split: ")
                .append(refs.get("teaching_users"))
                .append(" teaching users, ")
                .append(refs.get("held_out_users"))
                .append(" held-out users; ")
                .append(refs.get("canaries"))
                .append(" canaries. Fidelity (operator-only: computed from the private records) is")
                .append(" the mean per-word log-likelihood ratio of a text under a word-bigram")
                .append(" model of the private records vs one of the public file (positive: reads")
                .append(" like the private data); — without --public-file.</p>\n");
        chart(b, r, "tokens released from private data", row -> (double) row.tokens(), null);
        chart(b, r, "js_bigram vs held-out users (lower is closer)", UtilityRow::jsBigram, null);
        chart(b, r, "distinct_2", UtilityRow::distinct2, null);
        Object ceiling = refs.get("ceiling_accuracy");
        chart(
                b,
                r,
                "accuracy on held-out users (line: ceiling)",
                UtilityRow::accuracy,
                ceiling instanceof Number x ? x.doubleValue() : null);
        chart(b, r, "canary exposure (bits; ≈1 = not memorised)", UtilityRow::canaryExposure, null);
        b.append("<h2>Calibration per method</h2>\n<pre>");
        r.details().forEach((k, v) -> b.append(esc(k + ": " + v)).append('\n'));
        b.append("</pre>\n<h2>Sample outputs (released, DP)</h2>\n")
                .append("<p>Tokens inside «public: …» came from the public model (a ⊥ filled by")
                .append(" the public fallback), not from the private aggregate.</p>\n");
        r.samples()
                .forEach(
                        (k, v) -> {
                            b.append("<h3>").append(esc(k)).append("</h3><pre>");
                            for (String s : v) {
                                b.append(esc(s)).append('\n');
                            }
                            b.append("</pre>\n");
                        });
        b.append("</body></html>\n");
        return b.toString();
    }

    private static void chart(
            StringBuilder b,
            RecordsEvaluation.Result r,
            String title,
            Function<UtilityRow, Double> value,
            Double reference) {
        double max = reference == null ? 0 : reference;
        for (UtilityRow row : r.rows()) {
            Double v = value.apply(row);
            if (v != null) {
                max = Math.max(max, v);
            }
        }
        if (max <= 0) {
            max = 1;
        }
        int barH = 22;
        int width = 640;
        int left = 110;
        int h = r.rows().size() * (barH + 6) + 10;
        b.append("<h3>").append(esc(title)).append("</h3>\n");
        b.append(
                String.format(
                        Locale.ROOT,
                        "<svg width=\"%d\" height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\">",
                        width + left + 80,
                        h));
        int y = 5;
        for (UtilityRow row : r.rows()) {
            Double v = value.apply(row);
            double w = v == null ? 0 : width * v / max;
            String color =
                    row.method().equals("hot-pate")
                            ? "#C0392B"
                            : row.method().equals("cold-pate") ? "#2471A3" : "#7F8C8D";
            b.append(
                    String.format(
                            Locale.ROOT,
                            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"12\">%s</text>",
                            left - 6,
                            y + 15,
                            esc(row.method())));
            b.append(
                    String.format(
                            Locale.ROOT,
                            "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
                            left,
                            y,
                            w,
                            barH,
                            color));
            b.append(
                    String.format(
                            Locale.ROOT,
                            "<text x=\"%.1f\" y=\"%d\" font-size=\"12\">%s</text>",
                            left + w + 4,
                            y + 15,
                            v == null ? "null" : fmt(v, 4)));
            y += barH + 6;
        }
        if (reference != null) {
            double x = left + width * reference / max;
            b.append(
                    String.format(
                            Locale.ROOT,
                            "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" stroke-dasharray=\"4,3\"/>",
                            x,
                            x,
                            h));
        }
        b.append("</svg>\n");
    }

    private static String num(Object o) {
        return o instanceof Number x ? fmt(x.doubleValue(), 4) : "—";
    }
}
