package org.hotpate.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.hotpate.core.mechanism.Mechanisms;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.sampling.NamedDistribution;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.hotpate.eval.EvalEnsemble;
import org.hotpate.eval.Evaluation;
import org.hotpate.eval.PrivacyEfficiency;
import org.hotpate.eval.Progress;
import org.hotpate.eval.ReportWriter;
import org.hotpate.eval.YieldSweep;
import org.hotpate.teachers.AlphaMixtureEnsemble;
import org.hotpate.teachers.PlanetZEnsemble;

/**
 * {@code ./hotpate evaluate}: what coordination buys — coverage, sparsity, TV distance, robust
 * mass, yield vs α and tokens per unit of ε for hot (coordinated) vs cold (independent) PATE, on
 * the built-in Planet-Z-like and α-mixture ensembles or on recorded distributions. Writes {@code
 * evaluation.json}, PNG plots and a self-contained {@code report.html} (docs/evaluation.md).
 */
public final class EvaluateCommand implements Command {
    static final int[] DEFAULT_THRESHOLDS = {50, 100, 200, 400, 1000, 2000, 5000};
    static final double[] DEFAULT_ALPHAS = {0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9};
    static final int MAX_VOCABULARY = 1 << 24;
    static final int MAX_DRAWS = 1_000_000;

    @Override
    public String name() {
        return "evaluate";
    }

    @Override
    public String summary() {
        return "hot vs cold PATE: coverage, sparsity, TV, robust mass, yield, tokens per epsilon; plots + HTML";
    }

