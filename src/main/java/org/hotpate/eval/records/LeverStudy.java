package org.hotpate.eval.records;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.hotpate.core.accounting.ChargePlanning;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.accounting.NeighbourRelation;
import org.hotpate.core.accounting.PublicChargingRandomness;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.AutoPlanner;
import org.hotpate.core.mechanism.ConfidentGnmaxMechanism;
import org.hotpate.core.mechanism.Mechanisms;
import org.hotpate.core.noise.DiscreteGaussian;
import org.hotpate.core.noise.DiscreteLaplace;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.Rational;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.prior.DpNgramExtraction;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;
import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.Sampler;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.core.vote.VoteHistogram;
import org.hotpate.eval.Fidelity;
import org.hotpate.eval.TextOrigin;
import org.hotpate.teachers.ngram.InMemoryContextStore;
import org.hotpate.teachers.ngram.NgramDistributions;
import org.hotpate.teachers.ngram.NgramModel;
import org.hotpate.teachers.ngram.PopulationPrior;
import org.hotpate.teachers.ngram.PublicModels;
import org.hotpate.teachers.records.RecordFields;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The in-process study behind docs/privacy-efficiency.md: one lever at a time on real per-user
 * records, with the job's teachers (one Witten–Bell n-gram per user, public backoff), the job's
 * coordinated votes and step seeds, and each lever's own accountant at a per-user (ε, δ) under
 * replace-one. It prints one JSON line per run: released tokens, the sequences started before the
 * budget ran out, the share of them whose record has at least one private token, fidelity ({@link
 * Fidelity}; operator-only), steps and ⊥.
 *
 * <pre>
 * java -cp target/hotpate-0.1.0-SNAPSHOT-all.jar org.hotpate.eval.records.LeverStudy \
 *   --records data/spamassassin/private.jsonl.gz --public-file data/spamassassin/public.jsonl.gz \
 *   --user-field user --text-field subject --lever auto [--sequences 600] [--public-order 2] \
 *   [--prior share:k[:length]] [--backoff none] ...
 * </pre>
 *
 * Levers: {@code confident-gnmax:σ1:T:σ2} (the ensemble filter), {@code auto} ({@link
 * AutoPlanner}), {@code stability:σ:T} (Algorithm 2 with a distance-to-instability test: exact
 * argmax released when d + N(0, σ²) ≥ T; its δ per step is Pr[N ≥ T − 1], reported), {@code
 * scheme-a:ε:lower:upper} and {@code scheme-b:σ:threshold:rate} (individual charging with the
 * public model's coordinated proposal, per-user limits under replace-one, as the job plans them:
 * {@code ChargePlanning} with {@code NeighbourRelation.REPLACE_ONE}, half the add/remove limit).
 * Teachers: {@code --prior share:k[:length]} backs them off to a DP n-gram population prior (the
 * job's {@code teacher.prior: dp-ngram}, charged first to each lever's filter), {@code --backoff
 * none} to nothing (their own records only). Each result also says whose words the text is ({@link
 * TextOrigin}: distinct records, the 10 most common records' share, public-only records, the public
 * model's top-1 share of the released tokens). This is a measuring tool: its noise is secure, but
 * it is not the job, and its numbers are what docs/privacy-efficiency.md reports, not guarantees of
 * a run.
 */
public final class LeverStudy {
    private LeverStudy() {}

    /** One run's figures. */
    public record Result(
            String lever,
            long tokens,
            long sequences,
            long started,
            double nonEmptyShare,
            double fidelity,
            long steps,
            long fails,
            String accounting,
            double seconds,
            TextOrigin.Summary origin) {}

    /** The step policy of a lever: a token, −1 for ⊥, or −2 when its budget refuses the step. */
    interface Policy {
        int decide(Step s);

        String accounting();
    }

    /** One step's votes and public proposal. */
    static final class Step {
        int[] votes;
        VoteHistogram histogram;
        int proposal;
        StepRandomness randomness;
    }

    /** The corpus, its teachers and the public model. */
    record Setup(
            Tokenizer tok,
            List<NgramModel> teachers,
            NgramModel publicModel,
            NgramModel backoff,
            PrivacyEvent priorEvent,
            Fidelity fidelity,
            TextOrigin origin,
            long[] keys) {
        int n() {
            return teachers.size();
        }
    }

    /**
     * A population prior for the study ({@code --prior share:k[:length]}): the share of the run
     * filter's RDP budget at its order that the DP n-gram release spends, and its per-user bound.
     */
    public record PriorOption(double share, int perUser, int maxLength) {
        static PriorOption parse(String s) {
            if (s == null || s.isEmpty()) {
                return null;
            }
            String[] a = s.split(":");
            return new PriorOption(
                    Double.parseDouble(a[0]),
                    Integer.parseInt(a[1]),
                    a.length > 2 ? Integer.parseInt(a[2]) : 3);
        }
    }

    public static Setup setup(
            Path records,
            RecordFields fields,
            Path publicFile,
            int order,
            int publicOrder,
            double publicWeight,
            PriorOption priorOption,
            PrivacyBudget budget,
            long plannedPositions,
            boolean publicBackoff)
            throws Exception {
        Tokenizer tok = Tokenizer.named("cl100k_base");
        RecordsCorpus corpus = RecordsCorpus.load(records, fields, tok);
        NgramModel pub =
                PublicModels.load(publicFile.toString(), fields.textField(), tok, publicOrder);
        Map<String, List<int[]>> byUser = new java.util.TreeMap<>();
        for (RecordsCorpus.Rec r : corpus.records()) {
            byUser.computeIfAbsent(r.user(), k -> new ArrayList<>()).add(r.tokens());
        }
        // --backoff none: the teachers vote with their own records only (the public file is
        // still used to measure); else the public model, or a DP prior (--prior)
        NgramModel backoff = publicBackoff ? pub : null;
        PrivacyEvent priorEvent = null;
        if (priorOption != null) {
            EnsembleBudgetFilter.Config c =
                    EnsembleBudgetFilter.Config.plan(
                            budget, autoWorst(byUser.size(), tok, budget, plannedPositions));
            DpNgramExtraction x =
                    DpNgramExtraction.plan(
                            priorOption.maxLength(),
                            priorOption.perUser(),
                            c.order(),
                            priorOption.share() * c.rdpBudget(),
                            budget.epsilon(),
                            budget.delta() / 20);
            DpNgramExtraction.Released table =
                    x.extract(
                            new ArrayList<>(byUser.values()),
                            tok.endOfText(),
                            NoiseSources.secure());
            backoff = PopulationPrior.model(table, tok.vocabularySize(), tok.endOfText());
            priorEvent = x.event(budget.epsilon());
            System.err.printf(
                    Locale.ROOT,
                    "prior: order %.1f, sigma %.2f, threshold %d, released %s n-grams%n",
                    c.order(),
                    x.sigma(),
                    x.threshold(),
                    table.levels().stream().map(m -> "" + m.size()).toList());
        }
        List<NgramModel> teachers = new ArrayList<>();
        for (List<int[]> l : byUser.values()) {
            NgramModel m =
                    new NgramModel(
                            order,
                            tok.vocabularySize(),
                            tok.endOfText(),
                            new InMemoryContextStore(),
                            backoff,
                            publicWeight);
            for (int[] t : l) {
                m.add("", t);
            }
            teachers.add(m);
        }
        long[] keys = new long[teachers.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = SeedDerivation.teacherKey(i);
        }
        List<String> privateTexts = corpus.records().stream().map(RecordsCorpus.Rec::text).toList();
        List<String> publicTexts =
                PublicTexts.read(publicFile, fields.textField(), Integer.MAX_VALUE);
        Fidelity f = Fidelity.of(privateTexts, publicTexts);
        return new Setup(
                tok,
                teachers,
                pub,
                backoff,
                priorEvent,
                f,
                TextOrigin.of(privateTexts, publicTexts),
                keys);
    }

    /** The worst case of the mechanism auto plans for these public inputs. */
    static PrivacyEvent autoWorst(int n, Tokenizer tok, PrivacyBudget budget, long positions) {
        AutoPlanner.Plan plan =
                AutoPlanner.plan(
                        new AutoPlanner.Inputs(n, tok.vocabularySize(), true, budget, positions));
        return Mechanisms.create(
                        plan.mechanism(),
                        plan.params(),
                        tok.vocabularySize(),
                        n,
                        NoiseSources.secure())
                .worstCaseEvent();
    }

    /**
     * The run filter for releases of worst case {@code worst}, with the population prior's release
     * charged first when the study has one (its δ term gets its own share of δ).
     */
    static EnsembleBudgetFilter filter(Setup s, PrivacyBudget budget, PrivacyEvent worst) {
        EnsembleBudgetFilter.Config c = EnsembleBudgetFilter.Config.plan(budget, worst);
        if (s == null || s.priorEvent() == null) {
            return EnsembleBudgetFilter.create(c);
        }
        double d = RdpAccountant.deltaOf(s.priorEvent());
        EnsembleBudgetFilter f =
                EnsembleBudgetFilter.create(
                        new EnsembleBudgetFilter.Config(
                                budget,
                                c.grid(),
                                c.conversion(),
                                c.order(),
                                c.approxDeltaShare() + d * (1 + 1e-6)));
        f.charge(s.priorEvent());
        return f;
    }

    static Step step(Setup s, int[] prefix, long seed, boolean[] active, Sampler sampler)
            throws Exception {
        int v = s.tok().vocabularySize();
        Step st = new Step();
        st.randomness = StepRandomness.forStep(seed, v);
        NgramDistributions.SharedBackoff shared =
                NgramDistributions.SharedBackoff.at(s.backoff(), prefix, v);
        Sampler co = sampler;
        VoteHistogram.Builder b = VoteHistogram.builder(s.n());
        st.votes = new int[s.n()];
        for (int i = 0; i < s.n(); i++) {
            int vote = VoteHistogram.ABSTAIN;
            if (active == null || active[i]) {
                NgramModel.Next x =
                        NgramDistributions.next(s.teachers().get(i), "", prefix, 64, shared);
                vote =
                        co.vote(
                                TeacherDistribution.SparseProbabilities.ofNonZero(
                                        x.tokens(), x.probs()),
                                st.randomness,
                                s.keys()[i]);
            }
            st.votes[i] = vote;
            b.vote(i, vote);
        }
        st.histogram = b.build();
        NgramModel.Next p = s.publicModel().next("", prefix, 64);
        st.proposal =
                PublicChargingRandomness.publicModelToken(
                        TeacherDistribution.SparseProbabilities.ofNonZero(p.tokens(), p.probs()),
                        st.randomness,
                        v);
        return st;
    }

    /** Generation options of a study run (the job's: ⊥ resamples; a stop token ends a record). */
    public record Generation(
            int sequences,
            int maxSteps,
            int maxAttempts,
            int firstAttempts,
            int minTokens,
            long runSeed,
            String sampler) {}

    public static Result run(
            Setup s, String lever, PrivacyBudget budget, Generation g, PrintStream samples)
            throws Exception {
        long t0 = System.nanoTime();
        boolean[] active = new boolean[s.n()];
        Arrays.fill(active, true);
        Policy p = policy(s, lever, budget, g, active);
        Sampler sampler = Samplers.byName(g.sampler());
        int eos = s.tok().endOfText();
        List<String> texts = new ArrayList<>();
        long publicTop1 = 0;
        long steps = 0;
        long tokens = 0;
        long fails = 0;
        long withPrivate = 0;
        long started = 0;
        boolean exhausted = false;
        for (int q = 0; q < g.sequences() && !exhausted; q++) {
            List<Integer> gen = new ArrayList<>();
            int attempt = 0;
            while (!exhausted && gen.size() < g.maxSteps()) {
                int[] prefix = gen.stream().mapToInt(Integer::intValue).toArray();
                long seed = SeedDerivation.stepSeed(g.runSeed(), "s" + q, gen.size(), attempt);
                int t = p.decide(step(s, prefix, seed, active, sampler));
                if (t == -2) {
                    exhausted = true;
                    break;
                }
                steps++;
                // min-tokens: a stop token before it counts as ⊥
                if (t < 0 || (gen.size() < g.minTokens() && stops(s.tok(), t, eos))) {
                    fails++;
                    int max = gen.isEmpty() ? g.firstAttempts() : g.maxAttempts();
                    if (++attempt < max) {
                        continue;
                    }
                    break;
                }
                attempt = 0;
                tokens++;
                NgramModel.Next top = s.publicModel().next("", prefix, 1);
                if (top.tokens().length > 0 && top.tokens()[0] == t) {
                    publicTop1++;
                }
                if (stops(s.tok(), t, eos)) {
                    break;
                }
                gen.add(t);
            }
            if (exhausted && gen.isEmpty() && attempt == 0) {
                break; // the budget refused this sequence's first step: it never started
            }
            started++;
            String text = s.tok().decode(gen.stream().mapToInt(Integer::intValue).toArray());
            texts.add(text);
            withPrivate += gen.isEmpty() ? 0 : 1;
            if (samples != null) {
                samples.println(lever + "\t" + text);
            }
        }
        Fidelity.Summary f = s.fidelity().summarize(texts);
        return new Result(
                lever,
                tokens,
                g.sequences(),
                started,
                withPrivate / (double) Math.max(1, started),
                f.fidelity(),
                steps,
                fails,
                p.accounting(),
                (System.nanoTime() - t0) / 1e9,
                s.origin().summarize(texts, publicTop1, tokens));
    }

    private static boolean stops(Tokenizer tok, int t, int eos) {
        return t == eos || tok.decode(new int[] {t}).contains("\n");
    }

    static Policy policy(
            Setup s, String lever, PrivacyBudget budget, Generation g, boolean[] active) {
        String[] a = lever.split(":");
        UniformSource noise = NoiseSources.secure();
        int v = s.tok().vocabularySize();
        switch (a[0]) {
            case "auto":
                AutoPlanner.Plan plan =
                        AutoPlanner.plan(
                                new AutoPlanner.Inputs(
                                        s.n(),
                                        v,
                                        true,
                                        budget,
                                        (long) g.sequences() * g.maxSteps()));
                // the mechanism the job runs for mechanism: auto, with every planned parameter
                return ensemble(
                        s,
                        budget,
                        Mechanisms.create(plan.mechanism(), plan.params(), v, s.n(), noise),
                        plan.explanation());
            case "confident-gnmax":
                return ensemble(
                        s,
                        budget,
                        new ConfidentGnmaxMechanism(d(a[1]), d(a[2]), d(a[3]), v, s.n(), noise),
                        lever);
            case "checked":
                return checked(
                        s,
                        budget,
                        d(a[1]),
                        d(a[2]),
                        d(a[3]),
                        d(a[4]),
                        a.length > 5 ? d(a[5]) : d(a[2]),
                        noise);
            case "stability":
                return stability(budget, d(a[1]), d(a[2]), noise);
            case "scheme-a":
                return schemeA(s, budget, d(a[1]), (long) d(a[2]), (long) d(a[3]), active, noise);
            case "scheme-b":
                return schemeB(s, budget, d(a[1]), d(a[2]), d(a[3]), active, noise);
            default:
                throw new IllegalArgumentException("unknown lever " + lever);
        }
    }

    private static double d(String x) {
        return Double.parseDouble(x);
    }

    private static Policy ensemble(
            Setup s, PrivacyBudget budget, AggregationMechanism m, String what) {
        PrivacyEvent worst = m.worstCaseEvent();
        EnsembleBudgetFilter f = filter(s, budget, worst);
        long[] noiseTokens = new long[1];
        return new Policy() {
            @Override
            public int decide(Step st) {
                if (!f.canAfford(worst)) {
                    return -2;
                }
                var r = m.release(st.histogram);
                f.charge(r.event(), worst);
                if (!r.isFail() && st.histogram.count(r.token().getAsInt()) == 0) {
                    noiseTokens[0]++; // a token no teacher voted for won the noisy argmax
                }
                return r.isFail() ? -1 : r.token().getAsInt();
            }

            @Override
            public String accounting() {
                return String.format(
                        Locale.ROOT,
                        "ensemble filter, eps %.3f; noise tokens %d; %s",
                        f.spentEpsilon(),
                        noiseTokens[0],
                        what);
            }
        };
    }

    /**
     * Confident-GNMax whose answer is checked: after the noisy argmax j, j is released only if c_j
     * + N_ℤ(0, σ3²) ≥ T (a sensitivity-1 count of the chosen token; adaptive composition), else ⊥.
     */
    private static Policy checked(
            Setup s,
            PrivacyBudget budget,
            double s1,
            double t,
            double s2,
            double s3,
            double checkThreshold,
            UniformSource noise) {
        ConfidentGnmaxMechanism m =
                new ConfidentGnmaxMechanism(s1, t, s2, s.tok().vocabularySize(), s.n(), noise);
        PrivacyEvent check = new PrivacyEvent.DiscreteGaussian(s3, 1);
        PrivacyEvent worst =
                new PrivacyEvent.Composed(java.util.List.of(m.worstCaseEvent(), check));
        EnsembleBudgetFilter f = filter(s, budget, worst);
        DiscreteGaussian g3 = DiscreteGaussian.withSigma(s3);
        long[] st = new long[3];
        return new Policy() {
            @Override
            public int decide(Step step) {
                if (!f.canAfford(worst)) {
                    return -2;
                }
                var r = m.release(step.histogram);
                if (r.isFail()) {
                    f.charge(r.event(), worst);
                    return -1;
                }
                f.charge(new PrivacyEvent.Composed(java.util.List.of(r.event(), check)), worst);
                int j = r.token().getAsInt();
                int c = step.histogram.count(j);
                if (c + g3.sample(noise.forCurrentThread()) < checkThreshold) {
                    st[c == 0 ? 0 : 1]++;
                    return -1;
                }
                if (c == 0) {
                    st[2]++;
                }
                return j;
            }

            @Override
            public String accounting() {
                return String.format(
                        Locale.ROOT,
                        "ensemble filter, eps %.3f; checked out: %d noise, %d voted; noise"
                                + " released %d",
                        f.spentEpsilon(),
                        st[0],
                        st[1],
                        st[2]);
            }
        };
    }

    /**
     * Algorithm 2 with a stability test: d = the fewest votes to change so that the argmax changes
     * (sensitivity 1); release the exact argmax iff d + N_ℤ(0, σ²) ≥ T. Accounted as
     * DiscreteGaussian(σ, 1) per step in the run filter plus δ₀ = Pr[N ≥ T − 1] per step (reported:
     * when the argmax differs between neighbours, d = 1 in both).
     */
    private static Policy stability(
            PrivacyBudget budget, double sigma, double t, UniformSource noise) {
        PrivacyEvent ev = new PrivacyEvent.DiscreteGaussian(sigma, 1);
        EnsembleBudgetFilter f = filter(null, budget, ev);
        DiscreteGaussian g = DiscreteGaussian.withSigma(sigma);
        double delta0 = upperTail(sigma, t - 1);
        long[] n = new long[1];
        return new Policy() {
            @Override
            public int decide(Step st) {
                if (!f.canAfford(ev)) {
                    return -2;
                }
                f.charge(ev, ev);
                n[0]++;
                int[] tk = st.histogram.tokens();
                int[] ct = st.histogram.counts();
                if (tk.length == 0) {
                    return -1;
                }
                int j = st.histogram.argmax().getAsInt();
                int c1 = st.histogram.count(j);
                long dist = Math.max(1, (c1 + 1) / 2); // a token nobody voted for
                for (int i = 0; i < tk.length; i++) {
                    if (tk[i] != j) {
                        long m = tk[i] < j ? (c1 - ct[i] + 1) / 2 : (c1 - ct[i]) / 2 + 1;
                        dist = Math.min(dist, m);
                    }
                }
                return dist + g.sample(noise.forCurrentThread()) >= t ? j : -1;
            }

            @Override
            public String accounting() {
                return String.format(
                        Locale.ROOT,
                        "ensemble filter, eps %.3f (Gaussian part), delta %.2e over %d steps",
                        f.spentEpsilon(),
                        delta0 * n[0],
                        n[0]);
            }
        };
    }

    private static double upperTail(double sigma, double x) {
        double s = 0;
        for (long k = (long) Math.ceil(x); k < x + 40 * sigma; k++) {
            s += DiscreteGaussian.pmf(sigma * sigma, k);
        }
        return s;
    }

    /** Scheme A (BetweenThresholds, target charging) on the public proposal, replace-one τ. */
    private static Policy schemeA(
            Setup s,
            PrivacyBudget budget,
            double eps,
            long lower,
            long upper,
            boolean[] active,
            UniformSource noise) {
        int tau =
                ChargePlanning.schemeATau(
                        budget.epsilon(),
                        budget.delta(),
                        eps,
                        upper - lower,
                        NeighbourRelation.REPLACE_ONE);
        Rational e = Rational.atMost(eps); // scale 1/e never below 1/ε
        DiscreteLaplace lap =
                DiscreteLaplace.withScale(Rational.of(e.denominator(), e.numerator()));
        int[] charges = new int[s.n()];
        long[] stat = new long[3];
        return new Policy() {
            @Override
            public int decide(Step st) {
                List<Integer> inv = new ArrayList<>();
                for (int i = 0; i < s.n(); i++) {
                    if (active[i] && st.votes[i] == st.proposal) {
                        inv.add(i);
                    }
                }
                long z = inv.size() + lap.sample(noise.forCurrentThread());
                if (z < lower) {
                    return -1;
                }
                if (z <= upper) {
                    stat[0]++;
                    for (int i : inv) {
                        stat[1]++;
                        if (++charges[i] >= tau) {
                            active[i] = false;
                            stat[2]++;
                        }
                    }
                }
                return st.proposal;
            }

            @Override
            public String accounting() {
                return "per-user tau "
                        + tau
                        + " (replace-one), between "
                        + stat[0]
                        + ", charges "
                        + stat[1]
                        + ", retired "
                        + stat[2];
            }
        };
    }

    /** Scheme B (Gaussian count, Feldman–Zrnic filter) on the public proposal, replace-one K. */
    private static Policy schemeB(
            Setup s,
            PrivacyBudget budget,
            double sigma,
            double threshold,
            double rate,
            boolean[] active,
            UniformSource noise) {
        long k =
                ChargePlanning.schemeB(
                                budget.epsilon(),
                                budget.delta(),
                                sigma,
                                NeighbourRelation.REPLACE_ONE)
                        .k();
        DiscreteGaussian g = DiscreteGaussian.withSigma(sigma);
        int[] charges = new int[s.n()];
        long[] stat = new long[2];
        return new Policy() {
            @Override
            public int decide(Step st) {
                PublicChargingRandomness pr =
                        PublicChargingRandomness.of(st.randomness.stepSeed(), rate, st.proposal);
                int c = 0;
                for (int i = 0; i < s.n(); i++) {
                    if (active[i] && st.votes[i] == st.proposal && pr.included(i)) {
                        c++;
                        stat[0]++;
                        if (++charges[i] >= k) {
                            active[i] = false;
                            stat[1]++;
                        }
                    }
                }
                return c + g.sample(noise.forCurrentThread()) >= threshold ? st.proposal : -1;
            }

            @Override
            public String accounting() {
                return "per-user K "
                        + k
                        + " (replace-one), charges "
                        + stat[0]
                        + ", retired "
                        + stat[1];
            }
        };
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        PrivacyBudget b =
                new PrivacyBudget(
                        Double.parseDouble(o.getOrDefault("epsilon", "4")),
                        Double.parseDouble(o.getOrDefault("delta", "1e-6")));
        Generation g =
                new Generation(
                        Integer.parseInt(o.getOrDefault("sequences", "600")),
                        Integer.parseInt(o.getOrDefault("max-steps", "12")),
                        Integer.parseInt(o.getOrDefault("max-attempts", "5")),
                        Integer.parseInt(o.getOrDefault("first-attempts", "20")),
                        Integer.parseInt(o.getOrDefault("min-tokens", "1")),
                        Long.parseLong(o.getOrDefault("seed", "7")),
                        o.getOrDefault("sampler", "coordinated"));
        int order = Integer.parseInt(o.getOrDefault("order", "3"));
        Setup s =
                setup(
                        Path.of(o.get("records")),
                        new RecordFields(
                                o.getOrDefault("user-field", "user"),
                                o.getOrDefault("text-field", "text"),
                                "",
                                "",
                                1 << 20),
                        Path.of(o.get("public-file")),
                        order,
                        Integer.parseInt(
                                o.getOrDefault(
                                        "public-order", "" + NgramModel.defaultPublicOrder(order))),
                        Double.parseDouble(
                                o.getOrDefault(
                                        "public-weight", "" + NgramModel.DEFAULT_PUBLIC_WEIGHT)),
                        PriorOption.parse(o.get("prior")),
                        b,
                        (long) g.sequences() * g.maxSteps(),
                        !"none".equals(o.getOrDefault("backoff", "public")));
        PrintStream samples =
                o.containsKey("samples")
                        ? new PrintStream(new java.io.FileOutputStream(o.get("samples"), true))
                        : null;
        for (String lever : o.get("lever").split(",")) {
            Result r = run(s, lever, b, g, samples);
            String name = r.lever() + (o.containsKey("prior") ? " + prior " + o.get("prior") : "");
            if (!g.sampler().equals("coordinated")) {
                name += " (" + g.sampler() + ")";
            }
            r =
                    new Result(
                            name,
                            r.tokens(),
                            r.sequences(),
                            r.started(),
                            r.nonEmptyShare(),
                            r.fidelity(),
                            r.steps(),
                            r.fails(),
                            r.accounting(),
                            r.seconds(),
                            r.origin());
            System.out.println(
                    new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(r));
        }
    }
}
