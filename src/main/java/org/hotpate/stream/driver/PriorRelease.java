package org.hotpate.stream.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.prior.DpNgramExtraction;
import org.hotpate.model.BudgetRecord;
import org.hotpate.protocol.BudgetPlan;
import org.hotpate.protocol.DatasetPrior;
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
 * The driver's side of {@code teacher.prior: dp-ngram}: once the dataset admitted the run (its room
 * checked with the prior's RDP and δ term, {@link DatasetLedger#requireRoom}), it writes the run's
 * ledger entry holding the prior's charge ({@link DatasetLedger#writeEntry}, durable when it
 * returns) and only then reads the users' records from {@code records.file} (the same validator,
 * tokenizer and {@code records.max-per-user} bound as the job's teachers), releases the DP n-gram
 * table ({@link PriorPlan}, noise from {@link NoiseSources#secure()}) into {@code
 * <output.dir>/<run-id>/prior.jsonl} (written atomically), and points {@code teacher.prior-file} at
 * it. The job's accountant charges the same event before the run's first step ({@link
 * CoreBindings#preCharge}); its entry for the same account merges with the driver's, never lower
 * ({@code BudgetRecord#max}), so the prior is charged once, before anyone can see it.
 *
 * <p>A resumed run, or a restart under an account whose entry already holds the prior's charge,
 * keeps its released table: the same file, never a second draw (a second table would be a second
 * release); with the file gone it is refused.
 */
public final class PriorRelease {
    private PriorRelease() {}

    /** What the driver released: the config pointing at it and its public figures. */
    public record Released(JobConfig config, Path file, DpNgramExtraction extraction, int ngrams) {}

    /**
     * Releases the run's prior (or finds the one released under this run); null when the run has
     * none. {@code ledger}: the dataset's opened ledger, which admitted the run under {@code
     * account} with the earlier runs {@code dataset}.
     */
    static Released release(
            JobConfig cfg,
            String runId,
            boolean resume,
            DatasetLedger ledger,
            String account,
            DatasetPrior dataset)
            throws IOException {
        PriorPlan plan = cfg.plan().prior();
        if (plan == null) {
            return null;
        }
        BudgetPlan budget = cfg.plan().budget();
        DpNgramExtraction x = plan.extraction(budget, dataset);
        Path file =
                Path.of(cfg.output().dir()).resolve(runId).resolve("prior.jsonl").toAbsolutePath();
        BudgetRecord entry = ledger.entry(account);
        boolean charged = entry != null && entry.holdsPrior();
        DpNgramExtraction.Released table;
        if (resume || charged) {
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException(
                        "run "
                                + runId
                                + " released a population prior into "
                                + file
                                + ", which is gone: a restart cannot draw a second one (it would"
                                + " be a release its ledger entry does not hold); restore the file"
                                + " or start a new run");
            }
            table = PopulationPrior.read(file);
        } else {
            // the write-ahead: the ledger holds the prior's charge before the table exists
            ledger.writeEntry(
                    budget.start(dataset, plan)
                            .record(
                                    account,
                                    true,
                                    cfg.plan().mechanism().name(),
                                    0,
                                    System.currentTimeMillis()));
            RecordsConfig rc = cfg.records();
            Tokenizer tok = Tokenizer.named(rc.tokenizer());
            table = x.extract(users(rc, tok), tok.endOfText(), NoiseSources.secure());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            PopulationPrior.write(table, tmp);
            Files.move(
                    tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
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
