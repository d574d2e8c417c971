package org.hotpate.stream.config;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.util.Map;
import java.util.Optional;
import org.hotpate.core.accounting.IndividualPlan;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.AutoPlanner;
import org.hotpate.core.mechanism.ConfiguredMechanism;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.protocol.RunPlan;

/**
 * How a configuration's {@code mechanism.name} and {@code mechanism.params} resolve against core's
 * {@link MechanismRegistry}, and the checks of that choice — applied when every {@link JobConfig}
 * is built, so the CLI, {@code ClusterJob}, the benchmarks and the tests all refuse a bad choice at
 * load: an unknown name (listing every name, {@code auto} and the per-teacher schemes included), an
 * unknown or missing parameter (listing the mechanism's parameters), a bad value, {@code auto}
 * without a finite budget or with parameters, a non-private mechanism under a finite budget, and a
 * per-teacher scheme without its ensemble kind and target; then {@link #resolve} configures the
 * choice once (the mechanism built, the scheme planned) for the run's plan.
 */
final class MechanismChoice {
    private MechanismChoice() {}

    /** The registry entry the spec names (before {@code auto} is resolved). */
    static MechanismRegistry.Entry declared(JobConfig cfg) {
        String name = cfg.get(JobOptions.MECHANISM_NAME);
        return MechanismRegistry.find(name)
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "mechanism.name: "
                                                + MechanismRegistry.unknownMessage(name)));
    }

    /** {@code mechanism.name: auto}'s plan from the public inputs; empty for a named mechanism. */
    static Optional<AutoPlanner.Plan> plan(JobConfig cfg) {
        if (declared(cfg).kind() != MechanismRegistry.Kind.AUTO) {
            return Optional.empty();
        }
        JobConfig.Ensemble e = cfg.ensemble();
        JobSections.Budget b = cfg.budget();
        JobSections.Generation g = cfg.generation();
        return Optional.of(
                AutoPlanner.plan(
                        new AutoPlanner.Inputs(
                                e.teachers(),
                                e.effectiveVocabulary(),
                                e.heterogeneous(),
                                new PrivacyBudget(b.epsilon(), b.delta()),
                                (long) g.sequences() * g.maxSteps())));
    }

    /** The run's mechanism, configured once: its {@link RunPlan.Choice} and its worst case. */
    record Resolved(RunPlan.Choice choice, PrivacyEvent worstCase) {}

    /**
     * Configures the checked choice once: an ensemble mechanism is built (its constructor checks
     * the parameters' values; nothing is drawn) and gives its worst-case event; a per-teacher
     * scheme is planned for each teacher's target (the plan must admit a charge) and gives its step
     * event.
     */
    static Resolved resolve(JobConfig cfg) {
        ConfiguredMechanism m = cfg.mechanism();
        MechanismRegistry.Entry e = m.entry();
        if (e.kind() == MechanismRegistry.Kind.PER_TEACHER) {
            JobSections.Budget budget = cfg.budget();
            IndividualPlan plan =
                    e.plan(m.params(), budget.perTeacherEpsilon(), budget.targetTeacherDelta());
            checkArgument(
                    plan.limit() >= 1,
                    "budget.per-teacher-epsilon "
                            + budget.perTeacherEpsilon()
                            + " is too small for mechanism "
                            + m.name()
                            + " "
                            + m.params()
                            + ": no teacher could be charged even once (plan with ./hotpate privacy"
                            + " plan --scheme "
                            + m.name().substring(m.name().lastIndexOf('-') + 1)
                            + ")");
            return new Resolved(RunPlan.Choice.of(m, plan), e.stepEvent(m.params()));
        }
        AggregationMechanism built;
        try { // the values, as the mechanism itself checks them
            built =
                    m.create(
                            cfg.ensemble().effectiveVocabulary(),
                            cfg.ensemble().teachers(),
                            NoiseSources.noDraws());
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("mechanism.params: " + ex.getMessage(), ex);
        }
        return new Resolved(RunPlan.Choice.of(m, null), built.worstCaseEvent());
    }

    /** Every check of the choice (see the class comment), in this order. */
    static void check(JobConfig cfg) {
        MechanismRegistry.Entry declared = declared(cfg);
        Map<String, Double> params = cfg.get(JobOptions.MECHANISM_PARAMS);
        if (declared.kind() == MechanismRegistry.Kind.AUTO) {
            checkAuto(cfg, params);
        } else {
            try {
                declared.checkParameters(params);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("mechanism.params: " + e.getMessage(), e);
            }
        }
        ConfiguredMechanism m = cfg.mechanism();
        checkNonPrivate(m, cfg.budget());
        checkIndividualAccounting(cfg.ensemble(), m, cfg.budget());
    }

    /** {@code mechanism.name: auto} plans every parameter under a finite budget. */
    private static void checkAuto(JobConfig cfg, Map<String, Double> params) {
        checkArgument(
                Double.isFinite(cfg.get(JobOptions.BUDGET_EPSILON)),
                "mechanism.name auto plans a differentially private run: it needs a finite"
                        + " budget.epsilon; got .inf");
        checkArgument(
                params.equals(JobOptions.MECHANISM_PARAMS.defaultValue()),
                "mechanism.name auto chooses every parameter itself: leave mechanism.params out;"
                        + " got "
                        + params);
    }

    /**
     * TARGMAX/TWS are not differentially private: they run only with {@code budget.epsilon: .inf},
     * so no finite ε is ever printed for them (DESIGN.md: every ε hotpate prints is delivered).
     */
    private static void checkNonPrivate(ConfiguredMechanism mechanism, JobSections.Budget budget) {
        boolean dp = mechanism.entry().differentiallyPrivate();
        checkArgument(
                dp || Double.isInfinite(budget.datasetEpsilon()),
                "mechanism.name '"
                        + mechanism.name()
                        + "' is not differentially private and cannot run on a dataset with a"
                        + " finite budget.dataset-epsilon (it would spend the dataset's whole"
                        + " guarantee); got budget.dataset-epsilon "
                        + budget.datasetEpsilon());
        checkArgument(
                dp || Double.isInfinite(budget.epsilon()),
                "mechanism.name '"
                        + mechanism.name()
                        + "' is not differentially private: it runs only with budget.epsilon: .inf"
                        + " (no privacy guarantee; the summary then says \"private\": false); got"
                        + " budget.epsilon "
                        + budget.epsilon());
    }

    /**
     * Per-teacher ("individual") accounting (issue 11): a per-teacher scheme needs a heterogeneous
     * ensemble and {@code budget.per-teacher-epsilon > 0}, and {@code budget.per-teacher-epsilon}
     * needs one of them; the plan (K or τ) must admit a charge.
     */
    private static void checkIndividualAccounting(
            JobConfig.Ensemble ensemble, ConfiguredMechanism mechanism, JobSections.Budget budget) {
        if (mechanism.kind() != MechanismRegistry.Kind.PER_TEACHER) {
            checkArgument(
                    budget.perTeacherEpsilon() == 0,
                    "budget.per-teacher-epsilon needs mechanism.name "
                            + MechanismRegistry.SCHEME_B
                            + " (Gaussian count with the individual Renyi filter; the default for"
                            + " per-teacher accounting) or "
                            + MechanismRegistry.SCHEME_A
                            + "; got mechanism.name '"
                            + mechanism.name()
                            + "'");
            return;
        }
        checkArgument(
                ensemble.heterogeneous(),
                "mechanism.name "
                        + mechanism.name()
                        + " (per-teacher accounting) needs ensemble.kind: heterogeneous (one user"
                        + " per teacher)");
        checkArgument(
                budget.perTeacherEpsilon() > 0,
                "mechanism.name "
                        + mechanism.name()
                        + " needs budget.per-teacher-epsilon > 0 (each teacher's target epsilon;"
                        + " with budget.per-teacher-delta, default budget.delta)");
        checkArgument(
                budget.perTeacherVotes() == 0,
                "budget.per-teacher-votes (a vote cap) and mechanism.name "
                        + mechanism.name()
                        + " (per-teacher epsilon) exclude each other; got budget.per-teacher-votes "
                        + budget.perTeacherVotes());
    }
}