    @Override
    public String help() {
        return """
                usage: ./hotpate evaluate --workload planet-z|alpha-mixture|recorded|records [OPTIONS] --out DIR

                Draws the ensemble r times with coordinated (hot PATE) and independent (cold PATE)
                sampling and reports, per threshold T: coverage (fraction of votes in tokens with
                count >= T), sparsity (distinct tokens with count >= T in some draw), TV distance
                to the average distribution, and the tau-robust mass P(tau = T) (Remark 3); then
                the tokens each DP mechanism yields at a fixed (epsilon, delta) budget, hot vs cold.

                workloads
                  planet-z        --k K (default 20) shared numbers, --teachers N (default 2000)
                                  (docs/workloads.md; the paper's Planet Z prompts, §5 and C.1)
                  alpha-mixture   --alpha A (required), --common-tokens m (default 100),
                                  --private-tokens q (default 1), --teachers N (default 2000);
                                  also sweeps --alphas LIST (default 0.01,...,0.9) for yield vs
                                  alpha at --yield-threshold T (default ceil(N/e))
                  recorded        --distributions FILE... (JSONL of ./hotpate sample, one file per
                                  step; the top-level metrics average the steps)
                """
                + EvaluateRecords.HELP.indent(2)
                + """

                common options
                  --draws R             draws per sampler (default 100)
                  --thresholds T1,T2..  vote-count thresholds (default 50,100,200,400,1000,2000,5000)
                  --seed S              public seed: ensemble generation and step seeds (default 1)
                  --out DIR             output directory (required): evaluation.json, *.png, report.html
                  --epsilon E           privacy-efficiency budget epsilon (default 1)
                  --delta D             privacy-efficiency budget delta (default 1e-6)
                  --mechanisms LIST     of gnmax,confident-gnmax,hot-pate,lnmax, or none (default:
                                        all; none for alpha-mixture, whose |V| grows with n)
                  --max-steps K         cap on steps per privacy-efficiency run (default 200000)
                  --min-precision P     noise settings must release >= P useful tokens per token
                                        released (default 0.9; useful = the noise-free plurality)
                  --threads P           worker threads for the draws (default: available cores)
                  --quiet               no progress bar on stderr

                example (the paper's k = 100 setting; ~4 min on 2 cores):
                  ./hotpate evaluate --workload planet-z --k 100 --teachers 10000 --draws 1000 \\
                      --thresholds 50,100,200,400,1000,2000,5000 --seed 1 --out out/k100
                """;
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (EvaluateRecords.wanted(args)) {
            return EvaluateRecords.run(args, out, err);
        }
        CliArgs a =
                CliArgs.parse(
                        args,
                        Set.of(
                                "workload",
                                "k",
                                "teachers",
                                "draws",
                                "thresholds",
                                "seed",
                                "out",
                                "alpha",
                                "common-tokens",
                                "private-tokens",
                                "alphas",
                                "yield-threshold",
                                "epsilon",
                                "delta",
                                "mechanisms",
                                "max-steps",
                                "min-precision",
                                "threads"),
                        Set.of("quiet"),
                        Set.of("distributions"));
        if (!a.positional().isEmpty()) {
            throw new UsageException(
                    "unexpected argument '" + a.positional().get(0) + "' (see --help)");
        }
        String workload = a.required("workload");
        Path outDir = Path.of(a.required("out"));
        int draws = a.intValue("draws", 100);
        if (draws < 1 || draws > MAX_DRAWS) {
            throw new UsageException("--draws must be in [1, " + MAX_DRAWS + "]; got " + draws);
        }
        int[] thresholds = a.intList("thresholds", DEFAULT_THRESHOLDS);
        for (int t : thresholds) {
            if (t < 1) {
                throw new UsageException("--thresholds must be positive integers; got " + t);
            }
        }
        long seed = a.longValue("seed", 1L);
        double epsilon = a.doubleValue("epsilon", 1.0);
        double delta = a.doubleValue("delta", 1e-6);
        if (!(epsilon > 0)) {
            throw new UsageException("--epsilon must be > 0; got " + epsilon);
        }
        if (!(delta > 0 && delta < 1)) {
            throw new UsageException("--delta must be in (0, 1); got " + delta);
        }
        // The alpha-mixture's vocabulary grows with n (one private token per teacher), which makes
        // every noisy argmax |V| = m + n noise draws: privacy efficiency is opt-in there.
        String defaultMechanisms =
                workload.equals("alpha-mixture")
                        ? "none"
                        : String.join(",", PrivacyEfficiency.MECHANISMS);
        List<String> mechanisms = mechanisms(a.string("mechanisms", defaultMechanisms));
        long maxSteps = a.longValue("max-steps", 200_000L);
        if (maxSteps < 1) {
            throw new UsageException("--max-steps must be >= 1; got " + maxSteps);
        }
        double minPrecision =
                a.doubleValue("min-precision", PrivacyEfficiency.DEFAULT_MIN_PRECISION);
        if (!(minPrecision >= 0 && minPrecision <= 1)) {
            throw new UsageException("--min-precision must be in [0, 1]; got " + minPrecision);
        }
        int threads = a.intValue("threads", Runtime.getRuntime().availableProcessors());
        if (threads < 1 || threads > 256) {
            throw new UsageException("--threads must be in [1, 256]; got " + threads);
        }

        Map<String, Object> info = new LinkedHashMap<>();
        info.put("workload", workload);
        List<EvalEnsemble> steps;
        Optional<Evaluation.YieldOptions> yield = Optional.empty();
        switch (workload) {
            case "planet-z" -> {
                rejectOptions(
                        a,
                        workload,
                        "alpha",
                        "common-tokens",
                        "private-tokens",
                        "alphas",
                        "yield-threshold",
                        "distributions");
                int k = a.intValue("k", 20);
                if (k < 1 || k >= PlanetZEnsemble.NUMBERS) {
                    throw new UsageException(
                            "--k must be in [1, " + (PlanetZEnsemble.NUMBERS - 1) + "]; got " + k);
                }
                int n = teachers(a);
                info.put("k", k);
                info.put("teachers", n);
                PlanetZEnsemble e = PlanetZEnsemble.create(seed, k, n);
                steps =
                        List.of(
                                EvalEnsemble.indexed(
                                        "planet-z", info, e.teachers(), e.vocabularySize()));
            }
            case "alpha-mixture" -> {
                rejectOptions(a, workload, "k", "distributions");
                double alpha = a.doubleValue("alpha", null);
                if (!(alpha > 0 && alpha <= 1)) {
                    throw new UsageException("--alpha must be in (0, 1]; got " + alpha);
                }
                int m = a.intValue("common-tokens", 100);
                int q = a.intValue("private-tokens", 1);
                if (m < 1 || q < 1) {
                    throw new UsageException(
                            "--common-tokens and --private-tokens must be >= 1; got "
                                    + m
                                    + " and "
                                    + q);
                }
                int n = teachers(a);
                if ((long) m + (long) n * q > MAX_VOCABULARY) {
                    throw new UsageException(
                            "--common-tokens + --teachers x --private-tokens must be <= "
                                    + MAX_VOCABULARY);
                }
                double[] alphas = alphas(a.doubleList("alphas", DEFAULT_ALPHAS), alpha);
                int ty = a.intValue("yield-threshold", YieldSweep.defaultThreshold(n));
                if (ty < 1) {
                    throw new UsageException("--yield-threshold must be >= 1; got " + ty);
                }
                info.put("alpha", alpha);
                info.put("commonTokens", m);
                info.put("privateTokens", q);
                info.put("teachers", n);
                AlphaMixtureEnsemble e = AlphaMixtureEnsemble.uniform(alpha, m, n, q);
                steps =
                        List.of(
                                EvalEnsemble.indexed(
                                        "alpha-mixture", info, e.teachers(), e.vocabularySize()));
                yield = Optional.of(new Evaluation.YieldOptions(alphas, m, q, n, ty));
            }
            case "recorded" -> {
                rejectOptions(
                        a,
                        workload,
                        "k",
                        "alpha",
                        "common-tokens",
                        "private-tokens",
                        "alphas",
                        "yield-threshold",
                        "teachers");
                List<String> files = a.all("distributions");
                if (files.isEmpty()) {
                    throw new UsageException("--workload recorded needs --distributions FILE...");
                }
                steps = new ArrayList<>();
                for (String f : files) {
                    steps.add(recorded(Path.of(f)));
                }
                info.put("files", files);
                info.put("teachers", steps.stream().map(EvalEnsemble::size).distinct().toList());
            }
            default ->
                    throw new UsageException(
                            "--workload must be one of planet-z, alpha-mixture, recorded, records; got '"
                                    + workload
                                    + "'");
        }
        info.put("draws", draws);
        info.put("seed", seed);
        info.put(
                "vocabularySize",
                steps.stream().mapToInt(EvalEnsemble::vocabularySize).max().orElseThrow());
        if (!mechanisms.isEmpty()) {
            info.put("epsilon", epsilon);
            info.put("delta", delta);
            info.put("minPrecision", minPrecision);
        }

        Evaluation.Options options =
                new Evaluation.Options(
                        thresholds,
                        draws,
                        seed,
                        threads,
                        mechanisms,
                        new PrivacyBudget(epsilon, delta),
                        maxSteps,
                        minPrecision,
                        yield);
        Progress progress = a.flag("quiet") ? Progress.NONE : Progress.to(err);
        long t0 = System.nanoTime();
        Evaluation.Result r =
                Evaluation.run(
                        steps,
                        options,
                        (name, params, vocabularySize, teachers) ->
                                Mechanisms.create(name, params, vocabularySize, teachers),
                        progress);
        double largest =
                r.steps().stream()
                        .mapToDouble(Evaluation.StepResult::largestAverageProbability)
                        .max()
                        .orElse(0);
        info.put("largestAverageProbability", largest);
        info.put("largestAverageProbabilityTimesN", largest * steps.get(0).size());
        String command = "./hotpate evaluate " + String.join(" ", args);
        List<Path> files = ReportWriter.write(r, info, command, outDir);
        out.printf(
                Locale.ROOT,
                "evaluated %s in %.1f s; wrote:%n",
                workload,
                (System.nanoTime() - t0) / 1e9);
        for (Path p : files) {
            out.println("  " + p);
        }
        return 0;
    }

