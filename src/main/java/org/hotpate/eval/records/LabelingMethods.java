package org.hotpate.eval.records;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleFunction;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.labeling.Labeler;
import org.hotpate.core.labeling.LabelingLoop;
import org.hotpate.core.labeling.LabelingQuery;
import org.hotpate.core.labeling.NaiveBayes;
import org.hotpate.core.labeling.PateinLabeler;
import org.hotpate.core.labeling.PromptPateLabeler;
import org.hotpate.core.labeling.PublicRouting;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.eval.TextEmbedding;

/**
 * The records evaluation's labelers, PromptPATE and PATEin: one naive-Bayes classifier per teaching
 * user labels public texts by Confident-GNMax, σ calibrated so every query fits the budget.
 */
final class LabelingMethods {
    /** PATEin's consistency τ (paper default 0.9): the threshold is τ·m of the m routed votes. */
    static final double PATEIN_CONSISTENCY = 0.9;

    private LabelingMethods() {}

    static MethodOutput label(String method, MethodContext c) throws Exception {
        RecordsEvaluation.Options o = c.o();
        checkArgument(
                o.publicFile() != null, method + " labels public texts: it needs --public-file");
        List<String> publicTexts =
                PublicTexts.read(o.publicFile(), o.fields().textField(), o.labelQueries());
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
        TextEmbedding emb = new TextEmbedding(RecordsEvaluation.EMBEDDING_DIMENSION);
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
        d.put("mechanism", MechanismRegistry.CONFIDENT_GNMAX);
        d.put("sigma", RecordsEvaluation.round(sigma));
        d.put("threshold", RecordsEvaluation.round(threshold));
        d.put("routed_teachers", routed);
        d.put("queries", r.charged());
        d.put("answered", r.answered());
        d.put("budget_exhausted", r.budgetExhausted());
        return new MethodOutput(
                method,
                texts,
                labels.stream().mapToInt(Integer::intValue).toArray(),
                0,
                r.spentEpsilon(),
                d);
    }

    /**
     * The smallest σ (to 0.1 %) whose worst-case release fits {@code steps} times in the budget.
     */
    static double calibrateSigma(
            PrivacyBudget budget, long steps, DoubleFunction<PrivacyEvent> event) {
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
}
