package org.hotpate.eval.records;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hotpate.core.mechanism.AutoPlanner;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.core.sampling.Sampler;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.eval.Fidelity;
import org.hotpate.eval.TextOrigin;
import org.hotpate.teachers.ngram.NgramModel;
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
 *   [--prior share:k[:length]] [--backoff none] [--users-per-teacher g] ...
 * </pre>
 *
 * Levers: {@code confident-gnmax:σ1:T:σ2} (the ensemble filter; any ensemble mechanism of the
 * registry takes its parameters in its {@code MechanismRegistry.Entry#shorthand()} order), {@code
 * auto} ({@link AutoPlanner}), {@code stability:σ:T} (Algorithm 2 with a distance-to-instability
 * test: exact argmax released when d + N(0, σ²) ≥ T; its δ per step is Pr[N ≥ T − 1], reported),
 * {@code scheme-a:ε:lower:upper} (integer band) and {@code scheme-b:σ:threshold:rate} (individual
 * charging with the public model's coordinated proposal, per-user limits under replace-one, as the
 * job plans them: the scheme's registry entry, {@code IndividualPlan}, half the add/remove limit).
 * Teachers: {@code --prior share:k[:length]} backs them off to a DP n-gram population prior (the
 * job's {@code teacher.prior: dp-ngram}, charged first to each lever's filter), {@code --backoff
 * none} to nothing (their own records only); {@code --users-per-teacher g} gives each teacher the
 * records of about g users (grouped by a hash of the user id, {@link LeverStudySetup#teacherData}).
 * {@code --public-confident p} appends, without a vote or a charge, the public model's top-1 token
 * wherever the public model alone gives it at least p (a function of public data and released
 * tokens only; counted as {@code publicTokens}, never as released tokens), once a record has its
 * {@code --min-tokens} private tokens. Each result also says whose words the text is ({@link
 * TextOrigin}: distinct records, the 10 most common records' share, public-only records, the public
 * model's top-1 share of the released tokens). This is a measuring tool: its noise is secure, but
 * it is not the job, and its numbers are what docs/privacy-efficiency.md reports, not guarantees of
 * a run.
 *
 * <p>The corpus and teachers are {@link LeverStudySetup}, one step's votes {@link LeverStep}, the
 * levers {@link LeverPolicies}; this class runs the sequences and measures.
 */
public final class LeverStudy {
    private LeverStudy() {}

    /** One run's figures. */
    public record Result(
            String lever,
            long tokens,
            long publicTokens,
            long sequences,
            long started,
            double nonEmptyShare,
            double fidelity,
            long steps,
            long fails,
            String accounting,
            double seconds,
            TextOrigin.Summary origin) {}

    /** Generation options of a study run (the job's: ⊥ resamples; a stop token ends a record). */
    public record Generation(
            int sequences,
            int maxSteps,
            int maxAttempts,
            int firstAttempts,
            int minTokens,
            long runSeed,
            String sampler,
            double publicConfident) {}

    public static Result run(
            LeverStudySetup s,
            String lever,
            PrivacyBudget budget,
            Generation g,
            PrintStream samples)
            throws Exception {
        long t0 = System.nanoTime();
        boolean[] active = new boolean[s.n()];
        Arrays.fill(active, true);
        LeverPolicies.Policy p = LeverPolicies.of(s, lever, budget, g, active);
        Sampler sampler = Samplers.byName(g.sampler());
        int eos = s.tok().endOfText();
        List<String> texts = new ArrayList<>();
        long publicTop1 = 0;
        long steps = 0;
        long tokens = 0;
        long fails = 0;
        long withPrivate = 0;
        long started = 0;
        long publicTokens = 0;
        boolean exhausted = false;
        for (int q = 0; q < g.sequences() && !exhausted; q++) {
            List<Integer> gen = new ArrayList<>();
            int privateHere = 0;
            int attempt = 0;
            NgramModel.Next pub = null;
            int pubAt = -1;
            while (!exhausted && gen.size() < g.maxSteps()) {
                int[] prefix = gen.stream().mapToInt(Integer::intValue).toArray();
                if (pubAt != gen.size()) { // the public model's top-1 at this prefix, once
                    pub = s.publicModel().next("", prefix, 1);
                    pubAt = gen.size();
                }
                if (g.publicConfident() > 0 && attempt == 0 && privateHere >= g.minTokens()) {
                    // --public-confident p: where the public model alone puts ≥ p on one token,
                    // that token is appended without a vote (public data only: no charge)
                    if (pub.tokens().length > 0 && pub.probs()[0] >= g.publicConfident()) {
                        if (stops(s.tok(), pub.tokens()[0], eos)) {
                            break;
                        }
                        gen.add(pub.tokens()[0]);
                        publicTokens++;
                        continue;
                    }
                }
                long seed = SeedDerivation.stepSeed(g.runSeed(), "s" + q, gen.size(), attempt);
                int t = p.decide(LeverStep.at(s, prefix, seed, active, sampler));
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
                privateHere++;
                if (pub.tokens().length > 0 && pub.tokens()[0] == t) {
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
            withPrivate += privateHere == 0 ? 0 : 1;
            if (samples != null) {
                samples.println(lever + "\t" + text);
            }
        }
        Fidelity.Summary f = s.fidelity().summarize(texts);
        return new Result(
                lever,
                tokens,
                publicTokens,
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
                        o.getOrDefault("sampler", "coordinated"),
                        Double.parseDouble(o.getOrDefault("public-confident", "0")));
        int order = Integer.parseInt(o.getOrDefault("order", "3"));
        LeverStudySetup s =
                LeverStudySetup.load(
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
                        LeverStudySetup.PriorOption.parse(o.get("prior")),
                        b,
                        (long) g.sequences() * g.maxSteps(),
                        !"none".equals(o.getOrDefault("backoff", "public")),
                        Integer.parseInt(o.getOrDefault("users-per-teacher", "1")));
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
                            r.publicTokens(),
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
