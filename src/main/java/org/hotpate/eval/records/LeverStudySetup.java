package org.hotpate.eval.records;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.mechanism.AutoPlanner;
import org.hotpate.core.mechanism.Mechanisms;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.prior.DpNgramExtraction;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;
import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.eval.Fidelity;
import org.hotpate.eval.TextOrigin;
import org.hotpate.teachers.ngram.InMemoryContextStore;
import org.hotpate.teachers.ngram.NgramModel;
import org.hotpate.teachers.ngram.PopulationPrior;
import org.hotpate.teachers.ngram.PublicModels;
import org.hotpate.teachers.records.RecordFields;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The {@link LeverStudy}'s corpus, its teachers (one Witten–Bell n-gram per user over the public
 * model, a DP population prior or nothing) and the public model; and the run filter every lever
 * charges, the prior's release first.
 */
record LeverStudySetup(
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

    /**
     * A population prior for the study ({@code --prior share:k[:length]}): the share of the run
     * filter's RDP budget at its order that the DP n-gram release spends, and its per-user bound.
     */
    record PriorOption(double share, int perUser, int maxLength) {
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

    /**
     * Each teacher's records: one user per teacher ({@code usersPerTeacher} 1), or every user's
     * records in teacher (a hash of the user id) mod ⌈N / usersPerTeacher⌉ — a function of the id
     * alone, so replacing one user's data changes one teacher, as with one user per teacher, and
     * the number of teachers is a function of N (public).
     */
    static List<List<int[]>> teacherData(Map<String, List<int[]>> byUser, int usersPerTeacher) {
        if (usersPerTeacher <= 1) {
            return new ArrayList<>(byUser.values());
        }
        int m = (byUser.size() + usersPerTeacher - 1) / usersPerTeacher;
        List<List<int[]>> groups = new ArrayList<>();
        for (int i = 0; i < m; i++) {
            groups.add(new ArrayList<>());
        }
        for (Map.Entry<String, List<int[]>> e : byUser.entrySet()) {
            long h = org.hotpate.core.randomness.SeedDerivation.teacherKey(e.getKey());
            groups.get((int) Math.floorMod(h, (long) m)).addAll(e.getValue());
        }
        groups.removeIf(List::isEmpty);
        return groups;
    }

    static LeverStudySetup load(
            Path records,
            RecordFields fields,
            Path publicFile,
            int order,
            int publicOrder,
            double publicWeight,
            PriorOption priorOption,
            PrivacyBudget budget,
            long plannedPositions,
            boolean publicBackoff,
            int usersPerTeacher)
            throws Exception {
        Tokenizer tok = Tokenizer.named("cl100k_base");
        RecordsCorpus corpus = RecordsCorpus.load(records, fields, tok);
        NgramModel pub =
                PublicModels.load(publicFile.toString(), fields.textField(), tok, publicOrder);
        Map<String, List<int[]>> byUser = new TreeMap<>();
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
        for (List<int[]> l : teacherData(byUser, usersPerTeacher)) {
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
        return new LeverStudySetup(
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
    static EnsembleBudgetFilter filter(
            LeverStudySetup s, PrivacyBudget budget, PrivacyEvent worst) {
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
}
