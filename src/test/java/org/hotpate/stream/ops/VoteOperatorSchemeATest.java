package org.hotpate.stream.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;
import static org.hotpate.stream.Fixtures.step;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.hotpate.core.accounting.SchemeAStep;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.TeacherFeedback;
import org.hotpate.model.TeacherSpend;
import org.hotpate.model.Vote;
import org.hotpate.protocol.AccountingMode;
import org.hotpate.protocol.IndividualScheme;
import org.hotpate.protocol.PublicModel;
import org.hotpate.stream.Fixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The vote operator under scheme-a (real keyed-broadcast harness, heap state; the job runs it on
 * RocksDB): an involvement is pending until the accountant's feedback; charged feedback charges
 * once (ledger entries, durable spending), uncharged feedback only clears; a replayed feedback
 * charges no one; a teacher with {@code charges + pending >= τ} abstains, and never votes again
 * once its charges reach τ; a restore keeps pending involvements and charges.
 *
 * <p>Fails on the code before the feedback: scheme-a involvements were never charged at all.
 */
class VoteOperatorSchemeATest {
    private KeyedBroadcastOperatorTestHarness<Long, VoteOperator.Input, GenerationStep, Vote> h;

    /** Scheme A with a fixed τ (ν = 1: every public coin is 1, so own vote = v involves). */
    private static IndividualScheme accounting(int tau) {
        SchemeAStep.Plan plan = new SchemeAStep.Plan(new SchemeAStep.Params(0.1, 10, 30, 1.0), tau);
        PublicModel ens = Fixtures.PUBLIC_MODEL;
        return new IndividualScheme(plan, 1e-6, Fixtures.VOCAB, ens);
    }

    private static VoteOperator operator(IndividualScheme acc) {
        return operator(acc, null);
    }

    /** {@code ledgerDir} null: the Kafka ledger (side output); else the local ledger there. */
    private static VoteOperator operator(IndividualScheme acc, Path ledgerDir) {
        return new VoteOperator(
                new VoteOperator.Settings(
                        "dist",
                        1000,
                        60_000,
                        new AccountingMode.ChargeOnOutcome(acc),
                        "ds",
                        Map.of(),
                        ledgerDir == null
                                ? LedgerSink.JOB_OUTPUT
                                : LedgerSink.local(ledgerDir.toString())));
    }

    @TempDir Path tmp;

    private void open(VoteOperator op, OperatorSubtaskState restore) throws Exception {
        h = VoteOperatorHarness.open(op, restore);
    }

    @AfterEach
    void close() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    private static VoteOperator.Input answer(long teacher, GenerationStep s, int token) {
        return VoteOperator.Input.of(
                Fixtures.vote(teacher, s.sequenceId(), s.step(), s.attempt(), token));
    }

    private static VoteOperator.Input feedback(long teacher, GenerationStep s, boolean charged) {
        return VoteOperator.Input.of(
                new TeacherFeedback(
                        Fixtures.RUN, s.sequenceId(), s.step(), s.attempt(), teacher, charged, 0));
    }

    private static int tested(IndividualScheme acc, GenerationStep s) {
        return acc.randomness(s.publicSeed()).token();
    }

    private static int other(int v) {
        return (v + 1) % Fixtures.VOCAB;
    }

    /** Votes teacher {@code t} cast since the harness opened, in order. */
    private List<Integer> votesOf(long t) {
        List<Integer> out = new ArrayList<>();
        for (Vote v : h.extractOutputValues()) {
            if (v.teacherId() == t) {
                out.add(v.token());
            }
        }
        return out;
    }

    private List<LedgerEntry> ledger(LedgerKind kind) {
        List<LedgerEntry> out = new ArrayList<>();
        if (h.getSideOutput(Tags.LEDGER) != null) {
            for (StreamRecord<LedgerEntry> r : h.getSideOutput(Tags.LEDGER)) {
                if (r.getValue().kind() == kind) {
                    out.add(r.getValue());
                }
            }
        }
        return out;
    }

    private List<TeacherSpend> spending() {
        List<TeacherSpend> out = new ArrayList<>();
        if (h.getSideOutput(Tags.TEACHER_LEDGER) != null) {
            h.getSideOutput(Tags.TEACHER_LEDGER).forEach(r -> out.add(r.getValue()));
        }
        return out;
    }

