package org.hotpate.eval.records;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.io.PrintStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.hotpate.eval.Fidelity;
import org.hotpate.teachers.ngram.InMemoryContextStore;
import org.hotpate.teachers.ngram.NgramModel;
import org.hotpate.teachers.ngram.PublicModels;
import org.hotpate.teachers.text.Tokenizer;

/**
 * The records evaluation's setup: reads the records, keeps a seeded subset of users when asked,
 * splits USERS into teaching and held-out (held-out users never teach), plants the canaries, and
 * builds one n-gram teacher per teaching user over the public model.
 *
 * @param corpus the records as read (before the user subset)
 * @param split the teaching/held-out split of the kept users
 * @param context what every method runs in
 * @param testTexts the held-out users' records
 * @param testLabels their labels (−1 without a label field)
 * @param canaries the planted canaries
 * @param fidelity fidelity against the private and public texts (null without a public file)
 */
record RecordsSetup(
        RecordsCorpus corpus,
        UserSplit split,
        MethodContext context,
        List<int[]> testTexts,
        int[] testLabels,
        RecordsCanaries canaries,
        Fidelity fidelity) {

    /** Prepares a run ({@code t0}: the run's start, for the progress line's seconds). */
    static RecordsSetup prepare(RecordsEvaluation.Options o, PrintStream progress, long t0)
            throws Exception {
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

        RecordsCanaries canaries =
                RecordsCanaries.plant(o.canaries(), tok, o.seed(), users, byUser);

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
                    m.add(MethodContext.labelKey(r.label()), r.tokens());
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
                                PublicTexts.read(
                                        o.publicFile(), o.fields().textField(), Integer.MAX_VALUE));
        MethodContext ctx =
                new MethodContext(
                        o, tok, vocab, n, classes, teachers, publicModel, prompts, byUser, users);
        return new RecordsSetup(
                corpus,
                split,
                ctx,
                testTexts,
                testLabels.stream().mapToInt(Integer::intValue).toArray(),
                canaries,
                fidelity);
    }

    private static List<int[]> prompts(RecordsEvaluation.Options o, Tokenizer tok)
            throws Exception {
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

    private static List<RecordsCorpus.Rec> keepUsers(
            List<RecordsCorpus.Rec> recs, int max, long seed) {
        List<String> users =
                UserSplit.shuffle(
                        recs.stream().map(RecordsCorpus.Rec::user).distinct().sorted().toList(),
                        seed + 2);
        if (users.size() <= max) {
            return recs;
        }
        Set<String> keep = new HashSet<>(users.subList(0, max));
        return recs.stream().filter(r -> keep.contains(r.user())).toList();
    }
}
