package org.hotpate.stream.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.prior.DpNgramExtraction;
import org.hotpate.protocol.PriorPlan;
import org.hotpate.stream.config.CoreBindings;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.RecordsConfig;
import org.hotpate.stream.config.RecordsOptions;
import org.hotpate.teachers.ngram.PopulationPrior;
import org.hotpate.teachers.records.RecordFiles;
import org.hotpate.teachers.records.RecordValidator;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The driver's side of {@code teacher.prior: dp-ngram}: before the job starts it reads the users'
 * records from {@code records.file} (the same validator, tokenizer and {@code records.max-per-user}
 * bound as the job's teachers), releases the DP n-gram table ({@link PriorPlan}, noise from {@link
 * NoiseSources#secure()}) into {@code <output.dir>/<run-id>/prior.jsonl}, and points {@code
 * teacher.prior-file} at it. The job's accountant charges the release before the run's first step
 * ({@link CoreBindings#preCharge}); the file is operator-only until then, public after
 * (docs/privacy-efficiency.md §5).
 *
 * <p>A resumed run keeps its released table: the same file, never a second draw (a second table
 * would be a second release, charged nowhere).
 */
public final class PriorRelease {
    private PriorRelease() {}

    /** What the driver released: the config pointing at it and its public figures. */
    public record Released(JobConfig config, Path file, DpNgramExtraction extraction, int ngrams) {}

    /** Releases the run's prior (or finds a resumed run's); null when the run has none. */
    static Released release(JobConfig cfg, String runId, boolean resume) throws IOException {
        PriorPlan plan = cfg.plan().prior();
        if (plan == null) {
            return null;
        }
        DpNgramExtraction x = plan.extraction(cfg.budget().terms(), cfg.plan().worstCase());
        Path file =
                Path.of(cfg.output().dir()).resolve(runId).resolve("prior.jsonl").toAbsolutePath();
        DpNgramExtraction.Released table;
        if (resume) {
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException(
                        "run "
                                + runId
                                + " released a population prior into "
                                + file
                                + ", which is gone: a resume cannot draw a second one (it would be"
                                + " a release its ledger entry does not hold); restore the file or"
                                + " start a new run");
            }
            table = PopulationPrior.read(file);
        } else {
            RecordsConfig rc = cfg.records();
            Tokenizer tok = Tokenizer.named(rc.tokenizer());
            table = x.extract(users(rc, tok), tok.endOfText(), NoiseSources.secure());
            PopulationPrior.write(table, file);
        }
        return new Released(
                cfg.with(RecordsOptions.TEACHER_PRIOR_FILE, file.toString()),
                file,
                x,
                table.released());
    }

    /** Each user's valid records (the first {@code records.max-per-user}), tokenized. */
    private static List<List<int[]>> users(RecordsConfig rc, Tokenizer tok) throws IOException {
        RecordValidator v = new RecordValidator(rc.fields());
        Map<String, List<int[]>> byUser = new LinkedHashMap<>();
        try {
            RecordFiles.forEachLine(
                    Path.of(rc.file()),
                    (n, bytes) -> {
                        RecordValidator.Result r = v.line(bytes);
                        if (!r.valid()) {
                            return; // the loader dead-letters it; it reaches no teacher either
                        }
                        List<int[]> l =
                                byUser.computeIfAbsent(r.record().user(), k -> new ArrayList<>());
                        if (l.size() < rc.maxPerUser()) {
                            l.add(tok.encode(r.record().text()));
                        }
                    });
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("records.file " + rc.file() + ": " + e.getMessage(), e);
        }
        return new ArrayList<>(byUser.values());
    }
}