    @Test
    void shouldChargeOnlyOnChargedFeedbackAndOnlyOnce() throws Exception {
        IndividualScheme acc = accounting(5);
        open(operator(acc), null);
        GenerationStep s0 = step(0, 0, 0);
        int v = tested(acc, s0);
        h.processBroadcastElement(s0, 0);
        h.processElement(answer(1, s0, v), 0); // involved: pending, no charge yet
        h.processElement(answer(2, s0, other(v)), 0); // not involved
        assertThat(votesOf(1)).containsExactly(v);
        assertThat(ledger(LedgerKind.TEACHER_CHARGE)).isEmpty();

        h.processElement(feedback(1, s0, true), 0); // BETWEEN: one charge
        h.processElement(feedback(1, s0, true), 0); // replayed: no longer pending, ignored
        h.processElement(feedback(2, s0, true), 0); // teacher 2 was not involved: ignored
        assertThat(ledger(LedgerKind.TEACHER_CHARGE))
                .extracting(
                        LedgerEntry::teacherId,
                        LedgerEntry::releases,
                        LedgerEntry::step,
                        LedgerEntry::mechanism)
                .containsExactly(tuple(1L, 1L, 0, "scheme-a"));
        assertThat(ledger(LedgerKind.TEACHER_CHARGE).get(0).epsilonAfter())
                .isEqualTo(acc.epsilon(org.hotpate.protocol.TeacherAccount.of(1)));
        // durable entry written ahead: the involvement as a provisional charge, then the charge
        assertThat(spending())
                .extracting(
                        TeacherSpend::teacherId,
                        TeacherSpend::charges,
                        TeacherSpend::pending,
                        TeacherSpend::version,
                        TeacherSpend::plan)
                .containsExactly(
                        tuple(1L, 0L, 1L, 1L, acc.planId()), tuple(1L, 1L, 0L, 2L, acc.planId()));
        assertThat(ledger(LedgerKind.TEACHER_RETIRED)).isEmpty();
    }

    @Test
    void shouldClearWithoutChargeWhenTheOutcomeWasNotBetween() throws Exception {
        IndividualScheme acc = accounting(1); // one pending involvement fills the room
        open(operator(acc), null);
        GenerationStep s0 = step(0, 0, 0);
        GenerationStep s1 = step(1, 0, 0);
        GenerationStep s2 = step(2, 0, 0);
        h.processBroadcastElement(s0, 0);
        h.processBroadcastElement(s1, 0);
        h.processBroadcastElement(s2, 0);
        h.processElement(answer(1, s0, tested(acc, s0)), 0); // pending: 0 + 1 = τ
        h.processElement(answer(1, s1, tested(acc, s1)), 0); // no room while s0 is in flight
        h.processElement(feedback(1, s0, false), 0); // ABOVE or BELOW: cleared, no charge
        h.processElement(answer(1, s2, tested(acc, s2)), 0); // room again: votes
        assertThat(votesOf(1)).containsExactly(tested(acc, s0), Vote.ABSTAIN, tested(acc, s2));
        assertThat(ledger(LedgerKind.TEACHER_CHARGE)).isEmpty();
        // involved, resolved downward by the uncharged outcome, involved again; never charged
        assertThat(spending())
                .extracting(TeacherSpend::charges, TeacherSpend::pending, TeacherSpend::version)
                .containsExactly(tuple(0L, 1L, 1L), tuple(0L, 0L, 2L), tuple(0L, 1L, 3L));
    }

    @Test
    void shouldAbstainWhenChargesPlusPendingReachTauAndNeverVoteAfterTau() throws Exception {
        IndividualScheme acc = accounting(2);
        open(operator(acc), null);
        GenerationStep[] s = new GenerationStep[6];
        for (int i = 0; i < s.length; i++) {
            s[i] = step(i, 0, 0); // one step per sequence: all open at once
            h.processBroadcastElement(s[i], 0);
        }
        h.processElement(answer(1, s[0], tested(acc, s[0])), 0); // pending 1
        h.processElement(answer(1, s[1], tested(acc, s[1])), 0); // pending 2 = τ
        h.processElement(answer(1, s[2], tested(acc, s[2])), 0); // 0 + 2 >= τ: abstains
        h.processElement(answer(1, s[3], other(tested(acc, s[3]))), 0); // not involved: votes
        h.processElement(feedback(1, s[0], true), 0); // charges 1, pending 1
        h.processElement(feedback(1, s[1], true), 0); // charges 2 = τ: retired
        h.processElement(answer(1, s[4], tested(acc, s[4])), 0); // retired: abstains
        h.processElement(answer(1, s[5], other(tested(acc, s[5]))), 0); // also when not involved
        assertThat(votesOf(1))
                .containsExactly(
                        tested(acc, s[0]),
                        tested(acc, s[1]),
                        Vote.ABSTAIN,
                        other(tested(acc, s[3])),
                        Vote.ABSTAIN,
                        Vote.ABSTAIN);
        assertThat(ledger(LedgerKind.TEACHER_CHARGE))
                .extracting(LedgerEntry::releases)
                .containsExactly(1L, 2L);
        assertThat(ledger(LedgerKind.TEACHER_RETIRED))
                .extracting(LedgerEntry::teacherId, LedgerEntry::releases)
                .containsExactly(tuple(1L, 2L));
        assertThat(spending().get(spending().size() - 1).retired()).isTrue();
    }

