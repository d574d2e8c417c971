package org.hotpate.cli;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.eval.records.RecordsEvaluation;
import org.hotpate.eval.records.RecordsReport;
import org.hotpate.teachers.ngram.NgramModel;
import org.hotpate.teachers.records.RecordFields;
import org.hotpate.teachers.text.Tokenizer;

/**
 * {@code ./hotpate evaluate --workload records}: parses and checks the flags, runs {@link
 * RecordsEvaluation} in process and writes {@code utility.json}, {@code references.json} and {@code
 * report.html} (docs/evaluation.md, "Records workload").
 */
final class EvaluateRecords {
    private EvaluateRecords() {}

    static final String HELP =
            """
            records         --records FILE --user-field U --text-field T [--label-field L]
                            --epsilon E --delta D --methods LIST --out DIR
                            methods: hot-pate,cold-pate,pmixed,wasp[,prompt-pate,patein]
                            (labelers need --label-field and --public-file)
                            --holdout-fraction F (0.2)  --seed S (1)  --tokenizer (cl100k_base)
                            --order N (3)  --public-file FILE  --prompts-file FILE
                            --public-order N (min(order, 2))  --public-weight W (1.0)
                            --sequences N (20)  --max-tokens N (24)  --canaries N (3)
                            --max-users N (0 = all)  --top-k K (32)  --pate-sigma S (calibrated)
                            --pmixed-rate Q (0.03)  --wasp-iterations T (5)
                            --wasp-max-per-user M (4)  --label-queries N (200)
                            (docs/evaluation.md, "Records workload")
            """;

    /** True when {@code args} ask for the records workload. */
    static boolean wanted(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--workload=records")
                    || (args[i].equals("--workload")
                            && i + 1 < args.length
                            && args[i + 1].equals("records"))) {
                return true;
            }
        }
        return false;
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        CliArgs a =
                CliArgs.parse(
                        args,
                        Set.of(
                                "workload",
                                "records",
                                "user-field",
                                "text-field",
                                "label-field",
                                "epsilon",
                                "delta",
                                "methods",
                                "out",
                                "holdout-fraction",
                                "seed",
                                "tokenizer",
                                "order",
                                "public-file",
                                "prompts-file",
                                "sequences",
                                "max-tokens",
                                "canaries",
                                "max-users",
                                "top-k",
                                "pate-sigma",
                                "pmixed-rate",
                                "wasp-iterations",
                                "wasp-max-per-user",
                                "public-order",
                                "public-weight",
                                "label-queries"),
                        Set.of("quiet"));
        if (!a.positional().isEmpty()) {
            throw new UsageException(
                    "unexpected argument '" + a.positional().get(0) + "' (see --help)");
        }
        Path records = existing(a, "records", a.required("records"));
        String userField = a.required("user-field");
        String textField = a.required("text-field");
        String labelField = a.string("label-field", "");
        double epsilon = a.doubleValue("epsilon", null);
        double delta = a.doubleValue("delta", null);
        if (!(epsilon > 0) || Double.isInfinite(epsilon)) {
            throw new UsageException("--epsilon must be > 0 and finite; got " + epsilon);
        }
        if (!(delta > 0 && delta < 1)) {
            throw new UsageException("--delta must be in (0, 1); got " + delta);
        }
        List<String> methods = new ArrayList<>();
        for (String m : a.required("methods").split(",", -1)) {
            String name = m.trim();
            if (!RecordsEvaluation.METHODS.contains(name)) {
                throw new UsageException(
                        "--methods must list names from "
                                + RecordsEvaluation.METHODS
                                + "; got '"
                                + name
                                + "'");
            }
            if (RecordsEvaluation.LABELERS.contains(name) && labelField.isEmpty()) {
                throw new UsageException(
                        "method " + name + " labels texts: it needs --label-field");
            }
            if (!methods.contains(name)) {
                methods.add(name);
            }
        }
        Path outDir = Path.of(a.required("out"));
        double holdout = a.doubleValue("holdout-fraction", 0.2);
        if (!(holdout > 0 && holdout < 1)) {
            throw new UsageException("--holdout-fraction must be in (0, 1); got " + holdout);
        }
        String tokenizer = a.string("tokenizer", "cl100k_base");
        if (!Tokenizer.NAMES.contains(tokenizer)) {
            throw new UsageException(
                    "--tokenizer must be one of " + Tokenizer.NAMES + "; got '" + tokenizer + "'");
        }
        Path publicFile =
                a.has("public-file")
                        ? existing(a, "public-file", a.string("public-file", ""))
                        : null;
        Path promptsFile =
                a.has("prompts-file")
                        ? existing(a, "prompts-file", a.string("prompts-file", ""))
                        : null;
        if (methods.stream().anyMatch(RecordsEvaluation.LABELERS::contains) && publicFile == null) {
            throw new UsageException(
                    "prompt-pate and patein label public texts: they need --public-file");
        }
        Double pateSigma = a.has("pate-sigma") ? a.doubleValue("pate-sigma", null) : null;
        if (pateSigma != null && !(pateSigma > 0)) {
            throw new UsageException("--pate-sigma must be > 0; got " + pateSigma);
        }
        int order = a.intValue("order", 3);
        RecordsEvaluation.Options o;
        try {
            o =
                    new RecordsEvaluation.Options(
                            records,
                            new RecordFields(userField, textField, labelField, "", 1 << 20),
                            new PrivacyBudget(epsilon, delta),
                            methods,
                            holdout,
                            a.longValue("seed", 1L),
                            tokenizer,
                            order,
                            a.doubleValue("public-weight", NgramModel.DEFAULT_PUBLIC_WEIGHT),
                            a.intValue("public-order", NgramModel.defaultPublicOrder(order)),
                            publicFile,
                            promptsFile,
                            a.intValue("sequences", 20),
                            a.intValue("max-tokens", 24),
                            a.intValue("canaries", 3),
                            nonNegative(a, "max-users", 0),
                            a.intValue("top-k", 32),
                            pateSigma,
                            a.doubleValue("pmixed-rate", 0.03),
                            a.intValue("wasp-iterations", 5),
                            a.intValue("wasp-max-per-user", 4),
                            a.intValue("label-queries", 200));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        PrintStream progress =
                a.flag("quiet") ? new PrintStream(PrintStream.nullOutputStream()) : err;
        long t0 = System.nanoTime();
        RecordsEvaluation.Result r;
        try {
            r = RecordsEvaluation.run(o, progress);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        List<Path> files =
                RecordsReport.write(
                        r, o.budget(), "./hotpate evaluate " + String.join(" ", args), outDir);
        out.printf(
                Locale.ROOT,
                "evaluated records in %.1f s; wrote:%n",
                (System.nanoTime() - t0) / 1e9);
        for (Path p : files) {
            out.println("  " + p);
        }
        return 0;
    }

    private static int nonNegative(CliArgs a, String key, int dflt) {
        int v = a.intValue(key, dflt);
        if (v < 0) {
            throw new UsageException("--" + key + " must be >= 0; got " + v);
        }
        return v;
    }

    private static Path existing(CliArgs a, String key, String value) {
        Path p = Path.of(value);
        if (!Files.isRegularFile(p)) {
            throw new UsageException("--" + key + " " + value + ": no such file");
        }
        return p;
    }
}
