package org.hotpate.stream.driver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.hotpate.core.accounting.IndividualPlan;
import org.hotpate.core.mechanism.AutoPlanner;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.stream.config.JobConfig;

/**
 * Writes a finished run's outputs into its output directory: the public {@code summary.json} and
 * {@code records.jsonl} — released or public values only (DESIGN.md invariant 8) — and the
 * operator-only {@code operator.json}, {@code ledger.jsonl} and, for per-teacher schemes, {@code
 * teachers.jsonl} (docs/threat-model.md).
 *
 * @param earlierRuns runs on the dataset before this one (operator-only)
 * @param datasetEpsilon the dataset's ε over all runs, this one included
 * @param datasetBudgetEpsilon the dataset cap the filter enforced (the dataset's plan, fixed at its
 *     first use: can differ from this run's {@code budget.dataset-epsilon}; +∞ without a cap)
 * @param seconds the run's wall time
 * @param distributions teacher distributions received (operator-only)
 * @param dataset the earlier runs' composition the run was admitted on (null: none), which plans
 *     the population prior's threshold on a capped dataset
 */
record RunReport(
        JobConfig cfg,
        String runId,
        RunOutcome outcome,
        int earlierRuns,
        double datasetEpsilon,
        double datasetBudgetEpsilon,
        double seconds,
        long distributions,
        org.hotpate.protocol.DatasetPrior dataset) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A report without the earlier runs' composition (the prior planned as on a fresh dataset). */
    RunReport(
            JobConfig cfg,
            String runId,
            RunOutcome outcome,
            int earlierRuns,
            double datasetEpsilon,
            double datasetBudgetEpsilon,
            double seconds,
            long distributions) {
        this(
                cfg,
                runId,
                outcome,
                earlierRuns,
                datasetEpsilon,
                datasetBudgetEpsilon,
                seconds,
                distributions,
                null);
    }

    /** The summary's statement of what its ε fields mean. */
    static final String EPSILON_MEANING =
            "epsilon and dataset_epsilon are spending so far (progress: the realized RDP at the"
                    + " filter's fixed order, converted at delta), not guarantees; the guarantees"
                    + " are budgetEpsilon (this run) and datasetBudgetEpsilon (the dataset cap"
                    + " enforced, over all runs), each at delta; null = no finite value";

    /** Writes every file into {@code out}; returns the public summary. */
    ObjectNode writeTo(Path out) throws IOException {
        Files.createDirectories(out);
        ObjectNode summary = summary();
        JSON.writerWithDefaultPrettyPrinter()
                .writeValue(out.resolve("summary.json").toFile(), summary);
        JSON.writerWithDefaultPrettyPrinter()
                .writeValue(out.resolve("operator.json").toFile(), operatorSummary());
        writeLines(
                out.resolve("records.jsonl"),
                outcome.records().stream().map(this::record).toList());
        if (cfg.plan().perTeacherPlan() != null) {
            writeLines(out.resolve("teachers.jsonl"), teachers());
        }
        writeLines(
                out.resolve("ledger.jsonl"),
                outcome.ledger().stream().map(this::ledgerLine).toList());
        return summary;
    }

    private static void writeLines(Path file, List<ObjectNode> lines) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file)) {
            for (ObjectNode o : lines) {
                w.write(JSON.writeValueAsString(o));
                w.newLine();
            }
        }
    }

    /** A line of {@code records.jsonl}: public (the prompt and label are public too). */
    private ObjectNode record(SyntheticRecord r) {
        ObjectNode o = JSON.createObjectNode();
        o.put("sequence", r.sequenceId());
        ArrayNode toks = o.putArray("tokens");
        for (int tk : r.tokens()) {
            toks.add(tk);
        }
        if (cfg.decodesText()) {
            o.put("prompt", r.prompt());
            if (!r.label().isEmpty()) {
                o.put("label", r.label());
            }
        }
        o.put("text", r.text());
        o.put("steps", r.steps());
        o.put("fails", r.fails());
        o.put("fallbacks", r.fallbacks());
        o.put("finishReason", r.finishReason().name());
        return o;
    }

    /** A line of the operator-only {@code ledger.jsonl}. */
    private ObjectNode ledgerLine(LedgerEntry e) {
        ObjectNode o = JSON.createObjectNode();
        o.put("kind", e.kind().name());
        o.put("sequence", e.sequenceId());
        o.put("step", e.step());
        o.put("attempt", e.attempt());
        if (e.teacherId() >= 0) {
            o.put("teacher", e.teacherId());
        }
        o.put("mechanism", e.mechanism());
        if (!e.privacyEvent().isEmpty()) {
            try {
                o.set("event", JSON.readTree(e.privacyEvent()));
            } catch (IOException x) {
                throw new IllegalStateException("a ledger entry's event is not JSON", x);
            }
        }
        if (e.kind() == LedgerKind.TEACHER_FEEDBACK) {
            o.put("involved", e.votesCast());
            o.put("charged", e.releases());
        } else {
            putNumber(o, "epsilon", e.epsilonAfter());
            putNumber(o, "delta", e.delta());
            o.put("releases", e.releases());
            if (e.votesCast() >= 0) {
                o.put("votesCast", e.votesCast());
            }
            if (e.releasedVotes() >= 0) {
                o.put("releasedVotes", e.releasedVotes());
            }
        }
        putNumber(o, "datasetEpsilon", e.datasetEpsilonAfter());
        o.put("atMs", e.atMs());
        return o;
    }

    /**
     * The operator-only {@code teachers.jsonl} of a per-teacher run: one row per teacher charged in
     * this run — {@code teacher}, {@code epsilon} (its individual ε at the per-teacher target δ,
     * over every run on the dataset, under replace-one: against a replacement charged up to the
     * limit — hotpate's relation), {@code epsilonAddRemove} (the add/remove reading of the same
     * charges, for comparison only), {@code relation}, {@code charges} (on the dataset), {@code
     * chargesThisRun}, {@code retired}. Data-dependent: never public.
     */
    private List<ObjectNode> teachers() {
        Map<Long, ObjectNode> rows = new TreeMap<>();
        for (LedgerEntry e : outcome.ledger(LedgerKind.TEACHER_CHARGE)) {
            ObjectNode o =
                    rows.computeIfAbsent(
                            e.teacherId(),
                            id -> {
                                ObjectNode n = JSON.createObjectNode();
                                n.put("teacher", id);
                                n.put("epsilon", 0.0);
                                n.put("charges", 0L);
                                n.put("chargesThisRun", 0L);
                                n.put("retired", false);
                                return n;
                            });
            if (e.releases() >= o.get("charges").asLong()) {
                o.put("charges", e.releases());
                o.put("epsilon", e.epsilonAfter());
            }
            o.put("chargesThisRun", o.get("chargesThisRun").asLong() + 1);
        }
        for (LedgerEntry e : outcome.ledger(LedgerKind.TEACHER_RETIRED)) {
            if (rows.containsKey(e.teacherId())) {
                rows.get(e.teacherId()).put("retired", true);
            }
        }
        IndividualPlan plan = cfg.plan().perTeacherPlan();
        if (plan != null) {
            double delta = cfg.budget().targetTeacherDelta();
            for (ObjectNode o : rows.values()) {
                long c = o.get("charges").asLong();
                o.put("epsilonAddRemove", plan.epsilonAddRemove(c, delta));
                o.put("relation", plan.relation().label());
            }
        }
        return List.copyOf(rows.values());
    }

    /** Why {@code privateTokensWithoutRecord} is not 0 (summary.json). */
    static final String WITHOUT_RECORD =
            "released and charged for sequences that have no record (sequencesUnfinished): the run"
                    + " ended before they finished, so these tokens are in no record of"
                    + " records.jsonl";

    /**
     * The public summary: only released or public values — counts of released tokens and ⊥, ε spent
     * (data-independent), the budgets, n, the dataset and its ε over all runs. Nothing about votes,
     * retired teachers, rejected input or distributions received: those are in {@link
     * #operatorSummary}. Wall time and tokens/s only for a simulated run: in a records run they
     * follow the private records (teacher build and answer times) and are operator-only.
     */
    ObjectNode summary() {
        boolean isPrivate = cfg.plan().isPrivate();
        List<SyntheticRecord> records = outcome.records();
        long tokens = records.stream().mapToLong(r -> r.tokens().length).sum();
        ObjectNode s = JSON.createObjectNode();
        s.put("runId", runId);
        s.put("private", isPrivate);
        // Every requested sequence is either in records (finishReasons counts them by reason,
        // NOT_STARTED included) or unfinished: sequences + sequencesUnfinished = requested.
        s.put("sequences", records.size());
        s.put("sequencesRequested", cfg.generation().sequences());
        s.put("sequencesUnfinished", outcome.unaccounted().size());
        s.put("tokens", tokens);
        s.put("privateTokens", outcome.tokens());
        // Charged tokens that no record holds (issue 37 item 4: a worker killed mid-run left
        // privateTokens 2 against tokens 0 with nothing saying why).
        long orphans = outcome.tokensWithoutRecord();
        s.put("privateTokensWithoutRecord", orphans);
        if (orphans > 0) {
            s.put("privateTokensWithoutRecordReason", WITHOUT_RECORD);
        }
        s.put("fails", outcome.fails());
        s.put("fallbacks", records.stream().mapToLong(SyntheticRecord::fallbacks).sum());
        // Tokens the public model gave without any charge (generation.on-fail: fallback); every
        // other token is private, charged to the budget.
        s.put("publicTokens", records.stream().mapToLong(SyntheticRecord::fallbacks).sum());
        putPrior(s);
        // epsilon / dataset_epsilon: the filters' spending so far (progress, at their fixed
        // orders); budgetEpsilon / datasetBudgetEpsilon: the guarantees (docs/privacy-accounting.md
        // §4 "What a printed ε means"). Field names are kept; epsilonMeaning says which is which.
        putNumber(s, "epsilon", isPrivate ? outcome.epsilon() : Double.POSITIVE_INFINITY);
        s.put("delta", cfg.budget().delta());
        putNumber(s, "budgetEpsilon", cfg.budget().epsilon());
        s.put("budgetExhausted", !outcome.ledger(LedgerKind.REFUSED).isEmpty());
        s.put("dataset", cfg.datasetId());
        putNumber(s, "dataset_epsilon", isPrivate ? datasetEpsilon : Double.POSITIVE_INFINITY);
        putNumber(s, "datasetBudgetEpsilon", datasetBudgetEpsilon); // enforced
        putNumber(s, "datasetBudgetEpsilonRequested", cfg.budget().datasetEpsilon());
        s.put("epsilonMeaning", EPSILON_MEANING);
        s.put("mechanism", cfg.plan().mechanism().name());
        // Data-independent parameters (for auto: chosen from public inputs only), so public.
        s.set("mechanismParams", JSON.valueToTree(cfg.plan().mechanism().params()));
        if (cfg.mechanismPlan().isPresent()) {
            s.put("mechanismPlannedBy", AutoPlanner.NAME);
        }
        if (cfg.plan().perTeacherPlan() != null) {
            // The per-teacher target is public; what each teacher spent is not (teachers.jsonl).
            s.put("perTeacherEpsilon", cfg.budget().perTeacherEpsilon());
            s.put("perTeacherDelta", cfg.budget().targetTeacherDelta());
        }
        s.put("sampler", cfg.sampler().name());
        s.put("teachers", cfg.ensemble().teachers());
        if (cfg.decodesText()) {
            s.put("tokenizer", cfg.records().tokenizer());
        }
        s.put("teacherSource", cfg.ensemble().source().name().toLowerCase().replace('_', '-'));
        s.put("releases", outcome.ledger(LedgerKind.CHARGE).size());
        if (timingIsPublic(cfg)) {
            s.put("elapsedSeconds", round(seconds));
            s.put("tokensPerSecond", round(tokens / seconds));
        }
        Map<String, Integer> reasons = new TreeMap<>();
        outcome.finishReasons().forEach((r, n) -> reasons.put(r.name(), n));
        s.set("finishReasons", JSON.valueToTree(reasons));
        return s;
    }

    /**
     * The operator-only summary ({@code operator.json}): data-dependent and liveness figures that
     * must not be published — votes cast, the agreement profile (votes for each released token),
     * steps abandoned below the quorum, retired teachers, rejected input and its reasons,
     * distributions received — and the run's wall time and tokens/s (public too for a simulated
     * run, operator-only for a records run).
     */
    ObjectNode operatorSummary() {
        ObjectNode s = JSON.createObjectNode();
        s.put("runId", runId);
        s.put("dataset", cfg.datasetId());
        s.put("earlierRunsOnDataset", earlierRuns);
        cfg.mechanismPlan()
                .ifPresent(
                        p -> {
                            ObjectNode m = s.putObject("mechanismPlan");
                            m.put("mechanism", p.mechanism());
                            m.set("params", JSON.valueToTree(p.params()));
                            m.put("thresholdShare", p.thresholdShare());
                            m.put("affordableReleases", p.affordableReleases());
                            m.put("plannedSteps", p.plannedSteps());
                            m.put("budgetLimited", p.budgetLimited());
                            m.put("explanation", p.explanation());
                            // Planned against realised: the plan assumed sequences x max-steps
                            // positions; what the run used is what the next plan can learn from.
                            ObjectNode r = m.putObject("realised");
                            long steps = outcome.ledger(LedgerKind.CHARGE).size();
                            long started =
                                    outcome.records().stream()
                                            .filter(
                                                    x ->
                                                            x.finishReason()
                                                                    != org.hotpate.core.generation
                                                                            .FinishReason
                                                                            .NOT_STARTED)
                                            .count();
                            r.put("steps", steps);
                            r.put("answered", outcome.tokens());
                            r.put("sequencesStarted", started);
                            r.put(
                                    "stepsPerStartedSequence",
                                    started == 0 ? 0 : round(steps / (double) started));
                            r.put(
                                    "plannedToRealisedSteps",
                                    steps == 0 ? 0 : round(p.plannedSteps() / (double) steps));
                        });
        s.put(
                "votesCast",
                outcome.ledger().stream()
                        .filter(
                                e ->
                                        e.kind() != LedgerKind.TEACHER_RETIRED
                                                && e.kind() != LedgerKind.TEACHER_FEEDBACK
                                                && e.votesCast() > 0)
                        .mapToLong(LedgerEntry::votesCast)
                        .sum());
        s.put("abandonedSteps", outcome.ledger(LedgerKind.ABANDONED).size());
        // votes for each released token (issue 37 item 3): private votes, so only here
        s.set("agreement", AgreementProfile.of(outcome.ledger(), cfg.ensemble().teachers()));
        List<Long> retired =
                outcome.ledger(LedgerKind.TEACHER_RETIRED).stream()
                        .map(LedgerEntry::teacherId)
                        .sorted()
                        .toList();
        s.put("retiredTeachers", retired.size());
        s.put(
                "chargedTeachers",
                outcome.ledger(LedgerKind.TEACHER_CHARGE).stream()
                        .map(LedgerEntry::teacherId)
                        .distinct()
                        .count());
        s.set("retiredTeacherIds", JSON.valueToTree(retired));
        s.put("rejected", outcome.rejected().size());
        Map<String, Integer> why = new TreeMap<>();
        outcome.rejected().forEach(r -> why.merge(r.reason(), 1, Integer::sum));
        s.set("rejectedReasons", JSON.valueToTree(why));
        s.put("distributions", distributions);
        s.put("distributionsPerSecond", round(distributions / seconds));
        // Also in the public summary of a simulated run; only here for a records run.
        s.put("elapsedSeconds", round(seconds));
        s.put(
                "tokensPerSecond",
                round(
                        outcome.records().stream().mapToLong(r -> r.tokens().length).sum()
                                / seconds));
        return s;
    }

    /**
     * The population prior's public description (its parameters and the size of the released table,
     * both part of the release), when the run released or reused one.
     */
    private void putPrior(ObjectNode s) {
        if (!cfg.ensemble().fromRecords() || cfg.records().teacher().priorFile().isEmpty()) {
            return;
        }
        ObjectNode p = s.putObject("populationPrior");
        String file = cfg.records().teacher().priorFile();
        p.put("file", java.nio.file.Path.of(file).getFileName().toString());
        try (var lines = java.nio.file.Files.lines(java.nio.file.Path.of(file))) {
            p.put("ngrams", lines.filter(l -> !l.isBlank()).count());
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            p.putNull("ngrams");
        }
        var plan = cfg.plan().prior();
        if (plan == null) {
            p.put("kind", "reused"); // teacher.prior-file of an earlier release: no charge here
            return;
        }
        var x = plan.extraction(cfg.plan().budget(), dataset);
        p.put("kind", "dp-ngram");
        p.put("share", plan.share());
        p.put("perUser", x.perUser());
        p.put("maxLength", x.maxLength());
        p.put("sigma", x.sigma());
        p.put("threshold", x.threshold());
        p.put(
                "delta",
                org.hotpate.core.privacy.RdpAccountant.deltaOf(
                        x.event(
                                org.hotpate.protocol.PriorPlan.claim(
                                        cfg.plan().terms(), dataset))));
    }

    /** A finite number, or null (∞: no guarantee; NaN: not applicable). */
    private static void putNumber(ObjectNode o, String key, double v) {
        if (Double.isFinite(v)) {
            o.put(key, v);
        } else {
            o.putNull(key);
        }
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    /**
     * Whether a run's timing (wall time, tokens/s, an ETA) may be published: not for a records run,
     * whose teachers' build and answer times depend on the private records — operator-only there
     * (operatorSummary), in summary.json and in the live progress line alike.
     */
    static boolean timingIsPublic(JobConfig cfg) {
        // records runs, and external teachers of a records.file (the LLM worker's prompts): the
        // wall time follows the teachers' build and answer times, which depend on the private
        // records — operator-only there (operatorSummary)
        return !cfg.ensemble().fromRecords() && cfg.records().file().isEmpty();
    }
}
