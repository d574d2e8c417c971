package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;
import org.hotpate.core.accounting.IndividualPlan;
import org.hotpate.core.accounting.SchemeAStep;
import org.hotpate.core.accounting.SchemeBStep;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.util.ParameterTable;

/**
 * The one registry of what {@code mechanism.name} may say: every name is spelled here once, with
 * its kind (chosen automatically, an ensemble mechanism, a per-teacher scheme), its parameter table
 * (required and optional keys), whether it is differentially private, and how it is built — an
 * ensemble mechanism's factory, a per-teacher scheme's plan and step event. {@link Mechanisms} is a
 * view of it, {@link #perTeacher} the per-teacher one; the job configuration validates a spec's
 * name and parameters against it when the spec is loaded.
 *
 * <table>
 *   <caption>Names and parameters (R = required, O = optional)</caption>
 *   <tr><th>name</th><th>kind</th><th>parameters</th><th>class</th></tr>
 *   <tr><td>auto</td><td>auto</td><td>none (all chosen from public inputs)</td><td>{@link AutoPlanner}</td></tr>
 *   <tr><td>targmax</td><td>ensemble</td><td>threshold (R), seed (O, ignored)</td><td>{@link ThresholdArgmax} — NOT DP</td></tr>
 *   <tr><td>tws</td><td>ensemble</td><td>threshold (R), seed (O)</td><td>{@link ThresholdWeightedSampling} — NOT DP</td></tr>
 *   <tr><td>lnmax</td><td>ensemble</td><td>scale (R)</td><td>{@link LnmaxMechanism}</td></tr>
 *   <tr><td>gnmax</td><td>ensemble</td><td>sigma (R)</td><td>{@link GnmaxMechanism}</td></tr>
 *   <tr><td>confident-gnmax</td><td>ensemble</td><td>sigma1, sigma2, threshold (R)</td><td>{@link ConfidentGnmaxMechanism}</td></tr>
 *   <tr><td>checked-gnmax</td><td>ensemble</td><td>sigma1, sigma2, threshold, sigma3, check-threshold (R)</td><td>{@link CheckedGnmaxMechanism}</td></tr>
 *   <tr><td>hot-pate</td><td>ensemble</td><td>sigma, or sigma1 and sigma2; beta_fail (O)</td><td>{@link HotPateHomogeneousMechanism}</td></tr>
 *   <tr><td>hot-pate-heterogeneous</td><td>ensemble</td><td>epsilon, delta (R); sample_size (O)</td><td>{@link HotPateHeterogeneousMechanism}</td></tr>
 *   <tr><td>scheme-b</td><td>per-teacher</td><td>sigma, threshold, sample-rate (R)</td><td>{@link SchemeBStep}</td></tr>
 *   <tr><td>scheme-a</td><td>per-teacher</td><td>epsilon, lower, upper, sample-rate (R)</td><td>{@link SchemeAStep}</td></tr>
 * </table>
 *
 * <p>What the tools ask of a name is its entry's too, so no caller branches on a name: an ensemble
 * entry's {@link PrivacyAnalysis} (one step's RDP for {@code ./hotpate privacy cost}, one answered
 * query's cost for {@code privacy plan}, the evaluation's tuning grid) and {@link
 * Entry#shorthand()} order, a per-teacher entry's {@code privacy plan --scheme} letter and report.
 * {@link #THRESHOLD_STEP} and {@link #GAUSSIAN} are priced by {@code privacy} but are no spec
 * names.
 *
 * <p>A new mechanism is one class and one {@code register} line below (docs/architecture.md,
 * "Extending"). Unknown names, unknown or missing parameters raise {@link IllegalArgumentException}
 * naming every valid name or parameter.
 */
public final class MechanismRegistry {
    private MechanismRegistry() {}

    // The names, spelled once.
    public static final String AUTO = "auto";
    public static final String TARGMAX = "targmax";
    public static final String TWS = "tws";
    public static final String LNMAX = "lnmax";
    public static final String GNMAX = "gnmax";
    public static final String CONFIDENT_GNMAX = "confident-gnmax";
    public static final String CHECKED_GNMAX = "checked-gnmax";
    public static final String HOT_PATE = "hot-pate";
    public static final String HOT_PATE_HETEROGENEOUS = "hot-pate-heterogeneous";
    // the per-teacher schemes spell their own names (core.accounting imports no mechanism)
    public static final String SCHEME_B = SchemeBStep.NAME;
    public static final String SCHEME_A = SchemeAStep.NAME;

