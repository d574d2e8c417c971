package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.prior.DpNgramExtraction;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpConversions;
import org.hotpate.model.BudgetRecord;
import org.junit.jupiter.api.Test;

/**
 * The population prior across a dataset's runs (issue 39 items 1 and 2): admission counts the
 * prior's RDP and δ term before it is drawn, and the dataset's ε covers the priors' coupling term
 * (1 + e^ε_D)·Σ η at the ε it claims (docs/proofs/dp-ngram-prior.md, "Across runs"), checked by
 * exact computation.
 */
class PriorAccountingTest {
    private static final double INF = Double.POSITIVE_INFINITY;
    private static final PrivacyEvent STEP = new PrivacyEvent.Gaussian(4.0, Math.sqrt(2));
    private static final BudgetTerms TWO = new BudgetTerms(2.0, 1e-6, INF);
    private static final PriorPlan PRIOR = new PriorPlan(3, 8, 0.25);

    /** One run spending its whole budget on worst-case steps, after its prior (null: none). */
    private static BudgetRecord fullRun(
            BudgetTerms terms, DatasetPrior before, PriorPlan prior, String runId) {
        RunBudget b = new BudgetPlan(terms, STEP).start(before, prior);
        int n = 0;
        while (b.admit(STEP)) {
            n++;
        }
        return b.record(runId, true, "gnmax", n, 1000 + before.runs());
    }

    /**
     * The reviewer's scenario: a first run fixed the dataset's cap (budget.dataset-epsilon 8, ε 2,
     * a mechanism without δ terms: the dataset's δ share is 0); a second run with a prior must be
     * refused at admission — its δ term cannot fit — not after the table is drawn. On main 8059115
     * hasRoom ignored the prior and admitted it (the job then failed at its first candidate, the
     * table drawn and charged nowhere).
     */
    @Test
    void admissionRefusesAPriorWhoseDeltaTermTheDatasetCannotHold() {
        BudgetTerms capped = new BudgetTerms(2.0, 1e-6, 8.0);
        BudgetRecord first = fullRun(capped, DatasetPrior.empty("d"), null, "run-1");
        DatasetPrior planned = DatasetPrior.compose("d", List.of(first), "run-2");
        assertThat(planned.plan()).hasSize(5);
        assertThat(new BudgetPlan(TWO, STEP).hasRoom(planned, null))
                .as("the same run without a prior")
                .isTrue();
        assertThat(new BudgetPlan(TWO, STEP).hasRoom(planned, PRIOR)).isFalse();
        assertThatThrownBy(
                        () ->
                                DatasetAdmission.requireRoom(
                                        "d", planned, new BudgetPlan(TWO, STEP), PRIOR))
                .isInstanceOf(DatasetAdmission.Refused.class)
                .hasMessageContaining("population prior")
                .hasMessageContaining("delta share");
        // and the admission agrees with the filters: this prior cannot be charged at all
        assertThatThrownBy(() -> new BudgetPlan(TWO, STEP).start(planned, PRIOR))
                .isInstanceOf(IllegalStateException.class);
    }

    /**
     * A capped dataset whose δ share (planned by its first run, whose releases have δ terms) holds
     * the prior's term admits the prior run; the prior's RDP and δ term then count in the dataset's
     * composition, its δ term at the dataset's cap ε_D.
     */
    @Test
    void aPriorTheDatasetCanHoldIsAdmittedAndComposedAtTheCap() {
        PrivacyEvent withDelta =
                new PrivacyEvent.Composed(List.of(STEP, new PrivacyEvent.ApproximateDp(0, 3e-8)));
        BudgetTerms capped = new BudgetTerms(2.0, 1e-6, 8.0);
        RunBudget firstRun = new BudgetPlan(capped, withDelta).start(DatasetPrior.empty("d"));
        firstRun.admit(withDelta);
        BudgetRecord first = firstRun.record("run-1", true, "x", 1, 1);
        DatasetPrior planned = DatasetPrior.compose("d", List.of(first), "run-2");
        PriorPlan.Charge c = PRIOR.charge(new BudgetPlan(TWO, withDelta), planned);
        assertThat(PriorPlan.claim(TWO, planned))
                .as("the δ term at the dataset's cap")
                .isEqualTo(8);
        assertThat(c.coupling())
                .isEqualTo(DpNgramExtraction.couplingDelta(8, c.slack()))
                .isLessThanOrEqualTo(TWO.delta() * PriorPlan.DELTA_SHARE);
        assertThat(new BudgetPlan(TWO, withDelta).epsilonWithFullRun(planned, PRIOR))
                .isGreaterThan(
                        new BudgetPlan(TWO, withDelta).epsilonWithFullRun(planned, null) - 0.5)
                .isLessThanOrEqualTo(8);
        assertThat(new BudgetPlan(TWO, withDelta).hasRoom(planned, PRIOR)).isTrue();
        RunBudget second = new BudgetPlan(TWO, withDelta).start(planned, PRIOR);
        BudgetRecord r = second.record("run-2", true, "x", 0, 2);
        assertThat(r.priorSlack()).isEqualTo(c.slack());
        DatasetPrior both = DatasetPrior.compose("d", List.of(first, r), null);
        DatasetPrior firstOnly = DatasetPrior.compose("d", List.of(first), null);
        assertThat(both.rdp()[12]).isGreaterThan(firstOnly.rdp()[12]);
        // the planned filter's Σδ holds the first run's δ and the prior's term at ε_D = 8
        assertThat(both.plannedBudget().priorApproxDelta())
                .isEqualTo(first.approxDelta() + DpNgramExtraction.couplingDelta(8, c.slack()));
    }

