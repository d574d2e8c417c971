package org.hotpate.eval.records;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.generation.FailPolicy;
import org.hotpate.core.generation.GenerationLoop;
import org.hotpate.core.generation.PateTextGeneration;
import org.hotpate.core.generation.PmixedMechanism;
import org.hotpate.core.generation.PmixedParams;
import org.hotpate.core.generation.TextGenerationMethod;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.AutoPlanner;
import org.hotpate.core.mechanism.HotPateHomogeneousMechanism;
import org.hotpate.core.mechanism.Mechanisms;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.privacy.PmixedPrivacy;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.teachers.ngram.NgramModel;

/**
 * The records evaluation's text-generation methods: hot and cold PATE and PMixED, each through the
 * job's {@link GenerationLoop} under its own {@link EnsembleBudgetFilter}.
 */
final class TextGenerationMethods {
    private TextGenerationMethods() {}

    /**
     * Hot and cold PATE with one mechanism for both (equal ε, equal parameters): with {@code
     * --pate-sigma}, Algorithm 2 ({@code hot-pate}) at that σ; otherwise {@code mechanism: auto}
     * ({@link AutoPlanner}) planned for the sequences × max-tokens of the evaluation, as a job
     * spec's {@code auto} would be. Teachers are one per user, so the plan is heterogeneous.
     */
    static MethodOutput pate(String method, MethodContext c) throws Exception {
        RecordsEvaluation.Options o = c.o();
        Map<String, Object> d = new LinkedHashMap<>();
        AggregationMechanism mech;
        if (o.pateSigma() != null) {
            HotPateHomogeneousMechanism hp = hotPate(o.pateSigma(), c.vocab(), c.n());
            d.put("mechanism", HotPateHomogeneousMechanism.NAME);
            d.put("sigma", RecordsEvaluation.round(o.pateSigma()));
            d.put("threshold", RecordsEvaluation.round(c.n() / 2.0 + hp.errorBound()));
            mech = hp;
        } else {
            AutoPlanner.Plan plan =
                    AutoPlanner.plan(
                            new AutoPlanner.Inputs(
                                    c.n(), c.vocab(), true, o.budget(), c.plannedSteps()));
            d.put("mechanism", plan.mechanism());
            d.put("planned_by", AutoPlanner.NAME);
            plan.params().forEach((k, v) -> d.put(k, RecordsEvaluation.round(v)));
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

    static MethodOutput pmixed(MethodContext c) throws Exception {
        RecordsEvaluation.Options o = c.o();
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
        d.put("radius", RecordsEvaluation.round(best.radius()));
        return generate(new PmixedMechanism(best), c, d);
    }

    private static MethodOutput generate(
            TextGenerationMethod m, MethodContext c, Map<String, Object> d) {
        RecordsEvaluation.Options o = c.o();
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
                        c.publicModel() == null ? FailPolicy.STOP : FailPolicy.FALLBACK,
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
            String key = c.labelled() ? MethodContext.labelKey(k) : "";
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

                        @Override
                        public TeacherDistribution next(int teacher, int[] prefix) {
                            try {
                                // the public side of a prefix is computed once, on the public
                                // model, for every teacher backing off to it
                                NgramModel.Next x =
                                        c.teachers().get(teacher).next(key, prefix, o.topK());
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
        return new MethodOutput(
                m.name(),
                texts,
                labels.stream().mapToInt(Integer::intValue).toArray(),
                tokens,
                budget.spentEpsilon(),
                d,
                publicTokens);
    }

    /** {@code total} split as evenly as possible over {@code parts} (earlier parts get more). */
    static int[] split(int total, int parts) {
        int[] out = new int[parts];
        for (int i = 0; i < parts; i++) {
            out[i] = total / parts + (i < total % parts ? 1 : 0);
        }
        return out;
    }

    private static int[] stripStop(int[] g, int stop) {
        return g.length > 0 && g[g.length - 1] == stop ? Arrays.copyOf(g, g.length - 1) : g;
    }
}