    /** What a name stands for. */
    public enum Kind {
        /**
         * {@link AutoPlanner}: an ensemble mechanism and its parameters, chosen from public inputs.
         */
        AUTO,
        /** An {@link AggregationMechanism} on the ensemble's vote histogram. */
        ENSEMBLE,
        /** A per-teacher ("individual accounting") scheme. */
        PER_TEACHER
    }

    /** Builds an ensemble mechanism from its validated parameters. */
    @FunctionalInterface
    public interface Factory {
        AggregationMechanism create(
                Params params, int vocabularySize, int teachers, UniformSource noise);
    }

    /** Plans a per-teacher scheme from its parameters and each teacher's target (ε, δ). */
    @FunctionalInterface
    public interface Planner {
        IndividualPlan plan(
                Map<String, Double> params, double perTeacherEpsilon, double perTeacherDelta);
    }

    /**
     * One registered name: sealed by kind, so an entry carries exactly what its kind needs — auto
     * nothing, an ensemble mechanism its factory, a per-teacher scheme its planner and step event —
     * and every entry its {@link ParameterTable}.
     */
    public sealed interface Entry permits AutoEntry, EnsembleEntry, PerTeacherEntry {
        ParameterTable table();

        Kind kind();

        boolean differentiallyPrivate();

        default String name() {
            return table().name();
        }

        /** Every parameter this name accepts, required first. */
        default List<String> parameters() {
            return table().parameters();
        }

        default List<String> required() {
            return table().required();
        }

        /**
         * The order a positional shorthand {@code name:v1:v2:…} lists this name's parameters in
         * (the evaluation's levers): its {@link #parameters()} unless the entry says otherwise.
         */
        default List<String> shorthand() {
            return parameters();
        }

        /**
         * Checks {@code params}' keys: none unknown, none null, every required one present; the
         * messages list the accepted parameters.
         */
        default void checkParameters(Map<String, Double> params) {
            table().check(params);
        }

        /** This ensemble mechanism, drawing its DP noise from {@code noise}. */
        default AggregationMechanism create(
                Map<String, Double> params, int vocabularySize, int teachers, UniformSource noise) {
            throw notA(this, Kind.ENSEMBLE, "an ensemble mechanism");
        }

        /**
         * The costliest event one step can produce — what every budget filter admits on — from the
         * parameters and the public sizes alone (nothing is drawn).
         */
        default PrivacyEvent worstCase(
                Map<String, Double> params, int vocabularySize, int teachers) {
            throw notA(this, Kind.ENSEMBLE, "an ensemble mechanism or a per-teacher scheme");
        }

        /** This per-teacher scheme's plan for each teacher's target (ε, δ). */
        default IndividualPlan plan(
                Map<String, Double> params, double perTeacherEpsilon, double perTeacherDelta) {
            throw notA(this, Kind.PER_TEACHER, "a per-teacher scheme");
        }

        /** The ensemble-level event of one step of this per-teacher scheme (its worst case). */
        default PrivacyEvent stepEvent(Map<String, Double> params) {
            throw notA(this, Kind.PER_TEACHER, "a per-teacher scheme");
        }

        /**
         * What the privacy planner and the evaluation's tuner ask of this name ({@link
         * PrivacyAnalysis#NONE} for a name they do not offer).
         */
        default PrivacyAnalysis analysis() {
            return PrivacyAnalysis.NONE;
        }
    }

    /** {@code auto}: chooses an ensemble mechanism and its parameters; takes none. */
    public record AutoEntry(ParameterTable table) implements Entry {
        @Override
        public Kind kind() {
            return Kind.AUTO;
        }

        @Override
        public boolean differentiallyPrivate() {
            return true;
        }
    }