    /**
     * Issue 39 item 2: four runs with priors on one dataset without a cap, each spending its
     * budget. After each, the dataset's reported ε, converted back to a δ at its fixed order
     * (RdpConversions.delta, the other direction of the conversion), plus the runs' δ terms and the
     * coupling (1 + e^ε_D)·Σ η — computed here from the runs' η — is at most δ: a printed (ε_D, δ)
     * is covered by the proof. When no ε is (checked on a grid up to 60), the dataset reports +∞.
     * On main 8059115 each run recorded (1 + e^2)·η in its Σδ and the dataset printed a finite ε
     * from the third run on that this check refutes.
     */
    @Test
    void fourRunsWithPriorsReportADatasetEpsilonTheCouplingCovers() {
        List<BudgetRecord> ledger = new ArrayList<>();
        EnsembleBudgetFilter.Config order = new BudgetPlan(TWO, STEP).runConfig();
        double previous = 0;
        int finite = 0;
        for (int run = 1; run <= 4; run++) {
            DatasetPrior before = DatasetPrior.compose("d", ledger, null);
            BudgetRecord r = fullRun(TWO, before, PRIOR, "run-" + run);
            DpNgramExtraction x = PRIOR.extraction(new BudgetPlan(TWO, STEP), before);
            assertThat(r.priorSlack()).isEqualTo(x.thresholdSlack()).isPositive();
            assertThat(r.approxDelta())
                    .as("the δ term is not in Σδ: the dataset composes it")
                    .isZero();
            ledger.add(r);
            DatasetPrior all = DatasetPrior.compose("d", ledger, null);
            double slack = run * x.thresholdSlack();
            assertThat(all.priorSlack())
                    .isCloseTo(slack, org.assertj.core.data.Offset.offset(1e-20));
            double rdpAtOrder = all.rdp()[order.orderIndex()];
            double eps = all.epsilon(TWO.delta(), order);
            assertThat(eps).isGreaterThanOrEqualTo(previous);
            previous = eps;
            if (Double.isFinite(eps)) {
                finite++;
                assertThat(needed(order, rdpAtOrder, all.approxDelta(), slack, eps))
                        .as("run %d: ε_D %s", run, eps)
                        .isLessThanOrEqualTo(TWO.delta() * (1 + 1e-9));
            } else {
                for (double e = 0; e <= 60; e += 0.01) {
                    assertThat(needed(order, rdpAtOrder, all.approxDelta(), slack, e))
                            .as(
                                    "run %d: no finite ε covers it, so none may be printed; ε %s",
                                    run, e)
                            .isGreaterThan(TWO.delta());
                }
            }
        }
        assertThat(finite).as("the first runs' dataset ε is finite").isGreaterThanOrEqualTo(2);
        // the run's own view of the dataset agrees with the ledger's
        DatasetPrior three = DatasetPrior.compose("d", ledger.subList(0, 2), null);
        RunBudget third = new BudgetPlan(TWO, STEP).start(three, PRIOR);
        while (third.admit(STEP)) {
            // spend it
        }
        assertThat(third.datasetEpsilon())
                .isEqualTo(
                        DatasetPrior.compose(
                                        "d",
                                        List.of(
                                                ledger.get(0),
                                                ledger.get(1),
                                                third.record("run-3", true, "gnmax", 1, 9)),
                                        null)
                                .epsilon(TWO.delta(), order));
    }

    /** The δ a claim of ε needs: the RDP's δ at the order, the runs' Σδ, the coupling. */
    private static double needed(
            EnsembleBudgetFilter.Config order,
            double rdpAtOrder,
            double approxDelta,
            double slack,
            double eps) {
        return RdpConversions.delta(
                        new double[] {order.order()},
                        new double[] {rdpAtOrder},
                        eps,
                        order.conversion())
                + approxDelta
                + (1 + Math.exp(eps)) * slack;
    }

    /** Without priors the dataset's ε is what it was (the δ term and the fixed point vanish). */
    @Test
    void withoutPriorsTheDatasetsEpsilonIsUnchanged() {
        List<BudgetRecord> ledger = new ArrayList<>();
        for (int run = 1; run <= 3; run++) {
            ledger.add(fullRun(TWO, DatasetPrior.compose("d", ledger, null), null, "run-" + run));
        }
        DatasetPrior all = DatasetPrior.compose("d", ledger, null);
        EnsembleBudgetFilter.Config order = new BudgetPlan(TWO, STEP).runConfig();
        assertThat(all.priorSlack()).isZero();
        assertThat(all.epsilon(TWO.delta(), order))
                .isEqualTo(order.epsilonAt(all.rdp()[order.orderIndex()]));
    }
}
