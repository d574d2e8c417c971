package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;

/**
 * Builds aggregation mechanisms by the names used in job specs and on the command line.
 *
 * <table>
 *   <caption>Names and parameters (R = required, O = optional)</caption>
 *   <tr><th>name</th><th>parameters</th><th>class</th></tr>
 *   <tr><td>targmax</td><td>threshold (R), seed (O, ignored: deterministic)</td><td>{@link ThresholdArgmax} — NOT DP</td></tr>
 *   <tr><td>tws</td><td>threshold (R), seed (O)</td><td>{@link ThresholdWeightedSampling} — NOT DP</td></tr>
 *   <tr><td>lnmax</td><td>scale (R)</td><td>{@link LnmaxMechanism}</td></tr>
 *   <tr><td>gnmax</td><td>sigma (R)</td><td>{@link GnmaxMechanism}</td></tr>
 *   <tr><td>confident-gnmax</td><td>sigma1, sigma2, threshold (R)</td><td>{@link ConfidentGnmaxMechanism}</td></tr>
 *   <tr><td>checked-gnmax</td><td>sigma1, sigma2, threshold, sigma3, check-threshold (R)</td><td>{@link CheckedGnmaxMechanism}</td></tr>
 *   <tr><td>hot-pate</td><td>sigma, or sigma1 and sigma2 (R); beta_fail (O, 1e-3)</td><td>{@link HotPateHomogeneousMechanism}</td></tr>
 *   <tr><td>hot-pate-heterogeneous</td><td>epsilon, delta (R); sample_size (O)</td><td>{@link HotPateHeterogeneousMechanism}</td></tr>
 * </table>
 *
 * <p>DP mechanisms draw noise from {@link NoiseSources#secure()} unless a source is passed to
 * {@link #create(String, Map, int, int, UniformSource)}; they never accept a seed. {@code seed} (an
 * integer-valued double) only seeds the non-private references. Unknown names, unknown or missing
 * parameters and bad values raise {@link IllegalArgumentException}.
 */
public final class Mechanisms {
    private Mechanisms() {}

    private static final Map<String, List<String>> REQUIRED = new LinkedHashMap<>();
    private static final Map<String, List<String>> OPTIONAL = new LinkedHashMap<>();

    static {
        spec(ThresholdArgmax.NAME, List.of("threshold"), List.of("seed"));
        spec(ThresholdWeightedSampling.NAME, List.of("threshold"), List.of("seed"));
        spec(LnmaxMechanism.NAME, List.of("scale"), List.of());
        spec(GnmaxMechanism.NAME, List.of("sigma"), List.of());
        spec(ConfidentGnmaxMechanism.NAME, List.of("sigma1", "sigma2", "threshold"), List.of());
        spec(
                CheckedGnmaxMechanism.NAME,
                List.of("sigma1", "sigma2", "threshold", "sigma3", "check-threshold"),
                List.of());
        spec(
                HotPateHomogeneousMechanism.NAME,
                List.of(),
                List.of("sigma", "sigma1", "sigma2", "beta_fail"));
        spec(
                HotPateHeterogeneousMechanism.NAME,
                List.of("epsilon", "delta"),
                List.of("sample_size"));
    }

    private static void spec(String name, List<String> required, List<String> optional) {
        REQUIRED.put(name, required);
        OPTIONAL.put(name, optional);
    }

    /** The mechanism names the factory knows. */
    public static Set<String> names() {
        return REQUIRED.keySet();
    }

    /**
     * Whether {@code name} is differentially private. False only for the evaluation references
     * TARGMAX_T and TWS_T, whose output must never leave the data owner.
     */
    public static boolean isDifferentiallyPrivate(String name) {
        checkKnown(name);
        return !name.equals(ThresholdArgmax.NAME) && !name.equals(ThresholdWeightedSampling.NAME);
    }

    /**
     * The message a run gets when a mechanism without a DP guarantee is asked to run under a finite
     * budget, naming the spec key: {@code mechanism.name 'targmax' is not differentially private;
     * it runs only with budget.epsilon: .inf}.
     */
    public static String notPrivateMessage(String name) {
        return "mechanism.name '"
                + name
                + "' is not differentially private; it runs only with budget.epsilon: .inf";
    }

    /**
     * Refuses, before anything runs, a mechanism that cannot run under {@code budgetEpsilon}: a
     * non-private reference under a finite budget throws {@link IllegalArgumentException} with
     * {@link #notPrivateMessage}. (Its events are {@code NotPrivate}, which a budget filter would
     * refuse at the first step anyway; this names the problem up front.) {@code budgetEpsilon} = +∞
     * means "no budget".
     */
    public static void checkRunnable(String name, double budgetEpsilon) {
        checkKnown(name);
        if (!isDifferentiallyPrivate(name) && budgetEpsilon != Double.POSITIVE_INFINITY) {
            throw new IllegalArgumentException(notPrivateMessage(name));
        }
    }

