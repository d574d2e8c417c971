package org.hotpate.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.hotpate.stream.config.JobConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The records workload of {@code bench pipeline --payload records}: its users and its spec. */
class RecordsWorkloadTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final BenchWorkload.Shape SHAPE = new BenchWorkload.Shape(3, 4, 1000, 2, 2);

    @TempDir Path dir;

    /** A corpus of three users: a with 2 subjects, b with 1, c with 3 (in that order). */
    private Path corpus() throws Exception {
        Path f = dir.resolve("corpus.jsonl.gz");
        try (BufferedWriter w =
                new BufferedWriter(
                        new OutputStreamWriter(
                                new GZIPOutputStream(Files.newOutputStream(f)),
                                StandardCharsets.UTF_8))) {
            for (String[] r :
                    new String[][] {
                        {"a", "Fix the build"},
                        {"b", "Add a test"},
                        {"a", "Update docs"},
                        {"c", "Bump version"},
                        {"c", ""}, // no text: skipped
                        {"c", "Merge branch"},
                        {"c", "Revert it"}
                    }) {
                w.write(JSON.writeValueAsString(Map.of("user", r[0], "subject", r[1])));
                w.newLine();
            }
        }
        return f;
    }

    private static Map<String, List<String>> read(Path f) throws Exception {
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (BufferedReader r =
                new BufferedReader(
                        new InputStreamReader(
                                new GZIPInputStream(Files.newInputStream(f)),
                                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                JsonNode j = JSON.readTree(line);
                out.computeIfAbsent(j.get("user").asText(), u -> new ArrayList<>())
                        .add(j.get("subject").asText());
            }
        }
        return out;
    }

    private RecordsWorkload workload(int perUser) throws Exception {
        return new RecordsWorkload(corpus(), corpus(), perUser, 42L);
    }

    @Test
    void aCorpusWithEnoughUsersGivesItsFirstUsersWithAllTheirRecords() throws Exception {
        RecordsWorkload.Users u = workload(4).write(dir.resolve("out"), 2);
        assertThat(u.dealt()).isFalse();
        assertThat(u.users()).isEqualTo(2);
        assertThat(u.records()).isEqualTo(3);
        assertThat(read(u.file()))
                .containsExactly(
                        Map.entry("a", List.of("Fix the build", "Update docs")),
                        Map.entry("b", List.of("Add a test")));
    }

    @Test
    void aSmallerCorpusDealsItsSubjectsToNUsersReproducibly() throws Exception {
        RecordsWorkload w = workload(4);
        RecordsWorkload.Users u = w.write(dir.resolve("one"), 50);
        assertThat(u.dealt()).isTrue();
        assertThat(u.records()).isEqualTo(200);
        Map<String, List<String>> users = read(u.file());
        assertThat(users).hasSize(50);
        List<String> all =
                List.of(
                        "Fix the build",
                        "Add a test",
                        "Update docs",
                        "Bump version",
                        "Merge branch",
                        "Revert it");
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (List<String> subjects : users.values()) {
            assertThat(subjects).hasSize(4);
            assertThat(all).containsAll(subjects);
            seen.addAll(subjects);
        }
        // 200 uniform draws from 6 subjects miss one with probability 6·(5/6)^200 < 1e-15.
        assertThat(seen).containsExactlyInAnyOrderElementsOf(all);
        assertThat(read(w.write(dir.resolve("two"), 50).file())).isEqualTo(users);
        assertThat(read(new RecordsWorkload(corpus(), corpus(), 4, 7L).write(dir, 50).file()))
                .isNotEqualTo(users);
    }

    @Test
    void theSpecIsARecordsRunOfNgramTeachersThroughTheJobsOwnParser() throws Exception {
        RecordsWorkload w = workload(4);
        RecordsWorkload.Users u = w.write(dir.resolve("out"), 3);
        JobConfig cfg = w.config("t1", SHAPE, u.file(), dir.resolve("run").toString());
        assertThat(cfg.ensemble().fromRecords()).isTrue();
        assertThat(cfg.records().file()).isEqualTo(u.file().toAbsolutePath().toString());
        assertThat(w.jobSpec("t1", SHAPE, u.file(), "x"))
                .contains("model: ngram")
                .contains("concurrency: 4")
                .contains("step-deadline-ms: " + BenchWorkload.STEP_DEADLINE_MS);
    }

    @Test
    void badArgumentsAreClearErrors() throws Exception {
        Path c = corpus();
        assertThatThrownBy(() -> new RecordsWorkload(c, c, 0, 1L))
                .hasMessageContaining("--records-per-user must be >= 1");
        assertThatThrownBy(() -> new RecordsWorkload(dir.resolve("nope.jsonl.gz"), c, 4, 1L))
                .hasMessageContaining("no such file")
                .hasMessageContaining("nope.jsonl.gz");
        Path empty = dir.resolve("empty.jsonl.gz");
        new GZIPOutputStream(Files.newOutputStream(empty)).close();
        assertThatThrownBy(() -> new RecordsWorkload(empty, c, 4, 1L).write(dir, 3))
                .hasMessageContaining("has no records");
    }
}