    /**
     * An ensemble mechanism: its parameters, whether it is DP, its factory, and what the privacy
     * planner and the tuner ask of it.
     */
    public record EnsembleEntry(
            ParameterTable table,
            boolean differentiallyPrivate,
            Factory factory,
            PrivacyAnalysis analysis,
            List<String> shorthand)
            implements Entry {
        public EnsembleEntry {
            checkNotNull("table", table);
            checkNotNull("factory", factory);
            checkNotNull("analysis", analysis);
            shorthand = List.copyOf(shorthand);
            if (!new java.util.HashSet<>(table.parameters())
                            .equals(new java.util.HashSet<>(shorthand))
                    || shorthand.size() != table.parameters().size()) {
                throw new IllegalArgumentException(
                        "shorthand " + shorthand + " must order " + table.parameters());
            }
        }

        /** An ensemble mechanism the privacy planner and the tuner do not offer. */
        public EnsembleEntry(ParameterTable table, boolean differentiallyPrivate, Factory factory) {
            this(table, differentiallyPrivate, factory, PrivacyAnalysis.NONE, table.parameters());
        }

        @Override
        public Kind kind() {
            return Kind.ENSEMBLE;
        }

        @Override
        public AggregationMechanism create(
                Map<String, Double> params, int vocabularySize, int teachers, UniformSource noise) {
            checkNotNull("noise", noise);
            checkPositive("vocabularySize", vocabularySize);
            checkPositive("teachers", teachers);
            checkParameters(params);
            return factory.create(new Params(name(), params), vocabularySize, teachers, noise);
        }

        @Override
        public PrivacyEvent worstCase(
                Map<String, Double> params, int vocabularySize, int teachers) {
            return create(params, vocabularySize, teachers, NoiseSources.noDraws())
                    .worstCaseEvent();
        }
    }

    /**
     * A per-teacher scheme (always DP): its parameters, its planner and its step event, the letter
     * {@code ./hotpate privacy plan --scheme} knows it by and the plan report it prints there.
     */
    public record PerTeacherEntry(
            ParameterTable table,
            Planner planner,
            java.util.function.Function<Map<String, Double>, PrivacyEvent> event,
            String letter,
            PrivacyAnalysis.SchemePlan report)
            implements Entry {
        public PerTeacherEntry {
            checkNotNull("table", table);
            checkNotNull("planner", planner);
            checkNotNull("event", event);
            checkNotNull("letter", letter);
            checkNotNull("report", report);
        }

        @Override
        public Kind kind() {
            return Kind.PER_TEACHER;
        }

        @Override
        public boolean differentiallyPrivate() {
            return true;
        }

        @Override
        public IndividualPlan plan(
                Map<String, Double> params, double perTeacherEpsilon, double perTeacherDelta) {
            return planner.plan(params, perTeacherEpsilon, perTeacherDelta);
        }

        @Override
        public PrivacyEvent stepEvent(Map<String, Double> params) {
            return event.apply(params);
        }

        @Override
        public PrivacyEvent worstCase(
                Map<String, Double> params, int vocabularySize, int teachers) {
            return stepEvent(params);
        }
    }

    private static IllegalArgumentException notA(Entry e, Kind kind, String what) {
        return new IllegalArgumentException(
                "mechanism "
                        + e.name()
                        + " is not "
                        + what
                        + "; "
                        + (kind == Kind.ENSEMBLE
                                ? "ensemble mechanisms: "
                                : "per-teacher schemes: ")
                        + String.join(", ", names(kind)));
    }

    private static final Map<String, Entry> ENTRIES = new LinkedHashMap<>();

    /**
     * Names {@code ./hotpate privacy} prices that are no {@code mechanism.name} (a job spec cannot
     * name them): the building blocks {@code threshold} (Confident-GNMax's threshold step, {@code
     * privacy cost}) and {@code gaussian} (a Gaussian mechanism of sensitivity D, {@code privacy
     * plan}).
     */
    private static final Map<String, PrivacyAnalysis> BLOCKS = new LinkedHashMap<>();

    /** The building block "Confident-GNMax's threshold step" (no mechanism.name). */
    public static final String THRESHOLD_STEP = "threshold";

    /** The building block "a Gaussian mechanism" (no mechanism.name). */
    public static final String GAUSSIAN = "gaussian";

