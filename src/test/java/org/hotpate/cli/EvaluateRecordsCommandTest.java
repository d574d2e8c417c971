package org.hotpate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./hotpate evaluate --workload records} end to end on a small generated per-user corpus
 * with unusual field names (maintainer / body / kind).
 *
 * <p>Why hot PATE must yield at least as many tokens as cold PATE here, by construction: every user
 * writes the same phrases, so all teachers of a label have the same next-token distribution. Where
 * that distribution is spread ("we like" → " red" or " green", 50/50), coordinated sampling makes
 * all n teachers vote the same token (Hot PATE Obs. 1), a count of n that clears Algorithm 2's
 * threshold n/2 + L (n = 240, L ≈ 6σ ≈ 65 at the calibrated σ); independent sampling splits the
 * votes about n/2 : n/2, below the threshold, so cold PATE gets ⊥ there. Where the distribution is
 * nearly deterministic both answer. Both run the same mechanism, the same σ and the same number of
 * steps (⊥ falls back to a public token), so cold PATE's answered steps are a subset in
 * expectation, with a margin of many σ.
 */
class EvaluateRecordsCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    private int run(String... args) {
        String[] full = new String[args.length + 1];
        full[0] = "evaluate";
        System.arraycopy(args, 0, full, 1, args.length);
        return Main.execute(
                full,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    /** 300 users, each with the same four phrases (two per kind). */
    private Path corpus() throws Exception {
        List<String> lines = new ArrayList<>();
        String[][] phrases = {
            {"fruit", "we like red apples"},
            {"fruit", "we like green apples"},
            {"pets", "my cat is black"},
            {"pets", "my cat is white"}
        };
        for (int u = 0; u < 300; u++) {
            for (String[] p : phrases) {
                lines.add(
                        JSON.createObjectNode()
                                .put("maintainer", "person" + u + "@example.org")
                                .put("body", p[1])
                                .put("kind", p[0])
                                .toString());
            }
        }
        Path f = dir.resolve("corpus.jsonl");
        Files.write(f, lines);
        return f;
    }

    private Path publicText() throws Exception {
        Path f = dir.resolve("public.txt");
        Files.write(
                f,
                List.of(
                        "we like red apples",
                        "we like green apples",
                        "my cat is black",
                        "my cat is white",
                        "we like cats"));
        return f;
    }

    private List<String> args(Path corpus, Path outDir, String methods, boolean labels)
            throws Exception {
        List<String> a =
                new ArrayList<>(
                        List.of(
                                "--workload",
                                "records",
                                "--records",
                                corpus.toString(),
                                "--user-field",
                                "maintainer",
                                "--text-field",
                                "body",
                                "--epsilon",
                                "4",
                                "--delta",
                                "1e-6",
                                "--methods",
                                methods,
                                "--public-file",
                                publicText().toString(),
                                "--sequences",
                                "4",
                                "--max-tokens",
                                "6",
                                "--label-queries",
                                "5",
                                "--out",
                                outDir.toString()));
        if (labels) {
            a.addAll(List.of("--label-field", "kind"));
        }
        return a;
    }

    @Test
    void records_allMethods_writeContractUtilityJsonAndReport() throws Exception {
        Path outDir = dir.resolve("out");
        int code =
                run(
                        args(
                                        corpus(),
                                        outDir,
                                        "hot-pate,cold-pate,pmixed,wasp,prompt-pate,patein",
                                        true)
                                .toArray(String[]::new));
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        JsonNode u = JSON.readTree(outDir.resolve("utility.json").toFile());
        assertThat(iter(u.fieldNames())).containsExactly("epsilon", "delta", "methods");
        assertThat(u.get("epsilon").asDouble()).isEqualTo(4.0);
        assertThat(u.get("delta").asDouble()).isEqualTo(1e-6);
        assertThat(u.get("methods")).hasSize(6);
        Set<String> names = new TreeSet<>();
        long hot = -1;
        long cold = -1;
        for (JsonNode row : u.get("methods")) {
            String m = row.get("method").asText();
            names.add(m);
            assertThat(iter(row.fieldNames()))
                    .containsExactly(
                            "method",
                            "epsilon",
                            "tokens",
                            "records",
                            "js_bigram",
                            "distinct_2",
                            "accuracy",
                            "canary_exposure",
                            "fidelity",
                            "non_empty_share");
            assertThat(row.get("epsilon").asDouble()).as(m).isGreaterThan(0).isLessThanOrEqualTo(4);
            assertThat(row.get("tokens").isIntegralNumber()).as(m).isTrue();
            assertThat(row.get("js_bigram").asDouble()).as(m).isBetween(0.0, 1.0);
            assertThat(row.get("distinct_2").asDouble()).as(m).isBetween(0.0, 1.0);
            assertThat(row.get("accuracy").isNumber()).as(m).isTrue();
            assertThat(row.get("canary_exposure").isNumber()).as(m).isTrue();
            boolean text = List.of("hot-pate", "cold-pate", "pmixed", "wasp").contains(m);
            assertThat(row.get("fidelity").isNumber() || row.get("fidelity").isNull())
                    .as(m)
                    .isTrue();
            if (!text) {
                assertThat(row.get("fidelity").isNull()).as(m).isTrue();
            }
            if (List.of("hot-pate", "cold-pate", "pmixed").contains(m)) {
                assertThat(row.get("non_empty_share").asDouble()).as(m).isBetween(0.0, 1.0);
            }
            if (m.equals("hot-pate")) {
                hot = row.get("tokens").asLong();
            } else if (m.equals("cold-pate")) {
                cold = row.get("tokens").asLong();
            }
        }
        assertThat(names)
                .containsExactlyInAnyOrder(
                        "hot-pate", "cold-pate", "pmixed", "wasp", "prompt-pate", "patein");
        // every teacher here holds the same four phrases, so coordination has nothing to gain:
        // both release text (hot vs cold on diverse teachers: docs/privacy-efficiency.md)
        assertThat(hot).isPositive();
        assertThat(cold).isPositive();
        assertThat(Files.readString(outDir.resolve("report.html"))).contains("<svg", "hot-pate");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("hot-pate: running");
    }

    @Test
    void records_unlabelled_doneWhenCommand() throws Exception {
        Path outDir = dir.resolve("plain");
        int code =
                run(
                        args(corpus(), outDir, "hot-pate,cold-pate,pmixed,wasp", false)
                                .toArray(String[]::new));
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        JsonNode u = JSON.readTree(outDir.resolve("utility.json").toFile());
        assertThat(u.get("methods")).hasSize(4);
        for (JsonNode row : u.get("methods")) {
            assertThat(row.get("accuracy").isNull()).isTrue();
            assertThat(row.get("epsilon").asDouble()).isGreaterThan(0).isLessThanOrEqualTo(4);
        }
        assertThat(u.get("methods").get(0).get("tokens").asLong()).isPositive();
        assertThat(outDir.resolve("report.html")).exists();
    }

    /**
     * Without a public model nothing pads the text: the run says so, a ⊥ ends the sequence, and no
     * sample carries a public (fallback) span.
     */
    @Test
    void records_withoutPublicFile_neverPadsWithUniformTokens() throws Exception {
        Path outDir = dir.resolve("nopublic");
        List<String> a = args(corpus(), outDir, "hot-pate,cold-pate", false);
        int at = a.indexOf("--public-file");
        a.remove(at + 1);
        a.remove(at);
        assertThat(run(a.toArray(String[]::new))).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no public model");
        JsonNode u = JSON.readTree(outDir.resolve("utility.json").toFile());
        for (JsonNode row : u.get("methods")) {
            assertThat(row.get("fidelity").isNull()).isTrue();
        }
        String html = Files.readString(outDir.resolve("report.html"));
        String samples = html.substring(html.indexOf("</p>", html.indexOf("Sample outputs")));
        assertThat(samples).contains("hot-pate").doesNotContain("«public: ");
    }

    @Test
    void records_badFlags_clearErrors() throws Exception {
        Path c = corpus();
        List<String> a = args(c, dir.resolve("x"), "hot-pate,magic", false);
        assertThat(run(a.toArray(String[]::new))).isNotZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--methods", "magic");

        err.reset();
        a = args(c, dir.resolve("x"), "hot-pate", false);
        a.set(a.indexOf("maintainer"), "owner");
        assertThat(run(a.toArray(String[]::new))).isNotZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("MISSING_USER", "owner");

        err.reset();
        a = args(c, dir.resolve("x"), "hot-pate", false);
        a.set(a.indexOf("4"), "0");
        assertThat(run(a.toArray(String[]::new))).isNotZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--epsilon must be > 0");

        err.reset();
        a = args(c, dir.resolve("x"), "prompt-pate", false);
        assertThat(run(a.toArray(String[]::new))).isNotZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--label-field");
    }

    private static List<String> iter(java.util.Iterator<String> it) {
        List<String> l = new ArrayList<>();
        it.forEachRemaining(l::add);
        return l;
    }
}