    /** The parameters {@code name} accepts (required first). */
    public static List<String> parameters(String name) {
        checkKnown(name);
        return java.util.stream.Stream.concat(
                        REQUIRED.get(name).stream(), OPTIONAL.get(name).stream())
                .toList();
    }

    /** Creates {@code name} with secure DP noise. */
    public static AggregationMechanism create(
            String name, Map<String, Double> params, int vocabularySize, int teachers) {
        return create(name, params, vocabularySize, teachers, NoiseSources.secure());
    }

    /**
     * Creates {@code name}, drawing DP noise from {@code noise} (pass {@link NoiseSources#secure()}
     * in production; {@link NoiseSources#seededInsecureForTestsOnly} only in tests).
     */
    public static AggregationMechanism create(
            String name,
            Map<String, Double> params,
            int vocabularySize,
            int teachers,
            UniformSource noise) {
        checkKnown(name);
        checkNotNull("params", params);
        checkNotNull("noise", noise);
        checkPositive("vocabularySize", vocabularySize);
        checkPositive("teachers", teachers);
        Params p = new Params(name, params);
        return switch (name) {
            case ThresholdArgmax.NAME ->
                    new ThresholdArgmax(p.get("threshold"), vocabularySize, teachers);
            case ThresholdWeightedSampling.NAME ->
                    new ThresholdWeightedSampling(
                            p.get("threshold"),
                            vocabularySize,
                            teachers,
                            p.has("seed")
                                    ? NoiseSources.seededForNonPrivateReferences(p.seed())
                                    : noise);
            case LnmaxMechanism.NAME ->
                    new LnmaxMechanism(p.get("scale"), vocabularySize, teachers, noise);
            case GnmaxMechanism.NAME ->
                    new GnmaxMechanism(p.get("sigma"), vocabularySize, teachers, noise);
            case ConfidentGnmaxMechanism.NAME ->
                    new ConfidentGnmaxMechanism(
                            p.get("sigma1"),
                            p.get("threshold"),
                            p.get("sigma2"),
                            vocabularySize,
                            teachers,
                            noise);
            case CheckedGnmaxMechanism.NAME ->
                    new CheckedGnmaxMechanism(
                            p.get("sigma1"),
                            p.get("threshold"),
                            p.get("sigma2"),
                            p.get("sigma3"),
                            p.get("check-threshold"),
                            vocabularySize,
                            teachers,
                            noise);
            case HotPateHomogeneousMechanism.NAME -> hotPate(p, vocabularySize, teachers, noise);
            case HotPateHeterogeneousMechanism.NAME ->
                    new HotPateHeterogeneousMechanism(
                            p.get("epsilon"),
                            p.get("delta"),
                            p.has("sample_size")
                                    ? OptionalDouble.of(p.get("sample_size"))
                                    : OptionalDouble.empty(),
                            vocabularySize,
                            teachers,
                            noise);
            default -> throw new AssertionError("unreachable: " + name);
        };
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

    private static void checkKnown(String name) {
        if (name == null || !REQUIRED.containsKey(name)) {
            throw new IllegalArgumentException(
                    "unknown mechanism '" + name + "'; known: " + String.join(", ", names()));
        }
    }

    /** Validated view of one parameter map: no unknown keys, no nulls, required keys present. */
    private static final class Params {
        private final String name;
        private final Map<String, Double> values;

        Params(String name, Map<String, Double> values) {
            this.name = name;
            this.values = values;
            for (Map.Entry<String, Double> e : values.entrySet()) {
                if (!parameters(name).contains(e.getKey())) {
                    throw new IllegalArgumentException(
                            "unknown parameter '"
                                    + e.getKey()
                                    + "' for mechanism "
                                    + name
                                    + "; accepted: "
                                    + String.join(", ", parameters(name)));
                }
                if (e.getValue() == null) {
                    throw new IllegalArgumentException(
                            e.getKey() + " must not be null (mechanism " + name + ")");
                }
            }
            for (String r : REQUIRED.get(name)) {
                if (!values.containsKey(r)) {
                    throw new IllegalArgumentException(
                            "mechanism "
                                    + name
                                    + " needs parameter '"
                                    + r
                                    + "'; accepted: "
                                    + String.join(", ", parameters(name)));
                }
            }
        }

        boolean has(String key) {
            return values.containsKey(key);
        }

        double get(String key) {
            return values.get(key);
        }

        long seed() {
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