    static {
        register(new AutoEntry(ParameterTable.required(AUTO)));
        ensemble(
                TARGMAX,
                List.of("threshold"),
                List.of("seed"),
                false,
                (p, v, n, noise) -> new ThresholdArgmax(p.get("threshold"), v, n));
        ensemble(
                TWS,
                List.of("threshold"),
                List.of("seed"),
                false,
                (p, v, n, noise) ->
                        new ThresholdWeightedSampling(
                                p.get("threshold"),
                                v,
                                n,
                                p.has("seed")
                                        ? NoiseSources.seededForNonPrivateReferences(p.seed())
                                        : noise));
        ensemble(
                LNMAX,
                List.of("scale"),
                List.of(),
                true,
                (p, v, n, noise) -> new LnmaxMechanism(p.get("scale"), v, n, noise),
                new PrivacyAnalysis(
                        StandardAnalyses.LNMAX_STEP,
                        StandardAnalyses.LNMAX_ANSWER,
                        new PrivacyAnalysis.NoisyArgmax("scale", true, PrivacyEvent.Lnmax::new)));
        ensemble(
                GNMAX,
                List.of("sigma"),
                List.of(),
                true,
                (p, v, n, noise) -> new GnmaxMechanism(p.get("sigma"), v, n, noise),
                new PrivacyAnalysis(
                        StandardAnalyses.GNMAX_STEP,
                        StandardAnalyses.GNMAX_ANSWER,
                        new PrivacyAnalysis.NoisyArgmax("sigma", false, PrivacyEvent.Gnmax::new)));
        ensemble(
                CONFIDENT_GNMAX,
                List.of("sigma1", "sigma2", "threshold"),
                List.of(),
                true,
                (p, v, n, noise) ->
                        new ConfidentGnmaxMechanism(
                                p.get("sigma1"), p.get("threshold"), p.get("sigma2"), v, n, noise),
                new PrivacyAnalysis(
                        null,
                        StandardAnalyses.THRESHOLDED_ANSWER,
                        // the tuner chooses T
                        new PrivacyAnalysis.ThresholdedArgmax(
                                null,
                                (s1, t, s2) -> {
                                    Map<String, Double> p = new LinkedHashMap<>();
                                    p.put("sigma1", s1);
                                    p.put("threshold", t);
                                    p.put("sigma2", s2);
                                    return p;
                                })),
                // the order of Algorithm 1 (and of the evaluation's lever σ1:T:σ2)
                List.of("sigma1", "threshold", "sigma2"));
        ensemble(
                CHECKED_GNMAX,
                List.of("sigma1", "sigma2", "threshold", "sigma3", "check-threshold"),
                List.of(),
                true,
                (p, v, n, noise) ->
                        new CheckedGnmaxMechanism(
                                p.get("sigma1"),
                                p.get("threshold"),
                                p.get("sigma2"),
                                p.get("sigma3"),
                                p.get("check-threshold"),
                                v,
                                n,
                                noise));
        ensemble(
                HOT_PATE,
                List.of(),
                List.of("sigma", "sigma1", "sigma2", "beta_fail"),
                true,
                MechanismRegistry::hotPate,
                new PrivacyAnalysis(
                        null,
                        StandardAnalyses.THRESHOLDED_ANSWER,
                        // Algorithm 2 fixes T = n/2 + L(max(σ1, σ2)) (default beta_fail)
                        new PrivacyAnalysis.ThresholdedArgmax(
                                (s1, s2, n, v) ->
                                        n / 2.0
                                                + HotPateHomogeneousMechanism.errorBound(
                                                        Math.max(s1, s2),
                                                        v,
                                                        HotPateHomogeneousMechanism
                                                                .DEFAULT_BETA_FAIL),
                                (s1, t, s2) -> {
                                    Map<String, Double> p = new LinkedHashMap<>();
                                    p.put("sigma1", s1);
                                    p.put("sigma2", s2);
                                    return p;
                                })));
        ensemble(
                HOT_PATE_HETEROGENEOUS,
                List.of("epsilon", "delta"),
                List.of("sample_size"),
                true,
                (p, v, n, noise) ->
                        new HotPateHeterogeneousMechanism(
                                p.get("epsilon"),
                                p.get("delta"),
                                p.has("sample_size")
                                        ? OptionalDouble.of(p.get("sample_size"))
                                        : OptionalDouble.empty(),
                                v,
                                n,
                                noise));
        register(
                new PerTeacherEntry(
                        SchemeBStep.Params.TABLE,
                        (params, eps, delta) ->
                                SchemeBStep.Plan.forTarget(
                                        SchemeBStep.Params.fromSpec(params), eps, delta),
                        // core's own event(), through a plan that admits no charge
                        params ->
                                new SchemeBStep(
                                                new SchemeBStep.Plan(
                                                        SchemeBStep.Params.fromSpec(params),
                                                        2,
                                                        0,
                                                        0),
                                                NoiseSources.noDraws())
                                        .event(),
                        "b",
                        StandardAnalyses::schemeBReport));
        register(
                new PerTeacherEntry(
                        SchemeAStep.Params.TABLE,
                        (params, eps, delta) ->
                                SchemeAStep.Plan.forTarget(
                                        SchemeAStep.Params.fromSpec(params), eps, delta),
                        params ->
                                new SchemeAStep(
                                                new SchemeAStep.Plan(
                                                        SchemeAStep.Params.fromSpec(params), 0),
                                                NoiseSources.noDraws())
                                        .event(),
                        "a",
                        StandardAnalyses::schemeAReport));
        // What the privacy planner prices that is no mechanism.name: building blocks.
        BLOCKS.put(
                THRESHOLD_STEP, new PrivacyAnalysis(StandardAnalyses.THRESHOLD_STEP, null, null));
        BLOCKS.put(GAUSSIAN, new PrivacyAnalysis(null, StandardAnalyses.GAUSSIAN_ANSWER, null));
    }

