package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.TeacherSpend;
import org.hotpate.protocol.DatasetAdmission.Accounting;
import org.hotpate.protocol.DatasetAdmission.Decision;
import org.hotpate.protocol.DatasetAdmission.Kind;
import org.hotpate.protocol.DatasetAdmission.Ledger;
import org.hotpate.protocol.DatasetAdmission.Reason;
import org.hotpate.protocol.DatasetAdmission.Refused;
import org.hotpate.protocol.DatasetAdmission.Request;
import org.hotpate.protocol.DatasetAdmission.Snapshot;
import org.hotpate.protocol.DatasetAdmission.Start;
import org.junit.jupiter.api.Test;

/**
 * The one admission decision both drivers call (issue 30 item 2), as a pure function of what the
 * ledger holds: hold, fresh, resume (continue or fork), deployment (fresh, fork, finished), the
 * accounting kind, the room. The drivers' adapters run the same scenarios on real ledgers in {@code
 * DatasetAdmissionITCase}.
 */
class DatasetAdmissionTest {
    private static final Accounting ENSEMBLE = new Accounting("confident-gnmax", null, 0);
    private static final PrivacyEvent E = new PrivacyEvent.Gaussian(4.0, Math.sqrt(2));

    private static BudgetRecord entry(String account, long releases) {
        RunBudget b =
                new BudgetPlan(new BudgetTerms(2.0, 1e-6, Double.POSITIVE_INFINITY), E)
                        .start(DatasetPrior.empty("D"));
        for (int i = 0; i < releases; i++) {
            b.admit(E);
        }
        return b.record(account, true, "confident-gnmax", releases, 1000 + releases);
    }

    private static Ledger ledger(List<BudgetRecord> records, Set<String> finished) {
        return new Ledger("D", true, records, finished::contains, List.of());
    }

    private static Decision decide(Request r, Ledger l) {
        return DatasetAdmission.decide(r, l, ENSEMBLE);
    }

    private static Reason refusal(Request r, Ledger l) {
        try {
            decide(r, l);
        } catch (Refused e) {
            return e.reason();
        }
        throw new AssertionError("not refused");
    }

    @Test
    void aRunThatDoesNotHoldTheDatasetIsRefused() {
        Ledger notHeld = new Ledger("D", false, List.of(), a -> false, List.of());
        for (Start s : Start.values()) {
            Request r = new Request("r", s, new Snapshot(null, -1, null));
            assertThat(refusal(r, notHeld)).isEqualTo(Reason.NOT_HELD);
        }
    }

    @Test
    void aFreshRunTakesItsOwnAccountUnlessTheLedgerHoldsItsId() {
        Ledger l = ledger(List.of(entry("a", 3)), Set.of("f"));
        Decision d = decide(new Request("b", Start.FRESH, null), l);
        assertThat(d.kind()).isEqualTo(Kind.FRESH);
        assertThat(d.account()).isEqualTo("b");
        assertThat(DatasetAdmission.prior(l, d).runs()).isOne();
        assertThat(refusal(new Request("a", Start.FRESH, null), l)).isEqualTo(Reason.RUN_ID_IN_USE);
        assertThat(refusal(new Request("f", Start.FRESH, null), l))
                .as("a finished id without an entry is taken too")
                .isEqualTo(Reason.RUN_ID_IN_USE);
    }

    @Test
    void aResumeContinuesWhileItsSnapshotCoversTheEntryElseForks() {
        BudgetRecord atStop = entry("a", 3);
        Snapshot sp = new Snapshot("a", atStop.releases(), atStop.rdp());
        Decision cont =
                decide(new Request("a", Start.RESUME, sp), ledger(List.of(atStop), Set.of()));
        assertThat(cont.kind()).isEqualTo(Kind.CONTINUE);
        assertThat(cont.account()).isEqualTo("a");
        Ledger wentOn = ledger(List.of(entry("a", 5), entry("a~r1", 2)), Set.of());
        Decision fork = decide(new Request("a", Start.RESUME, sp), wentOn);
        assertThat(fork.kind()).isEqualTo(Kind.FORK);
        assertThat(fork.account()).isEqualTo("a~r2");
        assertThat(fork.note()).contains("fork");
        assertThat(DatasetAdmission.prior(wentOn, fork).releases()).isEqualTo(7);
        Snapshot checkpoint = new Snapshot(null, -1, null);
        assertThat(decide(new Request("a", Start.RESUME, checkpoint), wentOn).kind())
                .as("a retained checkpoint records no ledger state")
                .isEqualTo(Kind.FORK);
        assertThat(
                        refusal(
                                new Request("a", Start.RESUME, sp),
                                ledger(List.of(atStop), Set.of("a"))))
                .isEqualTo(Reason.FINISHED);
    }

