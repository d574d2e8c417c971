package org.hotpate.stream.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hotpate.stream.Fixtures.RUN;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.mechanism.ConfiguredMechanism;
import org.hotpate.core.noise.KeyedNoiseSource;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.privacy.RdpAccountant;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.PrivacyEventJson;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.Outcome;
import org.hotpate.model.Rejected;
import org.hotpate.model.ReleaseCandidate;
import org.hotpate.model.StepResult;
import org.hotpate.model.Vote;
import org.hotpate.model.VoteBatch;
import org.hotpate.protocol.AccountingMode;
import org.hotpate.protocol.BudgetPlan;
import org.hotpate.protocol.BudgetTerms;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.IndividualScheme;
import org.hotpate.protocol.StepId;
import org.hotpate.stream.Fixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunAccountantTest {
    private static final double BUDGET = 2.0;
    private static final PrivacyEvent STEP =
            new PrivacyEvent.Gaussian(4.0, Math.sqrt(2)); // a fixed data-independent cost
    private KeyedOneInputStreamOperatorTestHarness<String, ReleaseCandidate, StepResult> h;

    @TempDir Path ledgerDir;

    private static final BudgetTerms TERMS =
            new BudgetTerms(BUDGET, 1e-6, Double.POSITIVE_INFINITY);

    /** A DP run admitting every release on {@code worst}. */
    private static RunAccountant.Settings settings(
            BudgetTerms b, DatasetPrior prior, String dir, PrivacyEvent worst) {
        return new RunAccountant.Settings(
                new BudgetPlan(b, worst),
                prior,
                true,
                new AccountingMode.EnsembleOnly(),
                dir == null ? LedgerSink.JOB_OUTPUT : LedgerSink.local(dir));
    }

    private void open(RunAccountant.Settings s) throws Exception {
        h =
                ProcessFunctionTestHarnesses.forKeyedProcessFunction(
                        new RunAccountant(s), ReleaseCandidate::runId, Types.STRING);
    }

    /** The run's budget (ε = BUDGET), its releases admitted on {@code worst}. */
    private void open(PrivacyEvent worst) throws Exception {
        open(settings(TERMS, DatasetPrior.empty("ds"), null, worst));
    }

    @AfterEach
    void close() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    /** A candidate whose release realized event {@code e}. */
    private static ReleaseCandidate candidate(int step, int token, PrivacyEvent e) {
        return new ReleaseCandidate(
                RUN,
                0,
                step,
                0,
                token,
                "gnmax",
                PrivacyEventJson.encode(e),
                Double.NaN,
                new long[0],
                5,
                token < 0 ? -1 : 3,
                5,
                0,
                new long[0]);
    }

    private List<LedgerEntry> ledger() {
        return h.getSideOutput(Tags.LEDGER) == null
                ? List.of()
                : h.getSideOutput(Tags.LEDGER).stream().map(StreamRecord::getValue).toList();
    }

    private List<BudgetRecord> budgetLedger() {
        return h.getSideOutput(Tags.BUDGET_LEDGER) == null
                ? List.of()
                : h.getSideOutput(Tags.BUDGET_LEDGER).stream().map(StreamRecord::getValue).toList();
    }

    @Test
    void shouldStopHardAtTheBudgetAndNeverReleasePastIt() throws Exception {
        open(STEP);
        for (int i = 0; i < 40; i++) {
            h.processElement(candidate(i, i % 2 == 0 ? 7 : -1, STEP), 0);
        }
        List<StepResult> out = h.extractOutputValues();
        long released = out.stream().filter(r -> r.outcome() != Outcome.BUDGET_EXHAUSTED).count();
        assertThat(released).isBetween(1L, 39L);
        // Released results come first, then only refusals: a refusal is final.
        assertThat(out.subList(0, (int) released))
                .allMatch(r -> r.outcome() != Outcome.BUDGET_EXHAUSTED);
        assertThat(out.subList((int) released, out.size()))
                .allMatch(r -> r.outcome() == Outcome.BUDGET_EXHAUSTED && r.token() == -1);
        // Every release is charged exactly once and within the budget.
        assertThat(ledger().stream().filter(e -> e.kind() == LedgerKind.CHARGE).count())
                .isEqualTo(released);
        assertThat(ledger())
                .filteredOn(e -> e.kind() == LedgerKind.CHARGE)
                .allMatch(e -> e.epsilonAfter() <= BUDGET + 1e-12);
        // the agreement profile's input: a charged token's votes reach the ledger, ⊥ and a
        // refusal carry none
        assertThat(ledger())
                .filteredOn(e -> e.kind() == LedgerKind.CHARGE)
                .allMatch(e -> e.releasedVotes() == (e.step() % 2 == 0 ? 3 : -1));
        assertThat(ledger())
                .filteredOn(e -> e.kind() == LedgerKind.REFUSED)
                .allMatch(e -> e.releasedVotes() == -1);
        assertThat(out).allMatch(r -> r.epsilonSpent() <= BUDGET + 1e-12);
        assertThat(ledger())
                .filteredOn(e -> e.kind() == LedgerKind.CHARGE)
                .extracting(LedgerEntry::releases)
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(budgetLedger()).hasSize((int) released);
        assertThat(budgetLedger().get((int) released - 1).releases()).isEqualTo(released);
    }

    @Test
    void shouldRefuseEvenACheapEventOnceExhausted() throws Exception {
        open(new PrivacyEvent.Gaussian(0.5, Math.sqrt(2))); // the run's worst case
        h.processElement(
                candidate(0, 1, new PrivacyEvent.Gaussian(0.5, Math.sqrt(2))),
                0); // too expensive alone
        h.processElement(candidate(1, 1, new PrivacyEvent.NoOp()), 0);
        assertThat(h.extractOutputValues())
                .extracting(StepResult::outcome)
                .containsExactly(Outcome.BUDGET_EXHAUSTED, Outcome.BUDGET_EXHAUSTED);
    }

    @Test
    void shouldRefuseAStepWhoseWorstCaseDoesNotFit_evenWhenItsOutcomeWasBottom() throws Exception {
        PrivacyEvent bottom = new PrivacyEvent.ConfidentGnmax(20, 4, 0.5, false);
        PrivacyEvent worst = new PrivacyEvent.ConfidentGnmax(20, 4, 0.5, true);
        open(worst);
        h.processElement(candidate(0, -1, bottom), 0);
        assertThat(h.extractOutputValues())
                .extracting(StepResult::outcome)
                .containsExactly(Outcome.BUDGET_EXHAUSTED);
        assertThat(ledger()).extracting(LedgerEntry::kind).containsExactly(LedgerKind.REFUSED);
    }

    @Test
    void shouldChargeTheRealizedEvent_afterAdmittingOnTheWorstCase() throws Exception {
        PrivacyEvent bottom = new PrivacyEvent.ConfidentGnmax(20, 4, 4, false);
        PrivacyEvent worst = new PrivacyEvent.ConfidentGnmax(20, 4, 4, true);
        open(worst);
        h.processElement(candidate(0, -1, bottom), 0);
        h.processElement(candidate(1, 3, worst), 0);
        List<LedgerEntry> charges = ledger();
        assertThat(charges)
                .extracting(LedgerEntry::kind)
                .containsExactly(LedgerKind.CHARGE, LedgerKind.CHARGE);
        // ⊥ paid only its threshold step; the answer paid threshold + argmax (at the fixed order)
        EnsembleBudgetFilter.Config cfg =
                EnsembleBudgetFilter.Config.plan(new PrivacyBudget(BUDGET, 1e-6), worst);
        int i = cfg.orderIndex();
        double rBottom = RdpAccountant.rdpOf(bottom, cfg.grid())[i];
        double rWorst = RdpAccountant.rdpOf(worst, cfg.grid())[i];
        assertThat(charges.get(0).epsilonAfter()).isEqualTo(cfg.epsilonAt(rBottom));
        assertThat(charges.get(1).epsilonAfter()).isEqualTo(cfg.epsilonAt(rBottom + rWorst));
    }

    @Test
    void shouldRefuseANonPrivateReferenceUnderAFiniteBudget() throws Exception {
        PrivacyEvent notPrivate = new PrivacyEvent.NotPrivate("targmax");
        open(notPrivate);
        h.processElement(candidate(0, 3, notPrivate), 0);
        assertThat(h.extractOutputValues())
                .extracting(StepResult::outcome)
                .containsExactly(Outcome.BUDGET_EXHAUSTED);
    }

    @Test
    void shouldNotPublishTheVoteCountProfile() throws Exception {
        open(new PrivacyEvent.Gnmax(40.0));
        h.processElement(candidate(0, 3, new PrivacyEvent.Gnmax(40.0)), 0);
        assertThat(h.extractOutputValues())
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.outcome()).isEqualTo(Outcome.TOKEN);
                            assertThat(r.privacyEvent())
                                    .contains("Gnmax")
                                    .doesNotContain("countsDescending")
                                    .doesNotContain("profile");
                        });
        assertThat(ledger())
                .singleElement()
                .satisfies(
                        e -> {
                            assertThat(e.privacyEvent()).doesNotContain("profile");
                            assertThat(e.votesCast()).isEqualTo(5); // operator-only
                        });
    }

    /**
     * A step key is released once per run: a late or replayed candidate for a released key is never
     * published or charged. Fails on the code before the per-run record of released keys: the
     * accountant published and charged the second candidate.
     */
    @Test
    void aSecondCandidateForAReleasedStepKeyIsNeverPublishedOrCharged() throws Exception {
        open(STEP);
        h.processElement(candidate(0, 7, STEP), 0);
        h.processElement(candidate(0, 8, STEP), 0); // same key, another answer
        assertThat(h.extractOutputValues()).extracting(StepResult::token).containsExactly(7);
        assertThat(ledger()).filteredOn(e -> e.kind() == LedgerKind.CHARGE).hasSize(1);
        assertThat(h.getSideOutput(Tags.REJECTED))
                .extracting(r -> r.getValue().reason())
                .containsExactly(Rejected.DUPLICATE_RELEASE);
    }

    /**
     * End to end through the reducer: after the reducer's retention it has forgotten a closed step,
     * so a late vote reopens the key and it emits a second candidate — the accountant (which keeps
     * released keys for the run's lifetime) publishes and charges it never.
     */
    @Test
    void aLateVoteAfterTheReducersRetentionIsNeverReleasedTwice() throws Exception {
        ConfiguredMechanism gnmax = new ConfiguredMechanism("gnmax", Map.of("sigma", 30.0));
        var reducer =
                ProcessFunctionTestHarnesses.forKeyedCoProcessFunction(
                        new StepReducer(
                                new StepReducer.Settings(
                                        "dist",
                                        Fixtures.SHAPE,
                                        2,
                                        1,
                                        5000,
                                        gnmax,
                                        new AccountingMode.EnsembleOnly(),
                                        KeyedNoiseSource.newSecret())),
                        (VoteBatch b) -> StepId.keyOf(b),
                        (GenerationStep g) -> StepId.keyOf(g),
                        Types.STRING);
        try {
            reducer.setProcessingTime(0);
            reducer.processElement2(Fixtures.step(0, 0, 0), 0);
            reducer.processElement1(VoteBatch.of(new Vote(RUN, 0, 0, 0, 0, 4)), 0);
            reducer.processElement1(VoteBatch.of(new Vote(RUN, 0, 0, 0, 1, 4)), 0); // closes
            reducer.setProcessingTime(10_000); // past the retention: the reducer forgets
            // A late duplicate, with the step redelivered: to the reducer it is a new step.
            reducer.processElement2(Fixtures.step(0, 0, 0), 10_000);
            reducer.processElement1(VoteBatch.of(new Vote(RUN, 0, 0, 0, 1, 4)), 10_000);
            reducer.setProcessingTime(12_000); // its deadline: a second candidate
            List<ReleaseCandidate> candidates = reducer.extractOutputValues();
            assertThat(candidates).hasSize(2);
            open(
                    gnmax.create(Fixtures.VOCAB, 2, org.hotpate.core.noise.NoiseSources.secure())
                            .worstCaseEvent());
            for (ReleaseCandidate c : candidates) {
                h.processElement(c, 0);
            }
            assertThat(h.extractOutputValues()).hasSize(1);
            assertThat(ledger()).filteredOn(e -> e.kind() == LedgerKind.CHARGE).hasSize(1);
        } finally {
            reducer.close();
        }
    }

    /**
     * The dataset's cap: with earlier runs that spent most of {@code budget.dataset-epsilon}, the
     * run stops when the composition reaches it, before its own budget.
     */
    @Test
    void theDatasetCapStopsTheRunWhenEarlierRunsSpentMostOfIt() throws Exception {
        BudgetTerms budget = new BudgetTerms(BUDGET, 1e-6, 2.5);
        PrivacyEvent cheap = new PrivacyEvent.Gaussian(20.0, Math.sqrt(2));
        open(settings(budget, DatasetPrior.empty("ds"), null, cheap));
        for (int i = 0; i < 60; i++) { // 35 fit the run's budget alone
            h.processElement(candidate(i, 7, cheap), 0);
        }
        BudgetRecord run1 = budgetLedger().get(budgetLedger().size() - 1);
        long alone = run1.releases();
        h.close();
        DatasetPrior prior = DatasetPrior.compose("ds", List.of(run1), "run-2");
        assertThat(prior.epsilon(1e-6))
                .isCloseTo(run1.epsilon(), org.assertj.core.api.Assertions.within(1e-12));
        open(settings(budget, prior, null, cheap));
        for (int i = 0; i < 60; i++) { // 35 fit the run's budget alone
            h.processElement(candidate(i, 7, cheap), 0);
        }
        long second =
                h.extractOutputValues().stream()
                        .filter(r -> r.outcome() != Outcome.BUDGET_EXHAUSTED)
                        .count();
        assertThat(second).isPositive().isLessThan(alone);
        List<LedgerEntry> charges =
                ledger().stream().filter(e -> e.kind() == LedgerKind.CHARGE).toList();
        double last = charges.get(charges.size() - 1).datasetEpsilonAfter();
        assertThat(last).isGreaterThan(run1.epsilon()).isLessThanOrEqualTo(2.5);
        assertThat(charges).allMatch(e -> e.epsilonAfter() <= BUDGET);
    }

    /**
     * Local ledger, write-ahead: the run's curve is on disk when the checkpoint that commits its
     * releases is taken, and a restore that rolls the state back never lowers the file.
     */
    @Test
    void theLocalLedgerIsWrittenAtTheCheckpointAndNeverLowered() throws Exception {
        BudgetTerms budget = new BudgetTerms(50, 1e-6, Double.POSITIVE_INFINITY);
        RunAccountant.Settings s =
                settings(budget, DatasetPrior.empty("ds"), ledgerDir.toString(), STEP);
        open(s);
        Path file = BudgetLedgerIo.runFile(ledgerDir, "ds", RUN);
        for (int i = 0; i < 3; i++) {
            h.processElement(candidate(i, 7, STEP), 0);
        }
        assertThat(file).doesNotExist(); // nothing committed yet, nothing written yet
        OperatorSubtaskState at3 = h.snapshot(1L, 0L); // the checkpoint writes it
        assertThat(BudgetLedgerIo.readLocal(ledgerDir, "ds"))
                .singleElement()
                .satisfies(r -> assertThat(r.releases()).isEqualTo(3));
        for (int i = 3; i < 5; i++) {
            h.processElement(candidate(i, 7, STEP), 0);
        }
        h.snapshot(2L, 0L);
        BudgetRecord at5 = BudgetLedgerIo.readLocal(ledgerDir, "ds").get(0);
        assertThat(at5.releases()).isEqualTo(5);
        h.close();

        // Restore from checkpoint 1 (3 releases) and release one more: the file keeps 5.
        h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new RunAccountant(s)),
                        ReleaseCandidate::runId,
                        Types.STRING);
        h.initializeState(at3);
        h.open();
        h.processElement(candidate(3, 9, STEP), 0);
        h.snapshot(3L, 0L);
        BudgetRecord after = BudgetLedgerIo.readLocal(ledgerDir, "ds").get(0);
        assertThat(after.releases()).isEqualTo(5);
        for (int i = 0; i < after.rdp().length; i++) {
            assertThat(after.rdp()[i]).isGreaterThanOrEqualTo(at5.rdp()[i]);
        }
        assertThat(Files.list(file.getParent())).hasSize(1); // no temporary files left
    }

    @Test
    void aNonPrivateRunReportsNoFiniteEpsilon() throws Exception {
        open(
                new RunAccountant.Settings(
                        new BudgetPlan(
                                new BudgetTerms(
                                        Double.POSITIVE_INFINITY, 1e-6, Double.POSITIVE_INFINITY),
                                new PrivacyEvent.NoOp()),
                        DatasetPrior.empty("ds"),
                        false,
                        new AccountingMode.EnsembleOnly(),
                        LedgerSink.JOB_OUTPUT));
        for (int i = 0; i < 5; i++) {
            h.processElement(candidate(i, 7, new PrivacyEvent.NoOp()), 0);
        }
        assertThat(h.extractOutputValues())
                .hasSize(5)
                .allMatch(r -> r.outcome() == Outcome.TOKEN && Double.isInfinite(r.epsilonSpent()));
        assertThat(budgetLedger().get(4))
                .satisfies(
                        r -> {
                            assertThat(r.differentiallyPrivate()).isFalse();
                            assertThat(r.releases()).isEqualTo(5);
                        });
    }

    /** A scheme-a candidate: involved teachers, all charged on BETWEEN or none. */
    private static ReleaseCandidate schemeA(int step, long[] involved, boolean between) {
        String e = PrivacyEventJson.encode(new PrivacyEvent.PureDp(0.5));
        return new ReleaseCandidate(
                RUN,
                0,
                step,
                0,
                7,
                "scheme-a",
                e,
                Double.NaN,
                between ? involved : new long[0],
                5,
                4,
                5,
                0,
                involved);
    }

    /** Scheme A's accounting mode (the accountant only asks whether it feeds outcomes back). */
    private static AccountingMode schemeAMode() {
        org.hotpate.core.accounting.SchemeAStep.Plan plan =
                new org.hotpate.core.accounting.SchemeAStep.Plan(
                        new org.hotpate.core.accounting.SchemeAStep.Params(0.5, 10, 30, 1.0), 5);
        return new AccountingMode.ChargeOnOutcome(
                new IndividualScheme(
                        plan,
                        1e-6,
                        Fixtures.VOCAB,
                        () ->
                                new org.hotpate.core.sampling.TeacherDistribution
                                        .SparseProbabilities(new int[] {1}, new double[] {1.0})));
    }

    @Test
    void shouldFeedEachAdmittedSchemeAReleaseBackToItsInvolvedTeachersOnce() throws Exception {
        open(
                new RunAccountant.Settings(
                        new BudgetPlan(
                                new BudgetTerms(1.2, 1e-6, Double.POSITIVE_INFINITY),
                                new PrivacyEvent.PureDp(0.5)),
                        DatasetPrior.empty("ds"),
                        true,
                        schemeAMode(),
                        LedgerSink.JOB_OUTPUT));
        h.processElement(schemeA(0, new long[] {1, 4}, true), 0); // BETWEEN: both charged
        h.processElement(schemeA(1, new long[] {2}, false), 0); // ABOVE/BELOW: resolved only
        h.processElement(schemeA(0, new long[] {1, 4}, true), 0); // replayed: DUPLICATE_RELEASE
        h.processElement(schemeA(2, new long[] {3}, true), 0); // 1.5 > 1.2: refused
        List<org.hotpate.model.TeacherFeedback> fb =
                h.getSideOutput(Tags.TEACHER_FEEDBACK).stream()
                        .map(StreamRecord::getValue)
                        .toList();
        assertThat(fb)
                .extracting(
                        org.hotpate.model.TeacherFeedback::step,
                        org.hotpate.model.TeacherFeedback::teacherId,
                        org.hotpate.model.TeacherFeedback::charged)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0, 1L, true),
                        org.assertj.core.groups.Tuple.tuple(0, 4L, true),
                        org.assertj.core.groups.Tuple.tuple(1, 2L, false));
        assertThat(ledger())
                .filteredOn(e -> e.kind() == LedgerKind.TEACHER_FEEDBACK)
                .extracting(LedgerEntry::step, LedgerEntry::releases, LedgerEntry::votesCast)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0, 2L, 2),
                        org.assertj.core.groups.Tuple.tuple(1, 0L, 1));
    }

    /**
     * Issue 39 item 3: the accountant of a run whose dataset lease is held in this JVM charges and
     * releases nothing once the lease may lapse, and fails the checkpoint that would commit the
     * releases since the last one.
     */
    @Test
    void aRunWhoseLeaseMayLapseReleasesNothingAndItsCheckpointFails() throws Exception {
        open(STEP);
        org.hotpate.protocol.LeaseFence fence =
                new org.hotpate.protocol.LeaseFence(
                        "c@1",
                        java.time.Duration.ofSeconds(15),
                        java.time.Duration.ofSeconds(30),
                        System.nanoTime());
        LeaseGate.open(RUN, fence);
        try {
            h.processElement(candidate(0, 7, STEP), 0);
            assertThat(h.extractOutputValues()).hasSize(1);
            fence.lose("taken over by run r2");
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> h.processElement(candidate(1, 7, STEP), 0))
                    .isInstanceOf(LeaseGate.LeaseLostException.class)
                    .hasMessageContaining("stops releasing: taken over by run r2");
            assertThat(h.extractOutputValues()).hasSize(1);
            assertThat(budgetLedger()).hasSize(1);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> h.snapshot(1, 1))
                    .hasRootCauseInstanceOf(LeaseGate.LeaseLostException.class);
        } finally {
            LeaseGate.close(RUN, fence);
        }
    }
}
