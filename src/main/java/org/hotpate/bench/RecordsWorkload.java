package org.hotpate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;

/**
 * The records-teacher workload of {@code ./hotpate bench pipeline --payload records}: n users, each
 * one n-gram teacher built inside the Flink job from that user's records (the records job's
 * defaults: Witten–Bell trigram over cl100k_base, top-K 64, the public bigram backoff at weight
 * 0.5), the same mechanism, budget and step deadline as the simulated workloads ({@link
 * BenchWorkload}).
 *
 * <p>The users: the first n users of {@code corpus} (JSONL with {@code user} and {@code subject})
 * when it has that many; otherwise n users each dealt {@code recordsPerUser} subjects drawn
 * uniformly, with replacement and a fixed seed, from all of the corpus's subjects — real text, so a
 * teacher's tables and answers cost what real ones do, at any n (the default corpus, the shipped
 * public commit subjects, has 1,053 authors).
 */
public record RecordsWorkload(Path corpus, Path publicFile, int recordsPerUser, long seed) {
    public static final String CLI_NAME = "records";
    public static final Path DEFAULT_CORPUS = Path.of("data/commits/public-commits.jsonl.gz");
    public static final Path DEFAULT_PUBLIC = Path.of("data/spamassassin/public.jsonl.gz");

    private static final ObjectMapper JSON = new ObjectMapper();

    public RecordsWorkload {
        if (recordsPerUser < 1) {
            throw new IllegalArgumentException(
                    "--records-per-user must be >= 1; got " + recordsPerUser);
        }
        for (Path p : List.of(corpus, publicFile)) {
            if (!Files.isRegularFile(p)) {
                throw new IllegalArgumentException(
                        "no such file: "
                                + p
                                + " (run from the repository root, or pass --records-file /"
                                + " --public-file)");
            }
        }
    }

    /** What {@link #write} wrote: the file, its users and records, and how the users were made. */
    public record Users(Path file, int users, long records, boolean dealt) {}

    /**
     * Writes the n users' records (gzip JSONL, fields {@code user}, {@code subject}) to {@code
     * dir}.
     */
    public Users write(Path dir, int n) throws IOException {
        Map<String, List<String>> byUser = new LinkedHashMap<>();
        List<String> all = new ArrayList<>();
        try (BufferedReader r =
                new BufferedReader(
                        new InputStreamReader(
                                new GZIPInputStream(Files.newInputStream(corpus)),
                                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode j = JSON.readTree(line);
                JsonNode user = j.get("user");
                JsonNode subject = j.get("subject");
                if (user == null || subject == null || subject.asText().isBlank()) {
                    continue;
                }
                byUser.computeIfAbsent(user.asText(), u -> new ArrayList<>()).add(subject.asText());
                all.add(subject.asText());
            }
        }
        if (all.isEmpty()) {
            throw new IllegalArgumentException(
                    corpus + " has no records with a 'user' and a non-empty 'subject'");
        }
        Files.createDirectories(dir);
        Path file = dir.resolve("bench-users-" + n + ".jsonl.gz");
        boolean dealt = byUser.size() < n;
        long records = 0;
        try (BufferedWriter w =
                new BufferedWriter(
                        new OutputStreamWriter(
                                new GZIPOutputStream(Files.newOutputStream(file)),
                                StandardCharsets.UTF_8))) {
            if (!dealt) {
                int users = 0;
                for (Map.Entry<String, List<String>> e : byUser.entrySet()) {
                    if (users++ == n) {
                        break;
                    }
                    for (String s : e.getValue()) {
                        writeRecord(w, e.getKey(), s);
                        records++;
                    }
                }
            } else {
                SplittableRandom rnd = new SplittableRandom(seed);
                for (int u = 0; u < n; u++) {
                    String user = String.format(Locale.ROOT, "bench-user-%06d", u);
                    for (int i = 0; i < recordsPerUser; i++) {
                        writeRecord(w, user, all.get(rnd.nextInt(all.size())));
                        records++;
                    }
                }
            }
        }
        return new Users(file, n, records, dealt);
    }

    private static void writeRecord(BufferedWriter w, String user, String subject)
            throws IOException {
        ObjectNode o = JSON.createObjectNode();
        o.put("user", user);
        o.put("subject", subject);
        w.write(JSON.writeValueAsString(o));
        w.newLine();
    }

    /** The job spec (YAML) of one records benchmark run over {@code users}; topics prefixed. */
    public String jobSpec(String tag, BenchWorkload.Shape s, Path users, String outputDir) {
        return String.format(
                        Locale.ROOT,
                        """
                        name: bench-%s
                        records: {file: '%s', user-field: user, text-field: subject}
                        ensemble: {source: records, kind: heterogeneous}
                        teacher: {model: ngram, order: 3, top-k: 64, public-file: '%s', public-weight: 0.5}
                        tokenizer: cl100k_base
                        """,
                        tag,
                        quoted(users.toAbsolutePath().toString()),
                        quoted(publicFile.toAbsolutePath().toString()))
                + BenchWorkload.sharedSpec(tag, s, outputDir);
    }

    /** The validated config of that spec (through the job's own spec parser). */
    public JobConfig config(String tag, BenchWorkload.Shape s, Path users, String outputDir) {
        return JobSpec.parse(jobSpec(tag, s, users, outputDir), "bench-" + tag);
    }

    private static String quoted(String v) {
        return v.replace("'", "''");
    }
}