    @Test
    void aDeploymentIsFreshOnceThenChargedAsAForkOnTopNeverAReset() {
        Ledger empty = ledger(List.of(), Set.of());
        Decision first = decide(new Request("k8s-run-1", Start.DEPLOYMENT, null), empty);
        assertThat(first.kind()).isEqualTo(Kind.FRESH);
        assertThat(first.account()).isEqualTo("k8s-run-1");
        Ledger spent = ledger(List.of(entry("k8s-run-1", 20)), Set.of());
        Decision again = decide(new Request("k8s-run-1", Start.DEPLOYMENT, null), spent);
        assertThat(again.kind()).isEqualTo(Kind.FORK);
        assertThat(again.account()).isEqualTo("k8s-run-1~r1");
        assertThat(DatasetAdmission.prior(spent, again).releases()).isEqualTo(20);
        assertThat(
                        refusal(
                                new Request("k8s-run-1", Start.DEPLOYMENT, null),
                                ledger(List.of(entry("k8s-run-1", 20)), Set.of("k8s-run-1"))))
                .isEqualTo(Reason.FINISHED);
    }

    @Test
    void aDeploymentRestoringACoveringSavepointContinuesTheRunsAccount() {
        BudgetRecord atStop = entry("k8s-run-1", 4);
        Snapshot sp = new Snapshot("k8s-run-1", atStop.releases(), atStop.rdp());
        Decision d =
                decide(
                        new Request("k8s-run-1", Start.DEPLOYMENT, sp),
                        ledger(List.of(atStop), Set.of()));
        assertThat(d.kind()).isEqualTo(Kind.CONTINUE);
        assertThat(d.account()).isEqualTo("k8s-run-1");
    }

    @Test
    void aDatasetKeepsTheAccountingOfItsFirstRun() {
        TeacherSpend t =
                new TeacherSpend(
                        "D",
                        7,
                        "scheme-b/sigma=3.0/order=8.0/budget=0.5/k=4/relation=replace-one",
                        4,
                        0,
                        1,
                        0.98,
                        1e-6,
                        true,
                        "r",
                        5);
        Ledger perTeacher = new Ledger("D", true, List.of(), a -> false, List.of(t));
        assertThatThrownBy(() -> decide(new Request("b", Start.FRESH, null), perTeacher))
                .isInstanceOf(Refused.class)
                .hasMessageContaining("is under per-teacher accounting")
                .hasMessageNotContaining("0.98");
        Accounting schemeB = new Accounting("scheme-b", "scheme-b/x", 1.0);
        Decision d =
                DatasetAdmission.decide(new Request("b", Start.FRESH, null), perTeacher, schemeB);
        assertThat(d.perTeacher()).isTrue();
        Ledger ensemble = ledger(List.of(entry("a", 1)), Set.of());
        assertThatThrownBy(
                        () ->
                                DatasetAdmission.decide(
                                        new Request("b", Start.FRESH, null), ensemble, schemeB))
                .isInstanceOf(Refused.class)
                .extracting(e -> ((Refused) e).reason())
                .isEqualTo(Reason.OTHER_ACCOUNTING);
    }

    @Test
    void aRunWithoutRoomIsRefused() {
        BudgetTerms capped = new BudgetTerms(2.0, 1e-6, 2.5);
        RunBudget b = new BudgetPlan(capped, E).start(DatasetPrior.empty("D"));
        while (b.admit(E)) {
            // spend the run's whole budget
        }
        DatasetPrior prior =
                DatasetPrior.compose("D", List.of(b.record("a", true, "gnmax", 1, 1)), null);
        assertThatThrownBy(
                        () ->
                                DatasetAdmission.requireRoom(
                                        "D", prior, new BudgetPlan(capped, E), null))
                .isInstanceOf(Refused.class)
                .hasMessageContaining("dataset 'D' has no room for this run")
                .extracting(e -> ((Refused) e).reason())
                .isEqualTo(Reason.NO_ROOM);
        DatasetAdmission.requireRoom("D", DatasetPrior.empty("D"), new BudgetPlan(capped, E), null);
    }
}
