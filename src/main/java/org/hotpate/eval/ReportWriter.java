package org.hotpate.eval;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes an {@link Evaluation.Result} to a directory: {@code evaluation.json} (the contract shape:
 * thresholds, coordinated/independent coverage, sparsity and tv first; extra keys after), PNG
 * plots, and a self-contained {@code report.html} (PNGs embedded as data URIs). Each file has its
 * class: {@link ReportJson}, {@link ReportPlots}, {@link ReportHtml}.
 */
public final class ReportWriter {
    private ReportWriter() {}

    /** Writes everything; returns the files written. */
    public static List<Path> write(
            Evaluation.Result r, Map<String, Object> workload, String command, Path dir)
            throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        Path json = dir.resolve("evaluation.json");
        ReportJson.JSON.writeValue(json.toFile(), ReportJson.toJson(r, workload, command));
        written.add(json);
        Map<String, Path> pngs = ReportPlots.plots(r, dir);
        written.addAll(pngs.values());
        Path html = dir.resolve("report.html");
        Files.writeString(
                html, ReportHtml.html(r, workload, command, pngs), StandardCharsets.UTF_8);
        written.add(html);
        return written;
    }
}
