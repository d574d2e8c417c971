package org.hotpate.eval;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The PNG plots of an {@link Evaluation.Result} (drawn with {@link Charts}), by title. */
final class ReportPlots {
    private ReportPlots() {}

    static Map<String, Path> plots(Evaluation.Result r, Path dir) throws IOException {
        Map<String, Path> out = new LinkedHashMap<>();
        double[] x = Arrays.stream(r.thresholds()).asDoubleStream().toArray();
        Path cov = dir.resolve("coverage.png");
        Charts.line(
                cov.toFile(),
                "Coverage vs threshold T",
                "threshold T (votes)",
                "coverage (fraction of votes)",
                true,
                1.0,
                List.of(
                        new Charts.Curve(
                                "coordinated (hot)", x, r.coverageCoordinated(), Charts.HOT, false),
                        new Charts.Curve(
                                "independent (cold)",
                                x,
                                r.coverageIndependent(),
                                Charts.COLD,
                                false),
                        new Charts.Curve(
                                "robust mass P(tau = T)", x, r.robustMass(), Charts.REF, true)));
        out.put("Coverage vs threshold", cov);
        Path sp = dir.resolve("sparsity.png");
        Charts.line(
                sp.toFile(),
                "Sparsity (distinct tokens with count >= T) vs threshold T",
                "threshold T (votes)",
                "distinct tokens",
                true,
                null,
                List.of(
                        new Charts.Curve(
                                "coordinated (hot)", x, r.sparsityCoordinated(), Charts.HOT, false),
                        new Charts.Curve(
                                "independent (cold)",
                                x,
                                r.sparsityIndependent(),
                                Charts.COLD,
                                false)));
        out.put("Sparsity vs threshold", sp);
        Path tv = dir.resolve("tv.png");
        Charts.line(
                tv.toFile(),
                "Total-variation distance to the average distribution",
                "threshold T (votes)",
                "TV distance",
                true,
                1.0,
                List.of(
                        new Charts.Curve(
                                "coordinated, normalised", x, r.tvCoordinated(), Charts.HOT, false),
                        new Charts.Curve(
                                "independent, normalised",
                                x,
                                r.tvIndependent(),
                                Charts.COLD,
                                false),
                        new Charts.Curve(
                                "coordinated, with FAIL mass",
                                x,
                                r.tvWithFailCoordinated(),
                                Charts.HOT,
                                true),
                        new Charts.Curve(
                                "independent, with FAIL mass",
                                x,
                                r.tvWithFailIndependent(),
                                Charts.COLD,
                                true)));
        out.put("TV distance vs threshold", tv);
        Path cs = dir.resolve("coverage-vs-sparsity.png");
        Charts.line(
                cs.toFile(),
                "Coverage vs sparsity, sweeping T (cf. paper Fig. 6)",
                "sparsity (distinct tokens)",
                "coverage",
                false,
                1.0,
                List.of(
                        new Charts.Curve(
                                "coordinated (hot)",
                                r.sparsityCoordinated(),
                                r.coverageCoordinated(),
                                Charts.HOT,
                                false),
                        new Charts.Curve(
                                "independent (cold)",
                                r.sparsityIndependent(),
                                r.coverageIndependent(),
                                Charts.COLD,
                                false)));
        out.put("Coverage vs sparsity", cs);
        if (r.steps().size() == 1) {
            histograms(r, dir, out);
        }
        if (r.yield().isPresent()) {
            YieldSweep.Result y = r.yield().get();
            Path yp = dir.resolve("yield.png");
            Charts.line(
                    yp.toFile(),
                    "Yield (Pr[max count >= " + y.threshold() + "]) vs alpha, n = " + y.teachers(),
                    "alpha (weight of the common part)",
                    "yield",
                    false,
                    1.0,
                    List.of(
                            new Charts.Curve(
                                    "coordinated (measured)",
                                    y.alphas(),
                                    y.coordinated(),
                                    Charts.HOT,
                                    false),
                            new Charts.Curve(
                                    "independent (measured)",
                                    y.alphas(),
                                    y.independent(),
                                    Charts.COLD,
                                    false),
                            new Charts.Curve(
                                    "theory (exact, paper E)",
                                    y.alphas(),
                                    y.theory(),
                                    Charts.REF,
                                    true),
                            new Charts.Curve(
                                    "yield = alpha", y.alphas(), y.alphas(), Color.BLACK, true)));
            out.put("Yield vs alpha", yp);
        }
        if (!r.privacy().isEmpty()) {
            List<String> cats =
                    r.privacy().stream().map(PrivacyEfficiency.Result::mechanism).toList();
            double[][] v = new double[2][cats.size()];
            for (int i = 0; i < cats.size(); i++) {
                v[0][i] = r.privacy().get(i).coordinated().tokens();
                v[1][i] = r.privacy().get(i).independent().tokens();
            }
            Path pp = dir.resolve("privacy-efficiency.png");
            Charts.bars(
                    pp.toFile(),
                    "Useful tokens at the privacy budget",
                    "tokens",
                    cats,
                    List.of("hot (coordinated)", "cold (independent)"),
                    v,
                    List.of(Charts.HOT, Charts.COLD));
            out.put("Privacy efficiency", pp);
        }
        return out;
    }

    /**
     * Figures 12/13 of the paper: covered votes per token at three thresholds, for the 40 tokens
     * with the largest average probability (sorted by it), coordinated vs independent.
     */
    private static void histograms(Evaluation.Result r, Path dir, Map<String, Path> out)
            throws IOException {
        Evaluation.StepResult step = r.steps().get(0);
        int vocab = step.ensemble().vocabularySize();
        double[] avg = step.ensemble().averageDistribution();
        Integer[] order = new Integer[vocab];
        for (int j = 0; j < vocab; j++) {
            order[j] = j;
        }
        Arrays.sort(order, (a, b) -> Double.compare(avg[b], avg[a]));
        int shown = (int) Math.min(40, Arrays.stream(avg).filter(v -> v > 0).count());
        List<String> cats = new ArrayList<>();
        for (int x = 0; x < shown; x++) {
            cats.add(String.valueOf(order[x]));
        }
        int[] th = r.thresholds();
        java.util.TreeSet<Integer> picks =
                new java.util.TreeSet<>(List.of(0, th.length / 2, th.length - 1));
        for (int i : picks) {
            double[] hot = Metrics.coveredPerToken(step.coordinatedDraws(), th[i], vocab);
            double[] cold = Metrics.coveredPerToken(step.independentDraws(), th[i], vocab);
            double[][] v = new double[3][shown];
            for (int x = 0; x < shown; x++) {
                v[0][x] = hot[order[x]];
                v[1][x] = cold[order[x]];
                v[2][x] = avg[order[x]];
            }
            Path p = dir.resolve("histogram-T" + th[i] + ".png");
            Charts.bars(
                    p.toFile(),
                    String.format(
                            Locale.ROOT,
                            "Covered votes per token at T = %d (coverage hot %.2f, cold %.2f; cf. paper Figs 12/13)",
                            th[i],
                            r.coverageCoordinated()[i],
                            r.coverageIndependent()[i]),
                    "token (the " + shown + " most probable on average)",
                    "fraction of all votes",
                    cats,
                    List.of("coordinated (hot)", "independent (cold)", "average distribution"),
                    v,
                    List.of(Charts.HOT, Charts.COLD, Charts.REF),
                    null,
                    1000);
            out.put("Covered votes per token, T = " + th[i], p);
        }
    }
}
