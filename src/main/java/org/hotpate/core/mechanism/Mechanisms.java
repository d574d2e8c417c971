package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;

/**
 * The ensemble mechanisms of {@link MechanismRegistry} (the one registry of names, parameter tables
 * and factories): builds an aggregation mechanism by the name used in job specs and on the command
 * line.
 *
 * <p>DP mechanisms draw noise from {@link NoiseSources#secure()} unless a source is passed to
 * {@link #create(String, Map, int, int, UniformSource)}; they never accept a seed. {@code seed} (an
 * integer-valued double) only seeds the non-private references. Unknown names, unknown or missing
 * parameters and bad values raise {@link IllegalArgumentException}.
 */
public final class Mechanisms {
    private Mechanisms() {}

    /** The ensemble mechanism names the factory knows, in registry order. */
    public static Set<String> names() {
        return new LinkedHashSet<>(MechanismRegistry.names(MechanismRegistry.Kind.ENSEMBLE));
    }

    /**
     * Whether {@code name} is differentially private. False only for the evaluation references
     * TARGMAX_T and TWS_T, whose output must never leave the data owner.
     */
    public static boolean isDifferentiallyPrivate(String name) {
        return entry(name).differentiallyPrivate();
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
        if (!isDifferentiallyPrivate(name) && budgetEpsilon != Double.POSITIVE_INFINITY) {
            throw new IllegalArgumentException(notPrivateMessage(name));
        }
    }

    /** The parameters {@code name} accepts (required first). */
    public static List<String> parameters(String name) {
        return entry(name).parameters();
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
        MechanismRegistry.Entry e = entry(name);
        checkNotNull("params", params);
        return e.create(params, vocabularySize, teachers, noise);
    }

    /** The ensemble mechanism {@code name}; any other name is refused listing the valid ones. */
    private static MechanismRegistry.Entry entry(String name) {
        return MechanismRegistry.find(name)
                .filter(e -> e.kind() == MechanismRegistry.Kind.ENSEMBLE)
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "unknown mechanism '"
                                                + name
                                                + "'; known: "
                                                + String.join(", ", names())));
    }
}
