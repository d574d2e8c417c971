package org.hotpate.eval;

import static org.hotpate.eval.HtmlFormat.esc;
import static org.hotpate.eval.HtmlFormat.fmt;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The self-contained {@code report.html} of an {@link Evaluation.Result} (PNGs as data URIs). */
final class ReportHtml {
    private ReportHtml() {}

    static String html(
            Evaluation.Result r,
            Map<String, Object> workload,
            String command,
            Map<String, Path> pngs)
            throws IOException {
        StringBuilder h = new StringBuilder();
        h.append(
                        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>hotpate evaluation</title>\n")
                .append(
                        "<style>body{font-family:sans-serif;max-width:1100px;margin:1em auto;color:#222}")
                .append(
                        "table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}")
                .append(
                        "th{background:#eee}td:first-child,th:first-child{text-align:left}img{max-width:100%;border:1px solid #ddd}")
                .append(
                        ".hot{color:#C0392B}.cold{color:#2471A3}code{background:#f4f4f4;padding:1px 4px}</style></head><body>\n");
        h.append(
                "<h1>Hot PATE evaluation: coordinated (hot) vs independent (cold) ensembles</h1>\n");
        h.append("<p><code>")
                .append(esc(command))
                .append("</code></p>\n<h2>Workload</h2>\n<table>");
        for (Map.Entry<String, Object> e : workload.entrySet()) {
            Object v = e.getValue();
            String text =
                    v instanceof Double d && d != Math.rint(d)
                            ? String.format(Locale.ROOT, "%.4g", d)
                            : String.valueOf(v);
            h.append("<tr><td>")
                    .append(esc(e.getKey()))
                    .append("</td><td>")
                    .append(esc(text))
                    .append("</td></tr>");
        }
        h.append("</table>\n");
        h.append("<h2>Coverage, sparsity and TV distance per threshold</h2>\n")
                .append(
                        "<p>coverage = fraction of the n votes in tokens whose count is &ge; T (mean over draws); sparsity = distinct tokens with count &ge; T in at least one draw; ")
                .append(
                        "TV = distance between the pooled filtered votes (normalised) and the average teacher distribution; P(&tau;=T) = robust mass of Remark 3.</p>\n");
        h.append(
                        "<table><tr><th>T</th><th class=hot>coverage hot</th><th class=cold>coverage cold</th><th class=hot>sparsity hot</th>")
                .append(
                        "<th class=cold>sparsity cold</th><th class=hot>TV hot</th><th class=cold>TV cold</th><th>P(&tau;=T)</th></tr>\n");
        for (int i = 0; i < r.thresholds().length; i++) {
            h.append("<tr><td>")
                    .append(r.thresholds()[i])
                    .append("</td>")
                    .append(td(r.coverageCoordinated()[i], 3))
                    .append(td(r.coverageIndependent()[i], 3))
                    .append(tdNum(r.sparsityCoordinated()[i]))
                    .append(tdNum(r.sparsityIndependent()[i]))
                    .append(td(r.tvCoordinated()[i], 3))
                    .append(td(r.tvIndependent()[i], 3))
                    .append(td(r.robustMass()[i], 3))
                    .append("</tr>\n");
        }
        h.append("</table>\n");
        if (r.yield().isPresent()) {
            YieldSweep.Result y = r.yield().get();
            h.append("<h2>Yield vs &alpha; (threshold T = ")
                    .append(y.threshold())
                    .append(", n = ")
                    .append(y.teachers())
                    .append(", m = ")
                    .append(y.commonTokens())
                    .append(" common tokens, ")
                    .append(y.draws())
                    .append(" draws)</h2>\n")
                    .append(
                            "<table><tr><th>&alpha;</th><th class=hot>yield hot</th><th class=cold>yield cold</th><th>theory (hot)</th></tr>\n");
            for (int i = 0; i < y.alphas().length; i++) {
                h.append("<tr><td>")
                        .append(fmt(y.alphas()[i], 3))
                        .append("</td>")
                        .append(td(y.coordinated()[i], 3))
                        .append(td(y.independent()[i], 3))
                        .append(td(y.theory()[i], 3))
                        .append("</tr>\n");
            }
            h.append("</table>\n");
        }
        if (!r.privacy().isEmpty() || !r.privacyNote().isEmpty()) {
            h.append("<h2>Privacy efficiency: useful tokens at (&epsilon; = ")
                    .append(workload.get("epsilon"))
                    .append(", &delta; = ")
                    .append(workload.get("delta"))
                    .append(")</h2>\n")
                    .append(
                            "<p>Data-independent RDP accounting with a budget filter; a useful token is a released token equal to the noise-free plurality. ")
                    .append(
                            "Noise parameters tuned separately for hot and cold on a grid, subject to precision (useful/answered) &ge; ")
                    .append(workload.get("minPrecision"))
                    .append(".</p>\n");
            if (!r.privacyNote().isEmpty()) {
                h.append("<p>").append(esc(r.privacyNote())).append("</p>\n");
            }
            h.append(
                            "<table><tr><th>mechanism</th><th>sampler</th><th>parameters</th><th>steps</th><th>answered</th><th>useful tokens</th>")
                    .append(
                            "<th>precision</th><th>distinct tokens</th><th>&epsilon; spent</th><th>predicted tokens</th><th>hot/cold tokens (realized; predicted)</th><th>hot/cold distinct</th></tr>\n");
            for (PrivacyEfficiency.Result m : r.privacy()) {
                for (PrivacyEfficiency.Run run : List.of(m.coordinated(), m.independent())) {
                    h.append("<tr><td>")
                            .append(esc(m.mechanism()))
                            .append("</td><td>")
                            .append(run.sampler())
                            .append("</td><td>")
                            .append(
                                    esc(
                                            params(run.params())
                                                    + (run.threshold() != null
                                                                    && !run.params()
                                                                            .containsKey(
                                                                                    "threshold")
                                                            ? ", T=" + fmt(run.threshold(), 1)
                                                            : "")))
                            .append("</td>")
                            .append(tdNum(run.steps()))
                            .append(tdNum(run.answered()))
                            .append(tdNum(run.tokens()))
                            .append(td(run.precision(), 2))
                            .append(tdNum(run.distinctTokens()))
                            .append(td(run.spentEpsilon(), 3))
                            .append(td(run.predictedTokens(), 1))
                            .append("<td>")
                            .append(
                                    run == m.coordinated()
                                            ? (m.ratio() == null
                                                            ? "cold yields none"
                                                            : fmt(m.ratio(), 1) + "&times;")
                                                    + "; "
                                                    + (m.expectedRatio() == null
                                                            ? "&infin;"
                                                            : fmt(m.expectedRatio(), 1) + "&times;")
                                            : "")
                            .append(
                                    run.steps() == 0 && run.tokens() == 0
                                            ? "no qualifying setting (precision floor, or < 0.05 tokens predicted)"
                                            : "")
                            .append(run.capped() ? " (capped)" : "")
                            .append("</td><td>")
                            .append(
                                    run == m.coordinated()
                                            ? (m.distinctRatio() == null
                                                    ? "&infin;"
                                                    : fmt(m.distinctRatio(), 1) + "&times;")
                                            : "")
                            .append("</td></tr>\n");
                }
            }
            h.append("</table>\n");
        }
        h.append("<h2>Plots</h2>\n");
        for (Map.Entry<String, Path> e : pngs.entrySet()) {
            String b64 = Base64.getEncoder().encodeToString(Files.readAllBytes(e.getValue()));
            h.append("<h3>")
                    .append(esc(e.getKey()))
                    .append("</h3>\n<img alt=\"")
                    .append(esc(e.getKey()))
                    .append("\" src=\"data:image/png;base64,")
                    .append(b64)
                    .append("\">\n");
        }
        h.append("<p>Draws: ")
                .append(fmt(r.drawSeconds(), 1))
                .append(" s; privacy efficiency: ")
                .append(fmt(r.privacySeconds(), 1))
                .append(" s.</p>\n</body></html>\n");
        return h.toString();
    }

    private static String params(Map<String, Double> p) {
        StringBuilder sb = new StringBuilder();
        p.forEach(
                (k, v) ->
                        sb.append(sb.length() == 0 ? "" : ", ")
                                .append(k)
                                .append('=')
                                .append(fmt(v, 1)));
        return sb.toString();
    }

    private static String td(double v, int digits) {
        return "<td>" + fmt(v, digits) + "</td>";
    }

    private static String tdNum(double v) {
        return "<td>" + (v == Math.rint(v) ? String.valueOf((long) v) : fmt(v, 1)) + "</td>";
    }
}
