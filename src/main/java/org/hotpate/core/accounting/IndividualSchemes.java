package org.hotpate.core.accounting;

import static org.hotpate.core.util.Preconditions.checkNotNull;

/**
 * The involvement rule the per-teacher ("individual accounting") schemes share — {@code scheme-b}
 * (default for per-teacher accounting; verified statements) and {@code scheme-a} (explicit option;
 * DERIVED proof). Their names and parameter tables are the schemes' own ({@link
 * SchemeBStep.Params}, {@link SchemeAStep.Params}); {@code core.mechanism.MechanismRegistry}
 * registers them.
 */
public final class IndividualSchemes {
    private IndividualSchemes() {}

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
}