    private static void ensemble(
            String name,
            List<String> required,
            List<String> optional,
            boolean dp,
            Factory factory) {
        ensemble(name, required, optional, dp, factory, PrivacyAnalysis.NONE);
    }

    private static void ensemble(
            String name,
            List<String> required,
            List<String> optional,
            boolean dp,
            Factory factory,
            PrivacyAnalysis analysis) {
        ensemble(
                name,
                required,
                optional,
                dp,
                factory,
                analysis,
                new ParameterTable(name, required, optional, Map.of()).parameters());
    }

    private static void ensemble(
            String name,
            List<String> required,
            List<String> optional,
            boolean dp,
            Factory factory,
            PrivacyAnalysis analysis,
            List<String> shorthand) {
        register(
                new EnsembleEntry(
                        new ParameterTable(name, required, optional, Map.of()),
                        dp,
                        factory,
                        analysis,
                        shorthand));
    }

    private static void register(Entry e) {
        if (ENTRIES.putIfAbsent(e.name(), e) != null) {
            throw new IllegalStateException("mechanism " + e.name() + " registered twice");
        }
    }

    /** Every name a spec may use, in registry order: auto, the ensemble mechanisms, the schemes. */
    public static List<String> names() {
        return List.copyOf(ENTRIES.keySet());
    }

    /** The names of {@code kind}, in registry order. */
    public static List<String> names(Kind kind) {
        return ENTRIES.values().stream().filter(e -> e.kind() == kind).map(Entry::name).toList();
    }

    /** Every entry, in registry order. */
    public static List<Entry> entries() {
        return List.copyOf(ENTRIES.values());
    }

    /** The entry of {@code name}, or empty for a name the registry does not know. */
    public static Optional<Entry> find(String name) {
        return Optional.ofNullable(name == null ? null : ENTRIES.get(name));
    }

    /**
     * The entry of {@code name}; an unknown name raises {@link IllegalArgumentException} listing
     * every valid name.
     */
    public static Entry get(String name) {
        return find(name).orElseThrow(() -> new IllegalArgumentException(unknownMessage(name)));
    }

    /** The refusal of an unknown name: {@code unknown mechanism 'x'; known: auto, targmax, …}. */
    public static String unknownMessage(String name) {
        return "unknown mechanism '" + name + "'; known: " + String.join(", ", names());
    }

