package org.hotpate.protocol;

import java.io.Serializable;
import java.util.Objects;
import org.hotpate.core.accounting.IndividualPlan;
import org.hotpate.core.mechanism.ConfiguredMechanism;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.hotpate.core.privacy.PrivacyEvent;

/**
 * The run, resolved once when its spec is loaded (issue 33, 40): what releases a step ({@link
 * Choice}: an ensemble mechanism, a per-teacher scheme with its plan, or a non-private reference;
 * {@code auto} already resolved), the budget plan ({@link BudgetPlan}: the terms, the worst-case
 * event every budget filter admits on, the run filter's configuration), how the run accounts per
 * teacher, and the population prior's plan (null: none). The accountant, the ledger, the operators'
 * settings and the report read these values instead of deriving them again from the configuration.
 */
public record RunPlan(Choice choice, BudgetPlan budget, AccountingMode accounting, PriorPlan prior)
        implements Serializable {
    private static final long serialVersionUID = 2L;

    public RunPlan {
        Objects.requireNonNull(choice, "choice");
        Objects.requireNonNull(budget, "budget");
        Objects.requireNonNull(accounting, "accounting");
        if ((choice.perTeacherPlan() != null)
                != (accounting instanceof AccountingMode.PerTeacher)) {
            throw new IllegalArgumentException(
                    "a per-teacher scheme accounts per teacher, and only it: "
                            + choice
                            + " with "
                            + accounting.getClass().getSimpleName());
        }
    }

    /** What releases a step. */
    public sealed interface Choice extends Serializable permits Ensemble, PerTeacher, NonPrivate {
        ConfiguredMechanism mechanism();

        /** The per-teacher plan; null but for a per-teacher scheme. */
        default IndividualPlan perTeacherPlan() {
            return null;
        }

        /** Whether its releases are differentially private (false for a non-private reference). */
        default boolean isPrivate() {
            return true;
        }

        /** The choice a registered, validated mechanism makes ({@code plan}: a scheme's plan). */
        static Choice of(ConfiguredMechanism mechanism, IndividualPlan plan) {
            MechanismRegistry.Entry e = mechanism.entry();
            if (e.kind() == MechanismRegistry.Kind.PER_TEACHER) {
                return new PerTeacher(mechanism, Objects.requireNonNull(plan, "plan"));
            }
            if (plan != null) {
                throw new IllegalArgumentException(
                        mechanism.name() + " is no per-teacher scheme; it has no plan");
            }
            return e.differentiallyPrivate() ? new Ensemble(mechanism) : new NonPrivate(mechanism);
        }
    }

    /** A DP ensemble mechanism on the vote histogram. */
    public record Ensemble(ConfiguredMechanism mechanism) implements Choice {}

    /** A per-teacher scheme (scheme-a, scheme-b) and each teacher's plan. */
    public record PerTeacher(ConfiguredMechanism mechanism, IndividualPlan plan) implements Choice {
        @Override
        public IndividualPlan perTeacherPlan() {
            return plan;
        }
    }

    /** A non-private reference (targmax, tws): no DP, an unbounded budget. */
    public record NonPrivate(ConfiguredMechanism mechanism) implements Choice {
        @Override
        public boolean isPrivate() {
            return false;
        }
    }

    /** The mechanism that releases a step ({@code auto} resolved), with its parameters. */
    public ConfiguredMechanism mechanism() {
        return choice.mechanism();
    }

    /** The run's budget terms ({@link BudgetPlan#terms()}). */
    public BudgetTerms terms() {
        return budget.terms();
    }

    /** The worst-case event of one release ({@link BudgetPlan#worstCase()}). */
    public PrivacyEvent worstCase() {
        return budget.worstCase();
    }

    /** The per-teacher plan, or null for an ensemble run. */
    public IndividualPlan perTeacherPlan() {
        return choice.perTeacherPlan();
    }

    /** Whether the run's releases are differentially private. */
    public boolean isPrivate() {
        return choice.isPrivate();
    }
}
