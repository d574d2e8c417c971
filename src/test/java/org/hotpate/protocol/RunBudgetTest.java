package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.Outcome;
import org.junit.jupiter.api.Test;

/** The run's budget and the accountant's admission rule (charge before emit, hard stop). */
class RunBudgetTest {
    private static final double INF = Double.POSITIVE_INFINITY;
    private static final PrivacyEvent STEP = new PrivacyEvent.Gaussian(4.0, Math.sqrt(2));
    private static final BudgetTerms TWO = new BudgetTerms(2.0, 1e-6, INF);

    @Test
    void admitsUntilTheWorstCaseNoLongerFits_thenRefusesWithoutChanging() {
        RunBudget b = new BudgetPlan(TWO, STEP).start(DatasetPrior.empty("d"));
        int admitted = 0;
        while (b.admit(STEP)) {
            admitted++;
            assertThat(b.runEpsilon()).isLessThanOrEqualTo(2.0);
        }
        assertThat(admitted).isPositive();
        double[] before = b.snapshot();
        assertThat(b.admit(new PrivacyEvent.NoOp()))
                .as("admission is on the worst case, never on the realized event")
                .isFalse();
        assertThat(b.snapshot()).isEqualTo(before);
        assertThat(b.releases()).isEqualTo(admitted);
        RunBudget restored =
                new BudgetPlan(TWO, STEP).restore(DatasetPrior.empty("d"), null, before);
        assertThat(restored.runEpsilon()).isEqualTo(b.runEpsilon());
        assertThat(restored.canAfford()).isFalse();
    }

    @Test
    void onceExhaustedARunChargesNothing_evenACheapRelease() {
        RunBudget b = new BudgetPlan(TWO, STEP).start(DatasetPrior.empty("d"));
        Admission a = Admission.decide(b, true, new PrivacyEvent.NoOp(), true);
        assertThat(a.charged()).isFalse();
        assertThat(b.releases()).isZero();
        assertThat(a.outcome(5)).isEqualTo(Outcome.BUDGET_EXHAUSTED);
        assertThat(a.result(new StepId("r", 0, 0, 0), 5, "m", "{}", 3.0, 7))
                .satisfies(
                        r -> {
                            assertThat(r.token()).isEqualTo(-1);
                            assertThat(r.privacyEvent()).isEmpty();
                            assertThat(r.noisyCount()).isNaN();
                        });
    }

    @Test
    void aChargedReleaseIsPublishedWithItsTokenOrBottom() {
        RunBudget b = new BudgetPlan(TWO, STEP).start(DatasetPrior.empty("d"));
        Admission a = Admission.decide(b, false, STEP, true);
        assertThat(a.charged()).isTrue();
        assertThat(a.outcome(5)).isEqualTo(Outcome.TOKEN);
        assertThat(a.outcome(-1)).isEqualTo(Outcome.FAIL);
        assertThat(a.result(new StepId("r", 0, 0, 0), 5, "m", "{}", 3.0, 7).token()).isEqualTo(5);
        assertThat(a.runEpsilon()).isEqualTo(b.runEpsilon()).isPositive();
    }

    @Test
    void aNonPrivateReleaseIsRefusedUnderAnyFiniteBudget_andCountedWithoutOne() {
        PrivacyEvent np = new PrivacyEvent.NotPrivate("targmax");
        assertThat(new BudgetPlan(TWO, np).start(DatasetPrior.empty("d")).admit(np)).isFalse();
        assertThat(
                        new BudgetPlan(new BudgetTerms(INF, 1e-6, 3), np)
                                .start(DatasetPrior.empty("d"))
                                .admit(np))
                .isFalse();
        RunBudget free =
                new BudgetPlan(new BudgetTerms(INF, 1e-6, INF), np).start(DatasetPrior.empty("d"));
        assertThat(free.admit(np)).isTrue();
        Admission a = Admission.decide(free, false, np, false);
        assertThat(a.runEpsilon()).isInfinite();
        assertThat(a.datasetEpsilon()).isInfinite();
        assertThat(free.record("run", false, "targmax", 2, 0).releases()).isEqualTo(2);
    }