    /**
     * The per-teacher scheme {@code name}; any other name raises {@link IllegalArgumentException}
     * listing the per-teacher schemes.
     */
    public static Entry perTeacher(String name) {
        return find(name)
                .filter(e -> e.kind() == Kind.PER_TEACHER)
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "unknown per-teacher mechanism '"
                                                + name
                                                + "'; known: "
                                                + String.join(", ", names(Kind.PER_TEACHER))));
    }

    /**
     * The privacy planner's and the tuner's hooks for {@code name}: a registered name's, or a
     * building block's ({@link #THRESHOLD_STEP}, {@link #GAUSSIAN}); {@link PrivacyAnalysis#NONE}
     * for any other.
     */
    public static PrivacyAnalysis analysis(String name) {
        return find(name)
                .map(Entry::analysis)
                .orElseGet(() -> BLOCKS.getOrDefault(name, PrivacyAnalysis.NONE));
    }

    /** {@code name}'s one-step RDP ({@code privacy cost}), if it has one. */
    public static Optional<PrivacyAnalysis.StepRdp> stepRdp(String name) {
        return analysis(name).findStepRdp();
    }

    /** {@code name}'s answered-query cost ({@code privacy plan}), if it has one. */
    public static Optional<PrivacyAnalysis.AnsweredStep> answeredStep(String name) {
        return analysis(name).findAnsweredStep();
    }

    /** The names with a one-step RDP: the mechanisms in registry order, then the blocks. */
    public static List<String> stepRdpNames() {
        return analysedNames(a -> a.stepRdp() != null);
    }

    /** The names with an answered-query cost: the mechanisms in registry order, then the blocks. */
    public static List<String> answeredStepNames() {
        return analysedNames(a -> a.answeredStep() != null);
    }

    /** The names with a tuning: mechanisms only, in registry order. */
    public static List<String> tunedNames() {
        return ENTRIES.values().stream()
                .filter(e -> e.analysis().tuning() != null)
                .map(Entry::name)
                .toList();
    }

    private static List<String> analysedNames(java.util.function.Predicate<PrivacyAnalysis> has) {
        List<String> names = new java.util.ArrayList<>();
        ENTRIES.values().stream()
                .filter(e -> has.test(e.analysis()))
                .forEach(e -> names.add(e.name()));
        BLOCKS.forEach(
                (name, a) -> {
                    if (has.test(a)) {
                        names.add(name);
                    }
                });
        return List.copyOf(names);
    }

    /**
     * The per-teacher scheme known by {@code letter} ({@code privacy plan --scheme a|b}; either
     * case), or empty.
     */
    public static Optional<PerTeacherEntry> perTeacherByLetter(String letter) {
        return ENTRIES.values().stream()
                .filter(e -> e instanceof PerTeacherEntry)
                .map(e -> (PerTeacherEntry) e)
                .filter(e -> e.letter().equalsIgnoreCase(letter))
                .findFirst();
    }

    /** The per-teacher schemes' letters, sorted. */
    public static List<String> perTeacherLetters() {
        return ENTRIES.values().stream()
                .filter(e -> e instanceof PerTeacherEntry)
                .map(e -> ((PerTeacherEntry) e).letter())
                .sorted()
                .toList();
    }

    /** Whether {@code name} is registered and of {@code kind}. */
    public static boolean is(String name, Kind kind) {
        return find(name).map(e -> e.kind() == kind).orElse(false);
    }

    /**
     * Validates a spec's choice: a known name and parameters its table accepts ({@code auto} takes
     * none: it chooses them).
     */
    public static Entry validate(String name, Map<String, Double> params) {
        Entry e = get(name);
        if (e.kind() == Kind.AUTO && !params.isEmpty()) {
            throw new IllegalArgumentException(
                    "mechanism auto chooses every parameter itself: leave mechanism.params out; got "
                            + params);
        }
        e.checkParameters(params);
        return e;
    }

    private static AggregationMechanism hotPate(
            Params p, int vocabularySize, int teachers, UniformSource noise) {
        boolean single = p.has("sigma");
        boolean pair = p.has("sigma1") || p.has("sigma2");
        if (single == pair || (pair && !(p.has("sigma1") && p.has("sigma2")))) {
            throw new IllegalArgumentException(
                    "hot-pate needs either sigma, or both sigma1 and sigma2; got " + p.keys());
        }
        double sigma1 = single ? p.get("sigma") : p.get("sigma1");
        double sigma2 = single ? p.get("sigma") : p.get("sigma2");
        double betaFail =
                p.has("beta_fail")
                        ? p.get("beta_fail")
                        : HotPateHomogeneousMechanism.DEFAULT_BETA_FAIL;
        return new HotPateHomogeneousMechanism(
                sigma1, sigma2, betaFail, vocabularySize, teachers, noise);
    }

    /** One mechanism's parameters, already checked against its table. */
    public static final class Params {
        private final String name;
        private final Map<String, Double> values;

        Params(String name, Map<String, Double> values) {
            this.name = name;
            this.values = Collections.unmodifiableMap(values);
        }

        public boolean has(String key) {
            return values.containsKey(key);
        }

        public double get(String key) {
            return values.get(key);
        }

        /** {@code seed}: an integer-valued double with |seed| ≤ 2^53. */
        public long seed() {
            double s = values.get("seed");
            if (!(s == Math.rint(s)) || Math.abs(s) > (double) (1L << 53)) {
                throw new IllegalArgumentException(
                        "seed must be an integer with |seed| <= 2^53; got " + s);
            }
            return (long) s;
        }

        Set<String> keys() {
            return new TreeSet<>(values.keySet());
        }

        @Override
        public String toString() {
            return name + values;
        }
    }
}
