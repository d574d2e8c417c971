package org.hotpate.eval.records;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.generation.PateTextGeneration;
import org.hotpate.core.generation.PmixedMechanism;
import org.hotpate.core.labeling.PateinLabeler;
import org.hotpate.core.labeling.PromptPateLabeler;
import org.hotpate.core.mechanism.HotPateHomogeneousMechanism;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.eval.UtilityRow;
import org.hotpate.teachers.records.RecordFields;

/**
 * {@code ./hotpate evaluate --workload records}: the seed papers' methods side by side on real
 * per-user records at one (ε, δ) (issue 14; docs/evaluation.md, "Records workload"). In process,
 * pure Java: no Flink, no Kafka.
 *
 * <ol>
 *   <li>Reads the records ({@link RecordsCorpus}), optionally keeps a seeded subset of users, and
 *       splits USERS into teaching and held-out ({@link UserSplit}); held-out users never teach.
 *   <li>Plants canaries (a public prefix + a random digit secret) as extra records of a few seeded
 *       teaching users.
 *   <li>Builds one Witten–Bell n-gram teacher per teaching user (its records only, per label too)
 *       backing off to the public model built from {@code --public-file} only (uniform without
 *       one); a teacher lists its top-K tokens; the unlisted mass abstains (PATE) or backs off to
 *       p0 (PMixED).
 *   <li>Runs each method under its own {@link EnsembleBudgetFilter} planned for (ε, δ), which
 *       refuses the release that would exceed the budget: hot and cold PATE (Algorithm 2 = {@link
 *       HotPateHomogeneousMechanism}, σ calibrated so the planned number of steps fits), PMixED
 *       (radius calibrated the same way), WASP (σ tightly calibrated for T − 1 voting rounds), and
 *       with labels PromptPATE and PATEin (Confident-GNMax labelling public texts).
 *   <li>Scores each method's released text against the held-out users' text and writes {@code
 *       utility.json}, {@code references.json} and {@code report.html}.
 * </ol>
 *
 * <p>Privacy: DP noise and PMixED's subsample come from {@link NoiseSources#secure()}; the seed
 * drives only public choices (split, canaries, public PLM sampling for WASP, step seeds). Each
 * method's text is released under its own filter; the methods are alternatives, not one release.
 *
 * <p>The jobs live in their own classes: {@link RecordsSetup} (steps 1–3; canaries in {@link
 * RecordsCanaries}), {@link TextGenerationMethods}, {@link WaspMethod} and {@link LabelingMethods}
 * (step 4), {@link RecordsScoring} (step 5) and {@link RecordsReport} (the files).
 */
public final class RecordsEvaluation {
    public static final List<String> TEXT_METHODS =
            List.of(PateTextGeneration.HOT, PateTextGeneration.COLD, PmixedMechanism.NAME, "wasp");
    public static final List<String> LABELERS = List.of(PromptPateLabeler.NAME, PateinLabeler.NAME);
    public static final List<String> METHODS =
            List.of("hot-pate", "cold-pate", "pmixed", "wasp", "prompt-pate", "patein");

    /** The public canary prefix; the secret is {@link #CANARY_LENGTH} digit tokens. */
    public static final String CANARY_PREFIX = "my secret code is";

    public static final int CANARY_LENGTH = 6;
    public static final int CANARY_CANDIDATES = 1000;
    static final int EMBEDDING_DIMENSION = 128;

    private RecordsEvaluation() {}