    @Test
    void theDatasetComposesItsRunsAndRefusesARunWithoutRoom() {
        BudgetTerms terms = new BudgetTerms(2.0, 1e-6, 2.5);
        RunBudget first = new BudgetPlan(terms, STEP).start(DatasetPrior.empty("d"));
        while (first.admit(STEP)) {
            // spend the run's whole budget
        }
        BudgetRecord run1 = first.record("run-1", true, "gnmax", first.releases(), 1);
        DatasetPrior prior = DatasetPrior.compose("d", List.of(run1), "run-2");
        assertThat(prior.runs()).isEqualTo(1);
        assertThat(prior.epsilon(1e-6)).isCloseTo(run1.epsilon(), within(1e-12));
        assertThat(DatasetPrior.compose("d", List.of(run1), "run-1").runs())
                .as("a redeployed run does not count its own curve twice")
                .isZero();
        assertThat(new BudgetPlan(terms, STEP).hasRoom(prior, null)).isFalse();
        assertThat(new BudgetPlan(new BudgetTerms(2.0, 1e-6, INF), STEP).hasRoom(prior, null))
                .as("budget.dataset-epsilon: .inf does not lift the cap run 1 planned")
                .isFalse();
        RunBudget second = new BudgetPlan(terms, STEP).start(prior);
        while (second.admit(STEP)) {
            assertThat(second.datasetEpsilon()).isLessThanOrEqualTo(2.5);
        }
        assertThat(second.releases()).isLessThan(first.releases());
    }

    @Test
    void theEnforcedDatasetCapIsThePlanOfTheFirstUse_notALaterRunsRequest() {
        BudgetTerms first = new BudgetTerms(2.0, 1e-6, 2.5);
        RunBudget run1 = new BudgetPlan(first, STEP).start(DatasetPrior.empty("d"));
        assertThat(new BudgetPlan(first, STEP).enforcedDatasetEpsilon(DatasetPrior.empty("d")))
                .as("a dataset's first use plans the requested cap")
                .isEqualTo(2.5);
        while (run1.admit(STEP)) {
            // spend the run's whole budget
        }
        DatasetPrior prior =
                DatasetPrior.compose(
                        "d", List.of(run1.record("run-1", true, "gnmax", 1, 1)), "run-2");
        BudgetTerms later = new BudgetTerms(2.0, 1e-6, 5.0);
        assertThat(new BudgetPlan(later, STEP).enforcedDatasetEpsilon(prior))
                .as("the plan fixed at the first use, not the later budget.dataset-epsilon")
                .isEqualTo(2.5);
        assertThat(new BudgetPlan(later, STEP).epsilonWithFullRun(prior, null)).isBetween(2.5, 5.0);
        assertThat(new BudgetPlan(later, STEP).hasRoom(prior, null))
                .as("admission compares with the enforced cap, which a full run would pass")
                .isFalse();
        RunBudget run2 = new BudgetPlan(later, STEP).start(prior);
        while (run2.admit(STEP)) {
            assertThat(run2.datasetEpsilon()).isLessThanOrEqualTo(2.5);
        }
        assertThat(
                        new BudgetPlan(new BudgetTerms(2.0, 1e-6, INF), STEP)
                                .enforcedDatasetEpsilon(prior))
                .as("a later run with budget.dataset-epsilon: .inf is held to the planned cap")
                .isEqualTo(2.5);
    }