    private static int teachers(CliArgs a) {
        int n = a.intValue("teachers", 2000);
        if (n < 1 || n > 10_000_000) {
            throw new UsageException("--teachers must be in [1, 10000000]; got " + n);
        }
        return n;
    }

    private static void rejectOptions(CliArgs a, String workload, String... keys) {
        for (String k : keys) {
            if (a.has(k)) {
                throw new UsageException("--" + k + " does not apply to --workload " + workload);
            }
        }
    }

    private static List<String> mechanisms(String list) {
        if (list.equals("none")) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (String m : list.split(",", -1)) {
            String name = m.trim();
            if (!PrivacyEfficiency.MECHANISMS.contains(name)) {
                throw new UsageException(
                        "--mechanisms must list names from "
                                + PrivacyEfficiency.MECHANISMS
                                + " (or be 'none'); got '"
                                + name
                                + "'");
            }
            if (!out.contains(name)) {
                out.add(name);
            }
        }
        return out;
    }

    private static double[] alphas(double[] list, double alpha) {
        TreeSet<Double> s = new TreeSet<>();
        for (double x : list) {
            if (!(x > 0 && x <= 1)) {
                throw new UsageException("--alphas must be in (0, 1]; got " + x);
            }
            s.add(x);
        }
        s.add(alpha);
        return s.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** One recorded step: every form converted to sparse probabilities (same law per teacher). */
    private static EvalEnsemble recorded(Path file) {
        List<NamedDistribution> teachers = DistributionFiles.read(file);
        if (teachers.isEmpty()) {
            throw new UsageException(file + ": no teachers in the file");
        }
        List<String> ids = new ArrayList<>();
        List<SparseProbabilities> dists = new ArrayList<>();
        for (NamedDistribution t : teachers) {
            ids.add(t.teacherId());
            SparseProbabilities s = t.distribution().toSparseProbabilities();
            for (int x = 0; x < s.size(); x++) {
                if (s.tokenAt(x) >= MAX_VOCABULARY) {
                    throw new UsageException(
                            file
                                    + ": token id "
                                    + s.tokenAt(x)
                                    + " of teacher "
                                    + t.teacherId()
                                    + " is too large for evaluate (max "
                                    + (MAX_VOCABULARY - 1)
                                    + ")");
                }
            }
            dists.add(s);
        }
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("file", file.toString());
        return EvalEnsemble.named("recorded", p, ids, dists);
    }
}