    /**
     * Options (validated by the command; see docs/evaluation.md for the flags).
     *
     * @param pateSigma σ of hot/cold PATE's mechanism, or null to calibrate it to the planned steps
     * @param maxUsers keep a seeded subset of this many users (0 = all)
     */
    public record Options(
            Path records,
            RecordFields fields,
            PrivacyBudget budget,
            List<String> methods,
            double holdoutFraction,
            long seed,
            String tokenizer,
            int order,
            double publicWeight,
            int publicOrder,
            Path publicFile,
            Path promptsFile,
            int sequences,
            int maxTokens,
            int canaries,
            int maxUsers,
            int topK,
            Double pateSigma,
            double pmixedRate,
            int waspIterations,
            int waspMaxPerUser,
            int labelQueries) {
        public Options {
            checkNotNull("records", records);
            checkNotNull("fields", fields);
            checkNotNull("budget", budget);
            methods = List.copyOf(methods);
            for (String m : methods) {
                checkArgument(METHODS.contains(m), "unknown method '" + m + "'; known: " + METHODS);
                checkArgument(
                        !LABELERS.contains(m) || fields.labelled(),
                        "method " + m + " labels texts; it needs --label-field");
            }
            checkArgument(!methods.isEmpty(), "--methods must name at least one method");
            checkArgument(sequences >= 1, "--sequences must be >= 1; got " + sequences);
            checkArgument(maxTokens >= 1, "--max-tokens must be >= 1; got " + maxTokens);
            checkArgument(canaries >= 0, "--canaries must be >= 0; got " + canaries);
            checkArgument(order >= 1 && order <= 8, "--order must be in [1, 8]; got " + order);
            checkArgument(
                    publicWeight > 0 && publicWeight <= 1,
                    "--public-weight must be in (0, 1]; got " + publicWeight);
            checkArgument(
                    publicOrder >= 1 && publicOrder <= 8,
                    "--public-order must be in [1, 8]; got " + publicOrder);
            checkArgument(topK >= 1, "--top-k must be >= 1; got " + topK);
            checkArgument(
                    pmixedRate > 0 && pmixedRate <= 1,
                    "--pmixed-rate must be in (0, 1]; got " + pmixedRate);
            checkArgument(
                    waspIterations >= 2, "--wasp-iterations must be >= 2; got " + waspIterations);
            checkArgument(waspMaxPerUser >= 1, "--wasp-max-per-user must be >= 1");
            checkArgument(labelQueries >= 1, "--label-queries must be >= 1");
        }
    }

    /** Everything a run produced. */
    public record Result(
            List<UtilityRow> rows,
            Map<String, Object> references,
            Map<String, List<String>> samples,
            Map<String, Map<String, Object>> details) {}

    /** Runs the evaluation (progress lines on {@code progress}). */
    public static Result run(Options o, PrintStream progress) throws Exception {
        long t0 = System.nanoTime();
        RecordsSetup setup = RecordsSetup.prepare(o, progress, t0);
        MethodContext ctx = setup.context();
        List<UtilityRow> rows = new ArrayList<>();
        Map<String, List<String>> samples = new LinkedHashMap<>();
        Map<String, Map<String, Object>> details = new LinkedHashMap<>();
        for (String method : o.methods()) {
            long tm = System.nanoTime();
            progress.printf(Locale.ROOT, "%s: running ...%n", method);
            MethodOutput out = runMethod(method, ctx);
            UtilityRow row = RecordsScoring.score(method, out, setup);
            rows.add(row);
            samples.put(method, out.decodeSamples(ctx.tok(), setup.corpus().classes()));
            Map<String, Object> d = new LinkedHashMap<>(out.details());
            d.put("seconds", round((System.nanoTime() - tm) / 1e9));
            details.put(method, d);
            progress.printf(
                    Locale.ROOT,
                    "%s: epsilon %.4f, tokens %d, records %d, js_bigram %.4f, distinct_2 %.4f,"
                            + " accuracy %s, canary_exposure %s, fidelity %s (%.1f s)%n",
                    method,
                    row.epsilon(),
                    row.tokens(),
                    row.records(),
                    row.jsBigram(),
                    row.distinct2(),
                    row.accuracy() == null
                            ? "null"
                            : String.format(Locale.ROOT, "%.4f", row.accuracy()),
                    row.canaryExposure() == null
                            ? "null"
                            : String.format(Locale.ROOT, "%.3f", row.canaryExposure()),
                    row.fidelity() == null
                            ? "null"
                            : String.format(Locale.ROOT, "%+.3f", row.fidelity()),
                    (System.nanoTime() - tm) / 1e9);
        }

        // Non-private references: the ceiling (real teaching records) and the floor.
        Map<String, Object> refs = RecordsScoring.references(setup);
        refs.put("seconds", round((System.nanoTime() - t0) / 1e9));
        return new Result(rows, refs, samples, details);
    }

    private static MethodOutput runMethod(String method, MethodContext c) throws Exception {
        return switch (method) {
            case "hot-pate", "cold-pate" -> TextGenerationMethods.pate(method, c);
            case "pmixed" -> TextGenerationMethods.pmixed(c);
            case "wasp" -> WaspMethod.run(c);
            default -> LabelingMethods.label(method, c);
        };
    }

    /** Rounds to 6 decimals (the figures of {@code references.json}). */
    static double round(double v) {
        return Math.round(v * 1e6) / 1e6;
    }
}
