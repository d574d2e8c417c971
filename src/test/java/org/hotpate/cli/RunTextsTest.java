package org.hotpate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.RecordsLoader;
import org.hotpate.teachers.records.UserDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30 item 8: the console of a records run holds public values only; the figures computed from
 * the private records (fidelity, valid-record and rejected-line counts, load time, records/s) are
 * operator-only, in {@code operator.json}, and the console names them without their values.
 */
class RunTextsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    private JobConfig cfg() throws Exception {
        Path priv =
                Files.writeString(
                        dir.resolve("private.jsonl"),
                        """
                        {"user": "a", "text": "the build is green again today"}
                        {"user": "b", "text": "the release went out this morning"}
                        {"user": "c", "text": "please review the patch before friday"}
                        """);
        Path pub =
                Files.writeString(
                        dir.resolve("public.jsonl"),
                        """
                        {"user": "p", "text": "cheap watches for sale now"}
                        {"user": "q", "text": "win a prize today only"}
                        """);
        return JobSpec.parse(
                        """
                        records: {file: %s, user-field: user, text-field: text}
                        ensemble: {source: records, kind: heterogeneous}
                        teacher: {model: ngram, order: 3, public-file: %s}
                        output: {dir: %s}
                        """
                                .formatted(priv, pub, dir.resolve("out")),
                        "texts")
                .withTeachers(2296);
    }

    private static String console(java.util.function.Consumer<PrintStream> write) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (PrintStream err = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
            write.accept(err);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    /**
     * The fidelity is scored against the private records: the console names it and where it is,
     * never its value (fails on 4a555fd, which printed "fidelity +x.xxx over k records").
     */
    @Test
    void theFidelityGoesToOperatorJsonOnly_theConsoleHoldsNoValueOfIt() throws Exception {
        JobConfig cfg = cfg();
        Path out = Files.createDirectories(dir.resolve("out").resolve("run-1"));
        Files.writeString(
                out.resolve("records.jsonl"),
                """
                {"sequence": 0, "text": "the build is green", "tokens": [1, 2], "fallbacks": 0, "finishReason": "STOP_TOKEN"}
                {"sequence": 1, "text": "the release went", "tokens": [3], "fallbacks": 0, "finishReason": "MAX_STEPS"}
                """);
        String text = console(err -> RunTexts.report(cfg, out, err));
        JsonNode op = JSON.readTree(out.resolve("operator.json").toFile());
        assertThat(op.has("fidelity")).isTrue();
        assertThat(text).contains("fidelity").contains("operator-only");
        assertThat(text).doesNotContainPattern("fidelity [-+]?[0-9]");
        if (op.get("fidelity").isNumber()) {
            double f = op.get("fidelity").asDouble();
            assertThat(text)
                    .doesNotContain(String.format(java.util.Locale.ROOT, "%+.3f", f))
                    .doesNotContain(String.format(java.util.Locale.ROOT, "%.3f", Math.abs(f)));
        }
        assertThat(text).contains("100% of started records non-empty"); // public: records.jsonl
    }

    /** The batch line says n (public) and names the operator-only figures without their values. */
    @Test
    void theRecordsLineHoldsNOnly_theBatchFiguresGoToOperatorJson() throws Exception {
        JobConfig cfg = cfg();
        RecordsLoader.Batch b =
                new RecordsLoader.Batch(
                        "0123456789abcdef",
                        Map.of(),
                        UserDirectory.perUser(List.of("a", "b", "c")),
                        2296,
                        4626,
                        true,
                        Map.of("EMPTY_TEXT", 14),
                        2.75);
        Path out = dir.resolve("out").resolve("run-2");
        String line = RunTexts.recordsLine(cfg, b, out);
        assertThat(line).contains("n = 2296 teachers").contains("operator-only");
        String words = line.replace(out.toString(), "OUT").replace(cfg.records().file(), "FILE");
        assertThat(words)
                .doesNotContain("4626")
                .doesNotContain("14")
                .doesNotContain("EMPTY_TEXT")
                .doesNotContain("2.75")
                .doesNotContain("2.8");
        RunTexts.writeRecordsFigures(out, b, 23.0);
        JsonNode r = JSON.readTree(out.resolve("operator.json").toFile()).get("records");
        assertThat(r.get("validRecords").asLong()).isEqualTo(4626);
        assertThat(r.get("fileRejections").get("EMPTY_TEXT").asInt()).isEqualTo(14);
        assertThat(r.get("secondsToFirstResult").asDouble()).isEqualTo(23.0);
        assertThat(r.get("recordsPerSecond").asDouble()).isEqualTo(4626 / 23.0);
    }
}
