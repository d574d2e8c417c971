package org.hotpate.eval.records;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.generation.GenerationLoop;
import org.hotpate.core.generation.PateTextGeneration;
import org.hotpate.core.generation.PmixedMechanism;
import org.hotpate.core.generation.PmixedParams;
import org.hotpate.core.generation.PublicDistribution;
import org.hotpate.core.generation.TextGenerationMethod;
import org.hotpate.core.labeling.Labeler;
import org.hotpate.core.labeling.LabelingLoop;
import org.hotpate.core.labeling.LabelingQuery;
import org.hotpate.core.labeling.NaiveBayes;
import org.hotpate.core.labeling.PateinLabeler;
import org.hotpate.core.labeling.PromptPateLabeler;
import org.hotpate.core.labeling.PublicRouting;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.AutoPlanner;
import org.hotpate.core.mechanism.HotPateHomogeneousMechanism;
import org.hotpate.core.mechanism.Mechanisms;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.privacy.PmixedPrivacy;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.core.wasp.PrivateSample;
import org.hotpate.core.wasp.SyntheticCandidate;
import org.hotpate.core.wasp.Wasp;
import org.hotpate.core.wasp.WaspParams;
import org.hotpate.core.wasp.WaspVoting;
import org.hotpate.eval.BigramModel;
import org.hotpate.eval.CanaryExposure;
import org.hotpate.eval.ClassifierAccuracy;
import org.hotpate.eval.Fidelity;
import org.hotpate.eval.TextEmbedding;
import org.hotpate.eval.TextMetrics;
import org.hotpate.eval.UtilityRow;
import org.hotpate.teachers.ngram.InMemoryContextStore;
import org.hotpate.teachers.ngram.NgramDistributions;
import org.hotpate.teachers.ngram.NgramModel;
import org.hotpate.teachers.ngram.PublicModels;
import org.hotpate.teachers.records.RecordFields;
import org.hotpate.teachers.text.Tokenizer;

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
    static final double[] WASP_TEMPERATURES = {0.7, 1.0, 1.4};

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

    /**
     * One method's released text (token sequences) and labels (−1 = none), and its totals; {@code
     * publicTokens} marks, per text, the tokens that came from the public model (a ⊥ filled by the
     * public fallback) rather than from the private aggregate (null: none did).
     */
    record Output(
            String method,
            List<int[]> texts,
            int[] labels,
            long tokens,
            double spentEpsilon,
            Map<String, Object> details,
            List<boolean[]> publicTokens) {
        Output(
                String method,
                List<int[]> texts,
                int[] labels,
                long tokens,
                double spentEpsilon,
                Map<String, Object> details) {
            this(method, texts, labels, tokens, spentEpsilon, details, null);
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
        Tokenizer tok = Tokenizer.named(o.tokenizer());
        int vocab = tok.vocabularySize();
        RecordsCorpus corpus = RecordsCorpus.load(o.records(), o.fields(), tok);
        List<RecordsCorpus.Rec> recs = corpus.records();
        progress.printf(
                Locale.ROOT,
                "records: %d valid (%s rejected), %d users, classes %s%n",
                recs.size(),
                corpus.rejected().isEmpty() ? "none" : corpus.rejected().toString(),
                recs.stream().map(RecordsCorpus.Rec::user).distinct().count(),
                corpus.classes());
        if (o.maxUsers() > 0) {
            recs = keepUsers(recs, o.maxUsers(), o.seed());
        }
        UserSplit split =
                UserSplit.of(
                        recs.stream().map(RecordsCorpus.Rec::user).toList(),
                        o.holdoutFraction(),
                        o.seed());
        Set<String> heldOut = new HashSet<>(split.heldOut());
        Map<String, List<RecordsCorpus.Rec>> byUser = new TreeMap<>();
        List<int[]> testTexts = new ArrayList<>();
        List<Integer> testLabels = new ArrayList<>();
        for (RecordsCorpus.Rec r : recs) {
            if (heldOut.contains(r.user())) {
                testTexts.add(r.tokens());
                testLabels.add(r.label());
            } else {
                byUser.computeIfAbsent(r.user(), k -> new ArrayList<>()).add(r);
            }
        }
        List<String> users = new ArrayList<>(byUser.keySet()); // sorted: roster index = position
        int n = users.size();
        int classes = Math.max(1, corpus.classes().size());
        progress.printf(
                Locale.ROOT,
                "split: %d teaching users (%d records), %d held-out users (%d records)%n",
                n,
                recs.size() - testTexts.size(),
                split.heldOut().size(),
                testTexts.size());

        // Canaries: extra records of a few seeded teaching users.
        int[] prefix = tok.encode(CANARY_PREFIX);
        int[] digits = new int[10];
        for (int d = 0; d < 10; d++) {
            digits[d] = tok.singleTokenId(Integer.toString(d));
        }
        List<CanaryExposure.Canary> canaries =
                o.canaries() == 0
                        ? List.of()
                        : CanaryExposure.make(
                                o.canaries(),
                                withSpace(prefix, tok),
                                digits,
                                CANARY_LENGTH,
                                o.seed() ^ 0x5eedL);
        List<String> shuffled = shuffle(users, o.seed() + 1);
        for (int c = 0; c < canaries.size(); c++) {
            String u = shuffled.get(c % shuffled.size());
            List<RecordsCorpus.Rec> own = byUser.get(u);
            int[] seq = canaries.get(c).sequence();
            own.add(new RecordsCorpus.Rec(u, tok.decode(seq), seq, own.get(0).label()));
        }

        // The public model (public text only) is every teacher's backoff below its empty context.
        NgramModel publicModel =
                o.publicFile() == null
                        ? null
                        : PublicModels.load(
                                o.publicFile().toString(),
                                o.fields().textField(),
                                tok,
                                o.publicOrder());
        if (publicModel == null) {
            progress.println(
                    "no public model (--public-file not given): the public model is uniform, so a ⊥"
                            + " ends its sequence instead of being padded with uniformly random"
                            + " tokens");
        }
        // Teachers: one n-gram model per teaching user, label "" plus one per class.
        List<NgramModel> teachers = new ArrayList<>(n);
        for (String u : users) {
            NgramModel m =
                    new NgramModel(
                            o.order(),
                            vocab,
                            tok.endOfText(),
                            new InMemoryContextStore(),
                            publicModel,
                            o.publicWeight());
            for (RecordsCorpus.Rec r : byUser.get(u)) {
                m.add("", r.tokens());
                if (r.label() >= 0) {
                    m.add(labelKey(r.label()), r.tokens());
                }
            }
            teachers.add(m);
        }
        progress.printf(
                Locale.ROOT,
                "teachers built: %d n-gram teachers (order %d, %s, public weight %s); public"
                        + " model: %s; %.1f s%n",
                n,
                o.order(),
                tok.name(),
                o.publicWeight(),
                o.publicFile() == null
                        ? "none (uniform p0)"
                        : o.publicFile() + " (order " + o.publicOrder() + ")",
                (System.nanoTime() - t0) / 1e9);

        List<int[]> prompts = prompts(o, tok);
        // How much each method's text reads like the private records rather than the public ones
        // (operator-only: P_priv is fitted on the private records).
        Fidelity fidelity =
                o.publicFile() == null
                        ? null
                        : Fidelity.of(
                                recs.stream().map(RecordsCorpus.Rec::text).toList(),
                                publicTexts(
                                        o.publicFile(), o.fields().textField(), Integer.MAX_VALUE));
        Context ctx =
                new Context(
                        o, tok, vocab, n, classes, teachers, publicModel, prompts, byUser, users);
        int[] testLabelArray = testLabels.stream().mapToInt(Integer::intValue).toArray();

        List<UtilityRow> rows = new ArrayList<>();
        Map<String, List<String>> samples = new LinkedHashMap<>();
        Map<String, Map<String, Object>> details = new LinkedHashMap<>();
        for (String method : o.methods()) {
            long tm = System.nanoTime();
            progress.printf(Locale.ROOT, "%s: running ...%n", method);
            Output out = runMethod(method, ctx, progress);
            Double accuracy =
                    corpus.labelled()
                            ? ClassifierAccuracy.of(
                                    labelledOnly(out.texts(), out.labels()),
                                    labelsOnly(out.labels()),
                                    testTexts,
                                    testLabelArray,
                                    classes,
                                    vocab)
                            : null;
            Double exposure =
                    canaries.isEmpty()
                            ? null
                            : exposure(canaries, out.texts(), digits, vocab, o.seed());
            Object requested = out.details().get("sequences_requested");
            Double nonEmpty =
                    requested == null
                            ? null
                            : ((Number) out.details().get("records_with_private_tokens"))
                                            .doubleValue()
                                    / ((Number) requested).doubleValue();
            Double fid =
                    fidelity == null || !TEXT_METHODS.contains(method)
                            ? null
                            : nanToNull(
                                    fidelity.summarize(
                                                    out.texts().stream().map(tok::decode).toList())
                                            .fidelity());
            UtilityRow row =
                    new UtilityRow(
                            method,
                            out.spentEpsilon(),
                            out.tokens(),
                            out.texts().size(),
                            TextMetrics.jsBigram(out.texts(), testTexts),
                            TextMetrics.distinct2(out.texts()),
                            accuracy,
                            exposure,
                            fid,
                            nonEmpty);
            rows.add(row);
            samples.put(method, decodeSamples(out, tok, corpus.classes()));
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
                    accuracy == null ? "null" : String.format(Locale.ROOT, "%.4f", accuracy),
                    exposure == null ? "null" : String.format(Locale.ROOT, "%.3f", exposure),
                    fid == null ? "null" : String.format(Locale.ROOT, "%+.3f", fid),
                    (System.nanoTime() - tm) / 1e9);
        }

        // Non-private references: the ceiling (real teaching records) and the floor.
        List<int[]> teachTexts = new ArrayList<>();
        List<Integer> teachLabels = new ArrayList<>();
        for (List<RecordsCorpus.Rec> l : byUser.values()) {
            for (RecordsCorpus.Rec r : l) {
                teachTexts.add(r.tokens());
                teachLabels.add(r.label());
            }
        }
        Map<String, Object> refs = new LinkedHashMap<>();
        refs.put("teaching_users", n);
        refs.put("held_out_users", split.heldOut().size());
        refs.put("teaching_records", teachTexts.size());
        refs.put("held_out_records", testTexts.size());
        refs.put("classes", corpus.classes());
        refs.put("canaries", canaries.size());
        refs.put("real_js_bigram", TextMetrics.jsBigram(teachTexts, testTexts));
        refs.put("real_distinct_2", TextMetrics.distinct2(teachTexts));
        if (corpus.labelled()) {
            refs.put(
                    "ceiling_accuracy",
                    ClassifierAccuracy.of(
                            teachTexts,
                            teachLabels.stream().mapToInt(Integer::intValue).toArray(),
                            testTexts,
                            testLabelArray,
                            classes,
                            vocab));
            refs.put("floor_accuracy", majorityShare(testLabelArray, classes));
        } else {
            refs.put("ceiling_accuracy", null);
            refs.put("floor_accuracy", null);
        }
        refs.put("seconds", round((System.nanoTime() - t0) / 1e9));
        return new Result(rows, refs, samples, details);
    }

    /** The context every method runs in. */
    record Context(
            Options o,
            Tokenizer tok,
            int vocab,
            int n,
            int classes,
            List<NgramModel> teachers,
            NgramModel publicModel,
            List<int[]> prompts,
            Map<String, List<RecordsCorpus.Rec>> byUser,
            List<String> users) {
        /** The planned number of text-generation steps: sequences × max tokens. */
        long plannedSteps() {
            return (long) o.sequences() * o.maxTokens();
        }

        boolean labelled() {
            return o.fields().labelled();
        }

        PublicDistribution p0(int[] prefix) {
            if (publicModel == null) {
                return PublicDistribution.uniform(vocab);
            }
            try {
                return PublicDistribution.of(
                        NgramDistributions.dense(publicModel, "", prefix, vocab));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static Output runMethod(String method, Context c, PrintStream progress)
            throws Exception {
        return switch (method) {
            case "hot-pate", "cold-pate" -> pate(method, c);
            case "pmixed" -> pmixed(c);
            case "wasp" -> wasp(c);
            default -> label(method, c);
        };
    }

    // ---- text generation: hot PATE, cold PATE, PMixED ----

    /**
     * The smallest σ (to 0.1 %) whose worst-case release fits {@code steps} times in the budget.
     */
    static double calibrateSigma(
            PrivacyBudget budget,
            long steps,
            java.util.function.DoubleFunction<PrivacyEvent> event) {
        double lo = 1e-3;
        double hi = 1;
        while (releases(budget, event.apply(hi)) < steps) {
            hi *= 2;
            checkArgument(hi < 1e9, "cannot calibrate sigma for " + steps + " releases");
        }
        while (hi / lo > 1.001) {
            double mid = Math.sqrt(lo * hi);
            if (releases(budget, event.apply(mid)) >= steps) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        return hi;
    }

    private static long releases(PrivacyBudget budget, PrivacyEvent e) {
        return EnsembleBudgetFilter.maxReleases(EnsembleBudgetFilter.Config.plan(budget, e), e);
    }

    /**
     * Hot and cold PATE with one mechanism for both (equal ε, equal parameters): with {@code
     * --pate-sigma}, Algorithm 2 ({@code hot-pate}) at that σ; otherwise {@code mechanism: auto}
     * ({@link AutoPlanner}) planned for the sequences × max-tokens of the evaluation, as a job
     * spec's {@code auto} would be. Teachers are one per user, so the plan is heterogeneous.
     */
    private static Output pate(String method, Context c) throws Exception {
        Options o = c.o();
        Map<String, Object> d = new LinkedHashMap<>();
        AggregationMechanism mech;
        if (o.pateSigma() != null) {
            HotPateHomogeneousMechanism hp = hotPate(o.pateSigma(), c.vocab(), c.n());
            d.put("mechanism", HotPateHomogeneousMechanism.NAME);
            d.put("sigma", round(o.pateSigma()));
            d.put("threshold", round(c.n() / 2.0 + hp.errorBound()));
            mech = hp;
        } else {
            AutoPlanner.Plan plan =
                    AutoPlanner.plan(
                            new AutoPlanner.Inputs(
                                    c.n(), c.vocab(), true, o.budget(), c.plannedSteps()));
            d.put("mechanism", plan.mechanism());
            d.put("planned_by", AutoPlanner.NAME);
            plan.params().forEach((k, v) -> d.put(k, round(v)));
            mech = Mechanisms.create(plan.mechanism(), plan.params(), c.vocab(), c.n());
        }
        TextGenerationMethod m =
                method.equals(PateTextGeneration.HOT)
                        ? PateTextGeneration.hot(mech, c.n())
                        : PateTextGeneration.cold(mech, c.n());
        return generate(m, c, d);
    }

    private static HotPateHomogeneousMechanism hotPate(double sigma, int vocab, int n) {
        return new HotPateHomogeneousMechanism(
                sigma,
                sigma,
                HotPateHomogeneousMechanism.DEFAULT_BETA_FAIL,
                vocab,
                n,
                NoiseSources.secure());
    }

    private static Output pmixed(Context c) throws Exception {
        Options o = c.o();
        PmixedParams best = null;
        for (int a = 2; a <= 32; a++) {
            if (PmixedPrivacy.rdpBudget(o.budget().epsilon(), o.budget().delta(), a) <= 0) {
                continue;
            }
            PmixedParams p =
                    PmixedParams.forBudget(o.pmixedRate(), a, o.budget(), c.plannedSteps());
            if (best == null || p.radius() > best.radius()) {
                best = p;
            }
        }
        checkArgument(
                best != null, "pmixed: (epsilon, delta) leaves no RDP budget at any order <= 32");
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("sampling_rate", o.pmixedRate());
        d.put("max_order", best.maxOrder());
        d.put("radius", round(best.radius()));
        return generate(new PmixedMechanism(best), c, d);
    }

    private static Output generate(TextGenerationMethod m, Context c, Map<String, Object> d) {
        Options o = c.o();
        EnsembleBudgetFilter budget =
                EnsembleBudgetFilter.create(
                        EnsembleBudgetFilter.Config.plan(o.budget(), m.worstCaseStepEvent()));
        // A ⊥ is filled from the public model when there is one (marked public below); a uniform
        // "public model" would only pad the text with random tokens, so without one ⊥ ends it.
        GenerationLoop.Options lo =
                new GenerationLoop.Options(
                        o.seed(),
                        o.maxTokens(),
                        c.tok().endOfText(),
                        c.publicModel() == null
                                ? org.hotpate.core.generation.FailPolicy.STOP
                                : org.hotpate.core.generation.FailPolicy.FALLBACK,
                        1);
        List<int[]> texts = new ArrayList<>();
        List<boolean[]> publicTokens = new ArrayList<>();
        List<Integer> labels = new ArrayList<>();
        long withPrivateTokens = 0;
        long tokens = 0;
        long steps = 0;
        long fails = 0;
        boolean exhausted = false;
        int[] perClass = split(o.sequences(), c.labelled() ? c.classes() : 1);
        for (int k = 0; k < perClass.length; k++) {
            String key = c.labelled() ? labelKey(k) : "";
            List<GenerationLoop.Prompt> prompts = new ArrayList<>();
            for (int s = 0; s < perClass[k]; s++) {
                prompts.add(
                        new GenerationLoop.Prompt(
                                key + "/s" + s, c.prompts().get(s % c.prompts().size())));
            }
            GenerationLoop.Teachers teachers =
                    new GenerationLoop.Teachers() {
                        @Override
                        public int size() {
                            return c.n();
                        }

                        private int[] lastPrefix;
                        private NgramDistributions.SharedBackoff shared;

                        @Override
                        public TeacherDistribution next(int teacher, int[] prefix) {
                            try {
                                if (prefix != lastPrefix) { // one step asks every teacher
                                    shared =
                                            NgramDistributions.SharedBackoff.at(
                                                    c.publicModel(), prefix, c.vocab());
                                    lastPrefix = prefix;
                                }
                                NgramModel.Next x =
                                        NgramDistributions.next(
                                                c.teachers().get(teacher),
                                                key,
                                                prefix,
                                                o.topK(),
                                                shared);
                                return TeacherDistribution.SparseProbabilities.ofNonZero(
                                        x.tokens(), x.probs());
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        }
                    };
            GenerationLoop.Result r =
                    GenerationLoop.run(m, prompts, teachers, c::p0, c.vocab(), budget, lo);
            for (GenerationLoop.Sequence s : r.sequences()) {
                int[] g = stripStop(s.generated(), c.tok().endOfText());
                if (g.length > 0) {
                    texts.add(g);
                    boolean[] pub = new boolean[g.length];
                    for (int i = 0; i < g.length; i++) {
                        pub[i] = !s.fromTeachers()[i];
                    }
                    publicTokens.add(pub);
                    labels.add(c.labelled() ? k : -1);
                }
                withPrivateTokens += s.privateTokens() > 0 ? 1 : 0;
            }
            tokens += r.privateTokens();
            steps += r.steps();
            fails += r.fails();
            exhausted |= r.budgetExhausted();
        }
        d.put("steps", steps);
        d.put("fails", fails);
        d.put("budget_exhausted", exhausted);
        d.put("records_with_private_tokens", withPrivateTokens);
        d.put("sequences_requested", o.sequences());
        return new Output(
                m.name(),
                texts,
                labels.stream().mapToInt(Integer::intValue).toArray(),
                tokens,
                budget.spentEpsilon(),
                d,
                publicTokens);
    }

    // ---- WASP ----

    private static Output wasp(Context c) throws Exception {
        Options o = c.o();
        TextEmbedding emb = new TextEmbedding(EMBEDDING_DIMENSION);
        List<PrivateSample> samples = new ArrayList<>();
        for (Map.Entry<String, List<RecordsCorpus.Rec>> e : c.byUser().entrySet()) {
            List<RecordsCorpus.Rec> l = e.getValue();
            for (int i = 0; i < Math.min(l.size(), o.waspMaxPerUser()); i++) {
                samples.add(
                        new PrivateSample(
                                emb.embed(l.get(i).text()),
                                Math.max(0, l.get(i).label()),
                                e.getKey()));
            }
        }
        int perRound =
                Math.max(c.classes(), (int) Math.ceil(o.sequences() / (double) o.waspIterations()));
        WaspParams params =
                WaspParams.tightlyCalibrated(
                        o.budget(), 8, 5, o.waspIterations(), perRound, o.waspMaxPerUser());
        WaspVoting voting = new WaspVoting(params);
        EnsembleBudgetFilter budget =
                EnsembleBudgetFilter.create(
                        EnsembleBudgetFilter.Config.plan(o.budget(), voting.event()));
        List<int[]> made = new ArrayList<>();
        SplittableRandom publicRandom = new SplittableRandom(o.seed() ^ 0x3a5bL);
        Wasp.SyntheticSource source =
                (round, plm, label, count, high, low) -> {
                    NgramModel context = null;
                    if (!high.isEmpty()) {
                        context =
                                new NgramModel(
                                        c.o().order(),
                                        c.vocab(),
                                        c.tok().endOfText(),
                                        new InMemoryContextStore(),
                                        null);
                        for (SyntheticCandidate h : high) {
                            try {
                                context.add("", made.get((int) h.id()));
                            } catch (Exception ex) {
                                throw new IllegalStateException(ex);
                            }
                        }
                    }
                    List<SyntheticCandidate> out = new ArrayList<>();
                    for (int i = 0; i < count; i++) {
                        int[] text = samplePublic(c, context, WASP_TEMPERATURES[plm], publicRandom);
                        made.add(text);
                        out.add(
                                new SyntheticCandidate(
                                        made.size() - 1,
                                        label,
                                        plm,
                                        emb.embed(c.tok().decode(text))));
                    }
                    return out;
                };
        Wasp.Result r =
                Wasp.run(
                        params,
                        c.classes(),
                        WASP_TEMPERATURES.length,
                        source,
                        samples,
                        budget,
                        voting);
        List<int[]> texts = new ArrayList<>();
        List<Integer> labels = new ArrayList<>();
        long tokens = 0;
        for (SyntheticCandidate s : r.synthetic()) {
            int[] t = made.get((int) s.id());
            if (t.length > 0) {
                texts.add(t);
                labels.add(c.labelled() ? s.label() : -1);
                tokens += t.length;
            }
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("sigma", round(params.sigma()));
        d.put("sensitivity", round(params.sensitivity()));
        d.put("voting_rounds", r.votingRounds());
        d.put("private_samples", samples.size());
        d.put("plm_temperatures", WASP_TEMPERATURES);
        d.put("budget_exhausted", r.budgetExhausted());
        return new Output(
                "wasp",
                texts,
                labels.stream().mapToInt(Integer::intValue).toArray(),
                tokens,
                r.spentEpsilon(),
                d);
    }

    /**
     * One sequence from a public "PLM": the public model (uniform without one), mixed half-half
     * with an n-gram of last round's released high-quality examples when there are any (WASP's
     * in-context step), at a temperature; public randomness only.
     */
    static int[] samplePublic(
            Context c, NgramModel context, double temperature, SplittableRandom rnd) {
        List<Integer> out = new ArrayList<>();
        int[] prefix = new int[0];
        try {
            for (int i = 0; i < c.o().maxTokens(); i++) {
                double[] p =
                        c.publicModel() == null
                                ? uniform(c.vocab())
                                : NgramDistributions.dense(c.publicModel(), "", prefix, c.vocab());
                if (context != null) {
                    double[] q = NgramDistributions.dense(context, "", prefix, c.vocab());
                    for (int w = 0; w < p.length; w++) {
                        p[w] = 0.5 * p[w] + 0.5 * q[w];
                    }
                }
                int w = sample(p, temperature, rnd.nextDouble());
                if (w == c.tok().endOfText()) {
                    break;
                }
                out.add(w);
                prefix = Arrays.copyOf(prefix, prefix.length + 1);
                prefix[prefix.length - 1] = w;
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private static double[] uniform(int v) {
        double[] p = new double[v];
        Arrays.fill(p, 1.0 / v);
        return p;
    }

    static int sample(double[] p, double temperature, double u) {
        double total = 0;
        double[] w = new double[p.length];
        for (int i = 0; i < p.length; i++) {
            w[i] = p[i] > 0 ? Math.pow(p[i], 1 / temperature) : 0;
            total += w[i];
        }
        double x = u * total;
        double acc = 0;
        for (int i = 0; i < w.length; i++) {
            acc += w[i];
            if (x < acc) {
                return i;
            }
        }
        for (int i = w.length - 1; i >= 0; i--) {
            if (w[i] > 0) {
                return i;
            }
        }
        return 0;
    }

    // ---- labelers: PromptPATE, PATEin ----

    private static Output label(String method, Context c) throws Exception {
        Options o = c.o();
        checkArgument(
                o.publicFile() != null, method + " labels public texts: it needs --public-file");
        List<String> publicTexts =
                publicTexts(o.publicFile(), o.fields().textField(), o.labelQueries());
        checkArgument(!publicTexts.isEmpty(), method + ": --public-file has no text to label");
        List<NaiveBayes> classifiers = new ArrayList<>();
        for (String u : c.users()) {
            List<int[]> docs = new ArrayList<>();
            List<Integer> ls = new ArrayList<>();
            for (RecordsCorpus.Rec r : c.byUser().get(u)) {
                docs.add(r.tokens());
                ls.add(r.label());
            }
            classifiers.add(
                    NaiveBayes.train(
                            docs,
                            ls.stream().mapToInt(Integer::intValue).toArray(),
                            c.classes(),
                            c.vocab()));
        }
        TextEmbedding emb = new TextEmbedding(EMBEDDING_DIMENSION);
        List<LabelingQuery> queries = new ArrayList<>();
        List<int[]> queryTokens = new ArrayList<>();
        for (String t : publicTexts) {
            int[] tk = c.tok().encode(t);
            queryTokens.add(tk);
            queries.add(new LabelingQuery(tk, emb.embed(t)));
        }
        int routed = method.equals(PateinLabeler.NAME) ? Math.max(1, (c.n() + 1) / 2) : c.n();
        double threshold =
                method.equals(PateinLabeler.NAME) ? PATEIN_CONSISTENCY * routed : routed / 2.0;
        double sigma =
                calibrateSigma(
                        o.budget(),
                        queries.size(),
                        s -> new PrivacyEvent.ConfidentGnmax(s, threshold, s, true));
        Labeler labeler;
        if (method.equals(PateinLabeler.NAME)) {
            double[][] profiles = new double[c.n()][];
            for (int i = 0; i < c.n(); i++) {
                profiles[i] = emb.embed(c.users().get(i)); // the public roster name, never records
            }
            labeler =
                    new PateinLabeler(
                            classifiers,
                            c.classes(),
                            PublicRouting.mostSimilar(profiles, routed),
                            sigma,
                            sigma,
                            PATEIN_CONSISTENCY);
        } else {
            labeler = new PromptPateLabeler(classifiers, c.classes(), sigma, threshold, sigma);
        }
        EnsembleBudgetFilter budget =
                EnsembleBudgetFilter.create(
                        EnsembleBudgetFilter.Config.plan(o.budget(), labeler.worstCaseEvent()));
        LabelingLoop.Result r = LabelingLoop.run(labeler, queries, budget);
        List<int[]> texts = new ArrayList<>();
        List<Integer> labels = new ArrayList<>();
        for (LabelingLoop.Labeled l : r.labels()) {
            if (l.label().isPresent()) {
                texts.add(queryTokens.get(l.query()));
                labels.add(l.label().getAsInt());
            }
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("mechanism", "confident-gnmax");
        d.put("sigma", round(sigma));
        d.put("threshold", round(threshold));
        d.put("routed_teachers", routed);
        d.put("queries", r.charged());
        d.put("answered", r.answered());
        d.put("budget_exhausted", r.budgetExhausted());
        return new Output(
                method,
                texts,
                labels.stream().mapToInt(Integer::intValue).toArray(),
                0,
                r.spentEpsilon(),
                d);
    }

    /** PATEin's consistency τ (paper default 0.9): the threshold is τ·m of the m routed votes. */
    static final double PATEIN_CONSISTENCY = 0.9;

    /**
     * The first {@code max} non-empty texts of a file (JSONL(.gz) with the text in {@code field},
     * or plain lines).
     */
    public static List<String> publicTexts(Path file, String field, int max) throws Exception {
        List<String> out = new ArrayList<>();
        com.fasterxml.jackson.databind.ObjectMapper json =
                new com.fasterxml.jackson.databind.ObjectMapper();
        org.hotpate.teachers.records.RecordFiles.forEachLine(
                file,
                (n, bytes) -> {
                    if (out.size() >= max) {
                        return;
                    }
                    String line = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
                    String text = line;
                    if (line.startsWith("{")) {
                        try {
                            com.fasterxml.jackson.databind.JsonNode t =
                                    json.readTree(line).get(field);
                            text = t != null && t.isTextual() ? t.asText() : null;
                        } catch (Exception e) {
                            text = line;
                        }
                    }
                    if (text != null && !text.isBlank()) {
                        out.add(text);
                    }
                });
        return out;
    }

    // ---- helpers ----

    static String labelKey(int label) {
        return "c" + label;
    }

    /** {@code total} split as evenly as possible over {@code parts} (earlier parts get more). */
    static int[] split(int total, int parts) {
        int[] out = new int[parts];
        for (int i = 0; i < parts; i++) {
            out[i] = total / parts + (i < total % parts ? 1 : 0);
        }
        return out;
    }

    private static List<int[]> prompts(Options o, Tokenizer tok) throws Exception {
        if (o.promptsFile() == null) {
            return List.of(new int[0]);
        }
        List<int[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(o.promptsFile())) {
            if (!line.isBlank()) {
                out.add(tok.encode(line));
            }
        }
        checkArgument(!out.isEmpty(), "--prompts-file " + o.promptsFile() + " has no prompt");
        return out;
    }

    private static int[] withSpace(int[] prefix, Tokenizer tok) {
        return prefix; // digits follow the prefix directly; kept as a seam for other tokenizers
    }

    private static List<RecordsCorpus.Rec> keepUsers(
            List<RecordsCorpus.Rec> recs, int max, long seed) {
        List<String> users =
                shuffle(
                        recs.stream().map(RecordsCorpus.Rec::user).distinct().sorted().toList(),
                        seed + 2);
        if (users.size() <= max) {
            return recs;
        }
        Set<String> keep = new HashSet<>(users.subList(0, max));
        return recs.stream().filter(r -> keep.contains(r.user())).toList();
    }

    private static List<String> shuffle(List<String> in, long seed) {
        List<String> l = new ArrayList<>(in);
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = l.size() - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            String t = l.get(i);
            l.set(i, l.get(j));
            l.set(j, t);
        }
        return l;
    }

    private static int[] stripStop(int[] g, int stop) {
        return g.length > 0 && g[g.length - 1] == stop ? Arrays.copyOf(g, g.length - 1) : g;
    }

    private static List<int[]> labelledOnly(List<int[]> texts, int[] labels) {
        List<int[]> out = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            if (labels[i] >= 0) {
                out.add(texts.get(i));
            }
        }
        return out;
    }

    private static int[] labelsOnly(int[] labels) {
        return Arrays.stream(labels).filter(l -> l >= 0).toArray();
    }

    /** The best constant classifier's accuracy on the test labels (the floor; see docs). */
    static double majorityShare(int[] labels, int classes) {
        if (labels.length == 0) {
            return 0;
        }
        int[] count = new int[classes];
        for (int l : labels) {
            count[l]++;
        }
        return Arrays.stream(count).max().orElse(0) / (double) labels.length;
    }

    /** Mean exposure over the canaries of an add-0.01 bigram model trained on the output. */
    static double exposure(
            List<CanaryExposure.Canary> canaries,
            List<int[]> output,
            int[] alphabet,
            int vocab,
            long seed) {
        BigramModel m = BigramModel.train(output, vocab, 0.01);
        double sum = 0;
        for (int i = 0; i < canaries.size(); i++) {
            CanaryExposure.Canary c = canaries.get(i);
            sum +=
                    CanaryExposure.exposure(
                            c,
                            CanaryExposure.candidates(
                                    c, alphabet, CANARY_CANDIDATES, seed + 31L * i),
                            m);
        }
        return sum / canaries.size();
    }

    /**
     * Up to 8 outputs, decoded; tokens that came from the public model rather than the private
     * aggregate (a ⊥ filled by the public fallback) are shown inside {@link #PUBLIC_OPEN} … {@link
     * #PUBLIC_CLOSE}, so a sample never passes public filler off as private text.
     */
    static List<String> decodeSamples(Output out, Tokenizer tok, List<String> classes) {
        List<String> s = new ArrayList<>();
        for (int i = 0; i < Math.min(8, out.texts().size()); i++) {
            String label = out.labels()[i] >= 0 ? "[" + classes.get(out.labels()[i]) + "] " : "";
            boolean[] pub = out.publicTokens() == null ? null : out.publicTokens().get(i);
            s.add(label + markPublic(out.texts().get(i), pub, tok));
        }
        return s;
    }

    static final String PUBLIC_OPEN = "«public: ";
    static final String PUBLIC_CLOSE = "»";

    /** The text with its public spans marked (each maximal run decoded together). */
    static String markPublic(int[] tokens, boolean[] pub, Tokenizer tok) {
        if (pub == null) {
            return tok.decode(tokens);
        }
        StringBuilder b = new StringBuilder();
        int i = 0;
        while (i < tokens.length) {
            int j = i;
            while (j < tokens.length && pub[j] == pub[i]) {
                j++;
            }
            String t = tok.decode(Arrays.copyOfRange(tokens, i, j));
            b.append(pub[i] ? PUBLIC_OPEN + t + PUBLIC_CLOSE : t);
            i = j;
        }
        return b.toString();
    }

    private static Double nanToNull(double v) {
        return Double.isNaN(v) ? null : v;
    }

    static double round(double v) {
        return Math.round(v * 1e6) / 1e6;
    }
}
