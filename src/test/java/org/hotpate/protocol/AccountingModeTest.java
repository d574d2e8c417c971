package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.hotpate.core.accounting.SchemeAStep;
import org.hotpate.core.accounting.SchemeBStep;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.Vote;
import org.junit.jupiter.api.Test;

/**
 * What a vote and an outcome do to a teacher's account, case by case (the vote operator's rule).
 */
class AccountingModeTest {
    private static final int V = 3; // the tested token: the public model is certain of it
    private static final long SEED = 11;
    private static final StepId STEP = new StepId("run", 0, 1, 0);

    private static IndividualScheme scheme(org.hotpate.core.accounting.IndividualPlan plan) {
        return new IndividualScheme(
                plan, 1e-6, 10, () -> new SparseProbabilities(new int[] {V}, new double[] {1.0}));
    }

    private static final IndividualScheme B =
            scheme(new SchemeBStep.Plan(new SchemeBStep.Params(2, 40, 1.0), 3, 2.0, 2));
    private static final IndividualScheme A =
            scheme(new SchemeAStep.Plan(new SchemeAStep.Params(1, 50, 100, 1.0), 2));

    @Test
    void ensembleOnly_passesEveryVoteAndKeepsNoAccount() {
        AccountingMode m = new AccountingMode.EnsembleOnly();
        assertThat(m.keepsAccounts()).isFalse();
        assertThat(m.onVote(TeacherAccount.NONE, 4, 1, SEED))
                .isEqualTo(
                        new AccountingMode.Effect(
                                4,
                                TeacherAccount.NONE,
                                AccountingMode.Abstention.NONE,
                                false,
                                false,
                                false));
        assertThat(m.onOutcome(TeacherAccount.NONE, true, true)).isNull();
        assertThat(m.scheme()).isNull();
    }

    @Test
    void voteCap_countsTokenVotes_notAbstentions_andRetiresOnce() {
        AccountingMode m = new AccountingMode.VoteCap(2);
        AccountingMode.Effect abstain = m.onVote(TeacherAccount.NONE, Vote.ABSTAIN, 1, SEED);
        assertThat(abstain.account()).isEqualTo(TeacherAccount.NONE);
        AccountingMode.Effect first = m.onVote(TeacherAccount.NONE, 4, 1, SEED);
        assertThat(first.account().charges()).isEqualTo(1);
        assertThat(first.retired()).isFalse();
        AccountingMode.Effect last = m.onVote(first.account(), 4, 1, SEED);
        assertThat(last.vote()).isEqualTo(4);
        assertThat(last.retired()).as("the vote that reaches the cap is the last").isTrue();
        assertThat(last.charged()).as("a vote cap records no privacy charge").isFalse();
        AccountingMode.Effect after = m.onVote(last.account(), 4, 1, SEED);
        assertThat(after.vote()).isEqualTo(Vote.ABSTAIN);
        assertThat(after.abstention()).isEqualTo(AccountingMode.Abstention.RETIRED);
        assertThat(after.retired()).as("retired once").isFalse();
        LedgerEntry e = m.teacherEntry(LedgerKind.TEACHER_RETIRED, STEP, 1, last.account(), 9);
        assertThat(e.mechanism()).isEmpty();
        assertThat(e.releases()).isZero();
        assertThatThrownBy(() -> new AccountingMode.VoteCap(0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void chargeAtVote_chargesAnInvolvedTeacherWithItsVote_andRetiresItAtK() {
        AccountingMode m = new AccountingMode.ChargeAtVote(B);
        AccountingMode.Effect other = m.onVote(TeacherAccount.NONE, V + 1, 1, SEED);
        assertThat(other.charged()).as("own vote ≠ v: not involved").isFalse();
        AccountingMode.Effect one = m.onVote(TeacherAccount.NONE, V, 1, SEED);
        assertThat(one.charged()).isTrue();
        assertThat(one.vote()).isEqualTo(V);
        AccountingMode.Effect two = m.onVote(one.account(), V, 1, SEED);
        assertThat(two.retired()).isTrue();
        AccountingMode.Effect three = m.onVote(two.account(), V + 1, 1, SEED);
        assertThat(three.vote()).as("a retired teacher never votes again").isEqualTo(Vote.ABSTAIN);
        assertThat(three.abstention()).isEqualTo(AccountingMode.Abstention.RETIRED);
        LedgerEntry e = m.teacherEntry(LedgerKind.TEACHER_CHARGE, STEP, 1, one.account(), 9);
        assertThat(e.mechanism()).isEqualTo("scheme-b");
        assertThat(e.releases()).isEqualTo(1);
        assertThat(e.epsilonAfter()).isEqualTo(B.epsilon(one.account()));
        assertThat(e.delta()).isEqualTo(1e-6);
        assertThat(m.feedsOutcomesBack()).isFalse();
    }

    @Test
    void chargeOnOutcome_holdsAnInvolvementPending_andChargesOnlyBetween() {
        AccountingMode m = new AccountingMode.ChargeOnOutcome(A);
        assertThat(m.feedsOutcomesBack()).isTrue();
        AccountingMode.Effect involved = m.onVote(TeacherAccount.NONE, V, 1, SEED);
        assertThat(involved.pending()).isTrue();
        assertThat(involved.charged()).isFalse();
        assertThat(involved.account()).isEqualTo(new TeacherAccount(0, 1));
        // τ = 2: one more pending involvement fills the room; a third abstains.
        AccountingMode.Effect second = m.onVote(involved.account(), V, 1, SEED);
        AccountingMode.Effect third = m.onVote(second.account(), V, 1, SEED);
        assertThat(third.vote()).isEqualTo(Vote.ABSTAIN);
        assertThat(third.abstention()).isEqualTo(AccountingMode.Abstention.NO_ROOM);
        // Outcomes: not pending → nothing; ABOVE/BELOW → resolved; BETWEEN → charged.
        assertThat(m.onOutcome(second.account(), false, true)).isNull();
        AccountingMode.Effect none = m.onOutcome(second.account(), true, false);
        assertThat(none.account()).isEqualTo(new TeacherAccount(0, 1));
        assertThat(none.charged()).isFalse();
        AccountingMode.Effect charged = m.onOutcome(none.account(), true, true);
        assertThat(charged.account()).isEqualTo(new TeacherAccount(1, 0));
        assertThat(charged.charged()).isTrue();
        assertThat(charged.retired()).isFalse();
        AccountingMode.Effect last =
                m.onOutcome(charged.account().involve(), true, true); // τ reached
        assertThat(last.retired()).isTrue();
        assertThat(m.onVote(last.account(), V, 1, SEED).abstention())
                .isEqualTo(AccountingMode.Abstention.RETIRED);
    }

    @Test
    void outcomesNameEachInvolvedTeacher() {
        assertThat(AccountingMode.ChargeOnOutcome.outcomes(STEP, new long[] {2, 5}, true, 7))
                .extracting(f -> f.teacherId(), f -> f.charged(), f -> StepId.keyOf(f))
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(2L, true, "run/0/1/0"),
                        org.assertj.core.groups.Tuple.tuple(5L, true, "run/0/1/0"));
    }
}
