package org.hotpate.core.accounting;

import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hotpate.core.mechanism.MechanismRegistry;

/**
 * The per-teacher ("individual accounting") schemes of {@link MechanismRegistry} — {@code scheme-b}
 * (default for per-teacher accounting; verified statements) and {@code scheme-a} (explicit option;
 * DERIVED proof) — and the involvement rule they share. Their names and parameter tables are the
 * registry's.
 */
public final class IndividualSchemes {
    private IndividualSchemes() {}

    /** The per-teacher scheme names, in registry order. */
    public static Set<String> names() {
        return new LinkedHashSet<>(MechanismRegistry.names(MechanismRegistry.Kind.PER_TEACHER));
    }

    public static boolean isIndividual(String name) {
        return MechanismRegistry.is(name, MechanismRegistry.Kind.PER_TEACHER);
    }

    /** The parameters {@code name} requires (all of them are required). */
    public static List<String> parameters(String name) {
        return entry(name).parameters();
    }

    /**
     * The plan for {@code name} with its spec parameters and the per-teacher target ({@code
     * budget.per-teacher-epsilon}, {@code budget.per-teacher-delta}).
     */
    public static IndividualPlan plan(
            String name,
            Map<String, Double> params,
            double perTeacherEpsilon,
            double perTeacherDelta) {
        return entry(name).plan(params, perTeacherEpsilon, perTeacherDelta);
    }

    /**
     * Whether teacher {@code teacher} (its public identity) takes part in this step: it admits one
     * more charge, its public inclusion coin is 1 and its own vote is the tested token. A function
     * of the teacher's own vote and state and of public randomness only.
     */
    public static boolean involved(
            int vote,
            long teacher,
            PublicChargingRandomness randomness,
            TeacherCharges charges,
            IndividualPlan plan) {
        checkNotNull("randomness", randomness);
        checkNotNull("charges", charges);
        // cheap tests first; the coin costs a hash
        return vote == randomness.token() && charges.admits(plan) && randomness.included(teacher);
    }

    static void checkParameters(String name, Map<String, Double> params) {
        entry(name).checkParameters(params);
    }

    private static MechanismRegistry.Entry entry(String name) {
        return MechanismRegistry.find(name)
                .filter(e -> e.kind() == MechanismRegistry.Kind.PER_TEACHER)
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "unknown per-teacher mechanism '"
                                                + name
                                                + "'; known: "
                                                + String.join(", ", names())));
    }
}
