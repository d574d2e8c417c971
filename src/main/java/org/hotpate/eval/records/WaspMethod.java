package org.hotpate.eval.records;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.wasp.PrivateSample;
import org.hotpate.core.wasp.SyntheticCandidate;
import org.hotpate.core.wasp.Wasp;
import org.hotpate.core.wasp.WaspParams;
import org.hotpate.core.wasp.WaspVoting;
import org.hotpate.eval.TextEmbedding;
import org.hotpate.teachers.ngram.InMemoryContextStore;
import org.hotpate.teachers.ngram.NgramDistributions;
import org.hotpate.teachers.ngram.NgramModel;

/**
 * The records evaluation's WASP: private samples are the teaching users' embedded records (at most
 * {@code --wasp-max-per-user} each); the "PLMs" are the public model at {@link #TEMPERATURES},
 * sampled with public randomness only.
 */
final class WaspMethod {
    /** The public PLMs' sampling temperatures (one PLM per temperature). */
    static final double[] TEMPERATURES = {0.7, 1.0, 1.4};

    private WaspMethod() {}

    static MethodOutput run(MethodContext c) throws Exception {
        RecordsEvaluation.Options o = c.o();
        TextEmbedding emb = new TextEmbedding(RecordsEvaluation.EMBEDDING_DIMENSION);
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
                        int[] text = samplePublic(c, context, TEMPERATURES[plm], publicRandom);
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
                Wasp.run(params, c.classes(), TEMPERATURES.length, source, samples, budget, voting);
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
        d.put("sigma", RecordsEvaluation.round(params.sigma()));
        d.put("sensitivity", RecordsEvaluation.round(params.sensitivity()));
        d.put("voting_rounds", r.votingRounds());
        d.put("private_samples", samples.size());
        d.put("plm_temperatures", TEMPERATURES);
        d.put("budget_exhausted", r.budgetExhausted());
        return new MethodOutput(
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
            MethodContext c, NgramModel context, double temperature, SplittableRandom rnd) {
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
}