    /**
     * Issue 23: a cap, once planned, binds every later run. Before, a run with {@code
     * budget.dataset-epsilon: .inf} had no dataset filter: it was admitted and released past the
     * planned 2.5, and a non-private reference run made the dataset's ε infinite.
     */
    @Test
    void aLaterRunWithoutADatasetCapCannotLiftThePlannedOne() {
        RunBudget run1 =
                new BudgetPlan(new BudgetTerms(2.0, 1e-6, 2.5), STEP)
                        .start(DatasetPrior.empty("d"));
        while (run1.admit(STEP)) {
            // spend the run's whole budget
        }
        DatasetPrior prior =
                DatasetPrior.compose(
                        "d", List.of(run1.record("run-1", true, "gnmax", 1, 1)), "run-2");
        BudgetTerms uncapped = new BudgetTerms(2.0, 1e-6, INF);
        assertThat(uncapped.datasetCapped(prior)).isTrue();
        RunBudget run2 = new BudgetPlan(uncapped, STEP).start(prior);
        int admitted = 0;
        while (run2.admit(STEP)) {
            admitted++;
            assertThat(run2.datasetEpsilon()).isLessThanOrEqualTo(2.5);
        }
        assertThat(admitted)
                .as("the dataset filter stops run 2 at the planned cap")
                .isLessThan((int) run1.releases());
        PrivacyEvent np = new PrivacyEvent.NotPrivate("targmax");
        assertThat(new BudgetPlan(new BudgetTerms(INF, 1e-6, INF), np).start(prior).admit(np))
                .as("a non-private run on a capped dataset releases nothing")
                .isFalse();
        assertThat(new BudgetPlan(new BudgetTerms(INF, 1e-6, INF), np).hasRoom(prior, null))
                .isFalse();
    }

    @Test
    void anUncappedDatasetsEpsilonIsTheCurveAtThePlannedOrder_notTheMinimumOverOrders() {
        // Worked example: two runs of 3 Gaussian releases each (σ = 20, sensitivity √2: ρ(α) =
        // α/400), no dataset cap. The run filter planned order α from (2.0, 1e-6) and the worst
        // case; the dataset's curve is the sum of both runs' curves, ρ_D(α) = 6α/400, converted
        // at that α (improved conversion, δ = 1e-6) — not at the order best for the sum.
        PrivacyEvent step = new PrivacyEvent.Gaussian(20, Math.sqrt(2));
        BudgetTerms terms = new BudgetTerms(2.0, 1e-6, INF);
        RunBudget run1 = new BudgetPlan(terms, step).start(DatasetPrior.empty("d"));
        for (int i = 0; i < 3; i++) {
            assertThat(run1.admit(step)).isTrue();
        }
        assertThat(run1.datasetEpsilon())
                .as("a dataset's first run: its dataset ε is its own ε")
                .isEqualTo(run1.runEpsilon());
        DatasetPrior prior =
                DatasetPrior.compose(
                        "d", List.of(run1.record("run-1", true, "gnmax", 3, 1)), "run-2");
        RunBudget run2 = new BudgetPlan(terms, step).start(prior);
        for (int i = 0; i < 3; i++) {
            assertThat(run2.admit(step)).isTrue();
        }
        org.hotpate.core.accounting.EnsembleBudgetFilter.Config plan =
                new BudgetPlan(terms, step).runConfig();
        double[] per = org.hotpate.core.privacy.RdpAccountant.rdpOf(step, RunBudget.grid());
        double atOrder = 6 * per[plan.orderIndex()];
        double expected =
                org.hotpate.core.privacy.RdpConversions.epsilonAtOrder(
                        plan.order(), atOrder, 1e-6, plan.conversion());
        assertThat(run2.datasetEpsilon()).isCloseTo(expected, within(1e-12));
        double[] six = new double[per.length];
        for (int i = 0; i < per.length; i++) {
            six[i] = 6 * per[i];
        }
        double minOverOrders =
                org.hotpate.core.privacy.RdpConversions.epsilon(
                                RunBudget.grid().orders(), six, 1e-6, plan.conversion())
                        .epsilon();
        assertThat(minOverOrders)
                .as("the old rule picked the order after the fact, and printed less")
                .isLessThan(expected);
        DatasetPrior both =
                DatasetPrior.compose(
                        "d",
                        List.of(
                                run1.record("run-1", true, "gnmax", 3, 1),
                                run2.record("run-2", true, "gnmax", 3, 2)),
                        null);
        assertThat(both.epsilon(1e-6, plan)).isCloseTo(expected, within(1e-12));
        assertThat(both.epsilon(1e-6))
                .as("no order fixed in advance (no plan, no run order): no finite value")
                .isInfinite();
    }