    @Test
    void shouldKeepPendingInvolvementsAndChargesAcrossARestore() throws Exception {
        IndividualScheme acc = accounting(2);
        open(operator(acc), null);
        GenerationStep[] s = new GenerationStep[4];
        for (int i = 0; i < s.length; i++) {
            s[i] = step(i, 0, 0);
            h.processBroadcastElement(s[i], 0);
        }
        h.processElement(answer(1, s[0], tested(acc, s[0])), 0);
        h.processElement(feedback(1, s[0], true), 0); // charges 1
        h.processElement(answer(1, s[1], tested(acc, s[1])), 0); // pending s1
        OperatorSubtaskState snap = h.snapshot(1L, 0L);
        h.close();

        open(operator(acc), snap);
        h.processElement(feedback(1, s[0], true), 0); // replayed after the restore: ignored
        h.processElement(answer(1, s[2], tested(acc, s[2])), 0); // 1 + 1 pending >= τ: abstains
        assertThat(ledger(LedgerKind.TEACHER_CHARGE)).isEmpty();
        h.processElement(feedback(1, s[1], true), 0); // the restored pending s1: charge 2 = τ
        h.processElement(feedback(1, s[1], true), 0); // and only once
        h.processElement(answer(1, s[3], tested(acc, s[3])), 0); // retired
        assertThat(votesOf(1)).containsExactly(Vote.ABSTAIN, Vote.ABSTAIN);
        assertThat(ledger(LedgerKind.TEACHER_CHARGE))
                .extracting(LedgerEntry::teacherId, LedgerEntry::releases, LedgerEntry::sequenceId)
                .containsExactly(tuple(1L, 2L, 1L));
        assertThat(ledger(LedgerKind.TEACHER_RETIRED)).hasSize(1);
    }

    /**
     * Issue 23 item 1: the durable entry holds charges + pending after the checkpoint that covers
     * the involvements (local ledger, written in snapshotState before the checkpoint completes, so
     * before any release counting the votes commits) — a run that ends there without the outcomes
     * coming back leaves them as provisional charges; a later checkpoint resolves them (a charge
     * keeps the total, an uncharged outcome lowers it). Fails on the code before the write-ahead:
     * nothing was written until a charge came back.
     */
    @Test
    void shouldWritePendingInvolvementsAheadToTheLocalLedgerAtTheCheckpoint() throws Exception {
        IndividualScheme acc = accounting(5);
        open(operator(acc, tmp), null);
        GenerationStep[] s = new GenerationStep[3];
        for (int i = 0; i < s.length; i++) {
            s[i] = step(i, 0, 0);
            h.processBroadcastElement(s[i], 0);
        }
        for (GenerationStep st : s) {
            h.processElement(answer(1, st, tested(acc, st)), 0); // three involvements in flight
        }
        h.processElement(answer(2, s[0], tested(acc, s[0])), 0);
        assertThat(BudgetLedgerIo.readTeachersLocal(tmp, "ds")).isEmpty(); // not before the cp
        h.snapshot(1L, 0L);
        assertThat(BudgetLedgerIo.readTeachersLocal(tmp, "ds"))
                .extracting(TeacherSpend::teacherId, TeacherSpend::charges, TeacherSpend::pending)
                .containsExactly(tuple(1L, 0L, 3L), tuple(2L, 0L, 1L));

        h.processElement(feedback(1, s[0], true), 0); // BETWEEN: pending becomes a charge
        h.processElement(feedback(1, s[1], false), 0); // not BETWEEN: resolved downward
        h.processElement(feedback(2, s[0], true), 0);
        h.snapshot(2L, 0L);
        assertThat(BudgetLedgerIo.readTeachersLocal(tmp, "ds"))
                .extracting(
                        TeacherSpend::teacherId,
                        TeacherSpend::charges,
                        TeacherSpend::pending,
                        TeacherSpend::total)
                .containsExactly(tuple(1L, 1L, 1L, 2L), tuple(2L, 1L, 0L, 1L));
    }

    /** A records run's durable entries carry the teacher's pseudonym, not its rank. */
    @Test
    void shouldKeyDurableEntriesByTheTeachersDurableId() throws Exception {
        IndividualScheme acc = accounting(5);
        org.hotpate.protocol.TeacherIds ids =
                org.hotpate.protocol.TeacherIds.forUsers(new byte[32], List.of("u0", "u1"));
        open(
                new VoteOperator(
                        new VoteOperator.Settings(
                                "dist",
                                1000,
                                60_000,
                                new AccountingMode.ChargeOnOutcome(acc),
                                "ds",
                                Map.of(),
                                LedgerSink.JOB_OUTPUT,
                                Map.of(),
                                ids)),
                null);
        GenerationStep s0 = step(0, 0, 0);
        h.processBroadcastElement(s0, 0);
        h.processElement(answer(1, s0, tested(acc, s0)), 0);
        assertThat(spending())
                .extracting(TeacherSpend::teacherId, TeacherSpend::pending)
                .containsExactly(tuple(ids.durable(1), 1L));
        assertThat(ids.durable(1))
                .isEqualTo(org.hotpate.protocol.TeacherIds.pseudonym(new byte[32], "u1"));
    }
}
