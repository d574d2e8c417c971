package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.hotpate.core.accounting.SchemeBStep;
import org.hotpate.core.mechanism.ConfiguredMechanism;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.junit.jupiter.api.Test;

class RunPlanTest {
    private static final BudgetTerms TERMS = new BudgetTerms(4.0, 1e-6, 8.0);
    private static final PrivacyEvent STEP = new PrivacyEvent.Gaussian(4.0, Math.sqrt(2));
    private static final SchemeBStep.Plan B_PLAN =
            new SchemeBStep.Plan(new SchemeBStep.Params(2, 40, 1.0), 3, 2.0, 2);
    private static final AccountingMode CHARGE_AT_VOTE =
            new AccountingMode.ChargeAtVote(
                    new IndividualScheme(
                            B_PLAN,
                            1e-6,
                            10,
                            () -> new SparseProbabilities(new int[] {3}, new double[] {1.0})));

    @Test
    void theChoiceFollowsTheRegistryKind() {
        assertThat(RunPlan.Choice.of(new ConfiguredMechanism("gnmax", Map.of("sigma", 30.0)), null))
                .isInstanceOf(RunPlan.Ensemble.class);
        assertThat(
                        RunPlan.Choice.of(
                                new ConfiguredMechanism("targmax", Map.of("threshold", 1.0)), null))
                .isInstanceOf(RunPlan.NonPrivate.class);
        RunPlan.Choice b =
                RunPlan.Choice.of(
                        new ConfiguredMechanism(
                                "scheme-b", Map.of("epsilon", 0.1, "threshold", 40.0)),
                        B_PLAN);
        assertThat(b).isInstanceOf(RunPlan.PerTeacher.class);
        assertThat(((RunPlan.PerTeacher) b).plan()).isSameAs(B_PLAN);
    }

    @Test
    void aSchemeNeedsItsPlanAndAnEnsembleMechanismHasNone() {
        assertThatThrownBy(
                        () ->
                                RunPlan.Choice.of(
                                        new ConfiguredMechanism("scheme-b", Map.of()), null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("plan");
        assertThatThrownBy(
                        () ->
                                RunPlan.Choice.of(
                                        new ConfiguredMechanism("gnmax", Map.of("sigma", 3.0)),
                                        B_PLAN))
                .hasMessageContaining("no per-teacher scheme");
    }

    @Test
    void perTeacherAccountingGoesWithAPerTeacherSchemeOnly() {
        RunPlan.Choice gnmax =
                RunPlan.Choice.of(new ConfiguredMechanism("gnmax", Map.of("sigma", 30.0)), null);
        RunPlan ensemble =
                new RunPlan(
                        gnmax,
                        new BudgetPlan(TERMS, STEP),
                        new AccountingMode.EnsembleOnly(),
                        null);
        assertThat(ensemble.perTeacherPlan()).isNull();
        assertThat(ensemble.isPrivate()).isTrue();
        assertThatThrownBy(
                        () -> new RunPlan(gnmax, new BudgetPlan(TERMS, STEP), CHARGE_AT_VOTE, null))
                .hasMessageContaining("per-teacher");
        RunPlan.Choice b = RunPlan.Choice.of(new ConfiguredMechanism("scheme-b", Map.of()), B_PLAN);
        assertThat(
                        new RunPlan(b, new BudgetPlan(TERMS, STEP), CHARGE_AT_VOTE, null)
                                .perTeacherPlan())
                .isSameAs(B_PLAN);
        assertThatThrownBy(
                        () ->
                                new RunPlan(
                                        b,
                                        new BudgetPlan(TERMS, STEP),
                                        new AccountingMode.EnsembleOnly(),
                                        null))
                .hasMessageContaining("per-teacher");
    }

    @Test
    void theBudgetPlanPlansTheRunFilterOnceAndAgainAfterDeserialisation() throws Exception {
        BudgetPlan plan = new BudgetPlan(TERMS, STEP);
        var first = plan.runConfig();
        assertThat(plan.runConfig()).isSameAs(first); // planned once, then the same object
        assertThat(first)
                .isEqualTo(
                        org.hotpate.core.accounting.EnsembleBudgetFilter.Config.plan(
                                new org.hotpate.core.privacy.PrivacyBudget(4.0, 1e-6), STEP));
        var bytes = new java.io.ByteArrayOutputStream();
        try (var out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(plan);
        }
        BudgetPlan copy;
        try (var in =
                new java.io.ObjectInputStream(
                        new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            copy = (BudgetPlan) in.readObject();
        }
        assertThat(copy).isEqualTo(plan);
        assertThat(copy.runConfig()).isEqualTo(first);
        assertThat(new BudgetPlan(TERMS, new PrivacyEvent.NotPrivate("targmax")).runConfig())
                .isNull();
        assertThat(
                        new BudgetPlan(new BudgetTerms(Double.POSITIVE_INFINITY, 1e-6, 8.0), STEP)
                                .runConfig())
                .isNull();
    }
}