    /**
     * Issue 23: a dataset first used without a cap cannot get one planned later — its order and cap
     * would be chosen after the earlier outputs were seen. A capped first run plans it; an empty
     * dataset or one with a plan is fine.
     */
    @Test
    void aCapIsPlannedAtTheDatasetsFirstRunOrNever() {
        RunBudget uncapped = new BudgetPlan(TWO, STEP).start(DatasetPrior.empty("d"));
        uncapped.admit(STEP);
        DatasetPrior afterUncapped =
                DatasetPrior.compose(
                        "d", List.of(uncapped.record("run-1", true, "gnmax", 1, 1)), "run-2");
        BudgetTerms capped = new BudgetTerms(2.0, 1e-6, 5.0);
        assertThat(capped.capPlannedAfterUse(afterUncapped)).isTrue();
        assertThat(TWO.capPlannedAfterUse(afterUncapped)).isFalse();
        assertThat(capped.capPlannedAfterUse(DatasetPrior.empty("d"))).isFalse();
        RunBudget first = new BudgetPlan(capped, STEP).start(DatasetPrior.empty("d"));
        first.admit(STEP);
        DatasetPrior planned =
                DatasetPrior.compose(
                        "d", List.of(first.record("run-1", true, "gnmax", 1, 1)), "run-2");
        assertThat(capped.capPlannedAfterUse(planned)).isFalse();
    }

    @Test
    void aPopulationPriorIsChargedFirstAndOnce_andLeavesTheReleaseCountAlone() {
        PrivacyEvent cheap = new PrivacyEvent.Gaussian(40.0, Math.sqrt(2)); // ~100s of releases
        PriorPlan prior = new PriorPlan(3, 8, 0.25);
        RunBudget without = new BudgetPlan(TWO, cheap).start(DatasetPrior.empty("d"));
        RunBudget with = new BudgetPlan(TWO, cheap).start(DatasetPrior.empty("d"), prior);
        assertThat(with.releases()).isZero();
        assertThat(with.runEpsilon()).isGreaterThan(0);
        int a = 0;
        while (without.admit(cheap)) {
            a++;
        }
        int b = 0;
        while (with.admit(cheap)) {
            b++;
        }
        assertThat(with.runEpsilon()).isLessThanOrEqualTo(2.0);
        // the prior took about a quarter of the Renyi budget at the filter's order
        assertThat((double) b / a).isBetween(0.70, 0.78);
        assertThat(with.releases()).isEqualTo(b);
        // a restore holds the prior's charge already: it is not charged again
        RunBudget restored =
                new BudgetPlan(TWO, cheap).restore(DatasetPrior.empty("d"), prior, with.snapshot());
        assertThat(restored.runEpsilon()).isEqualTo(with.runEpsilon());
        assertThat(restored.canAfford()).isFalse();
    }

    @Test
    void aPopulationPriorsDeltaTermHasItsOwnShareOfDelta() {
        PrivacyEvent prior = new PriorPlan(3, 8, 0.25).event(new BudgetPlan(TWO, STEP));
        double share = org.hotpate.core.privacy.RdpAccountant.deltaOf(prior);
        assertThat(share).isPositive().isLessThanOrEqualTo(TWO.delta() * PriorPlan.DELTA_SHARE);
        assertThat(new BudgetPlan(TWO, STEP).runConfig(prior).approxDeltaShare())
                .isGreaterThanOrEqualTo(share)
                .isLessThan(TWO.delta());
    }
}
