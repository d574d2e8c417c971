package org.hotpate.stream.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hotpate.stream.Fixtures.step;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.hotpate.core.accounting.SchemeBStep;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.Rejected;
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
 * The vote operator with per-teacher accounting (scheme-b): charge on involvement, retire at K,
 * never vote after retirement, a replayed answer charges no one twice (also across a restore), the
 * durable ledger entry, and a randomized run in which no teacher's ε passes its target.
 */
class VoteOperatorIndividualTest {
    private static final double TARGET_EPS = 1.0;
    private static final double TARGET_DELTA = 1e-6;

    @TempDir Path tmp;

    private KeyedBroadcastOperatorTestHarness<Long, VoteOperator.Input, GenerationStep, Vote> h;

    /** σ = 12 at (1, 10⁻⁶) plans K = 2 under replace-one (5 under add/remove). */
    private static IndividualScheme accounting(int teachers, double sampleRate) {
        SchemeBStep.Plan plan =
                SchemeBStep.Plan.forTarget(
                        new SchemeBStep.Params(12, 30, sampleRate), TARGET_EPS, TARGET_DELTA);
        PublicModel ens = Fixtures.PUBLIC_MODEL;
        return new IndividualScheme(plan, TARGET_DELTA, Fixtures.VOCAB, ens);
    }

    private static VoteOperator operator(
            int teachers, IndividualScheme acc, Map<Long, Long> prior, String ledgerDir) {
        return new VoteOperator(
                new VoteOperator.Settings(
                        "dist",
                        1000,
                        60_000,
                        new AccountingMode.ChargeAtVote(acc),
                        "ds",
                        prior,
                        ledgerDir == null ? LedgerSink.JOB_OUTPUT : LedgerSink.local(ledgerDir)));
    }

    private void open(VoteOperator op, OperatorSubtaskState restore) throws Exception {
        h = VoteOperatorHarness.open(op, restore);
    }

    @AfterEach
    void close() throws Exception {
        if (h != null) {
            h.close();
        }
    }

    /** The tested token v of a step (public: the public model's vote under the step seed). */
    private static int tested(IndividualScheme acc, GenerationStep s) {
        return acc.randomness(s.publicSeed()).token();
    }

    private static int other(int v) {
        return (v + 1) % Fixtures.VOCAB;
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

    @Test
    void shouldChargeInvolvedTeachersRetireAtKAndNeverVoteAgain() throws Exception {
        IndividualScheme acc = accounting(3, 1.0); // ν = 1: every coin is 1
        assertThat(acc.plan().limit()).isEqualTo(2);
        open(operator(3, acc, Map.of(), null), null);
        List<Integer> teacher1 = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            GenerationStep st = step(0, s, 0);
            int v = tested(acc, st);
            h.processBroadcastElement(st, 0);
            h.processElement(certain(1, 0, s, 0, v), 0); // involved whenever it may vote
            h.processElement(certain(2, 0, s, 0, other(v)), 0); // never involved
        }
        for (Vote x : h.extractOutputValues()) {
            if (x.teacherId() == 1) {
                teacher1.add(x.token());
            } else {
                assertThat(x.token()).isNotEqualTo(Vote.ABSTAIN); // teacher 2 votes every time
            }
        }
        // Two involvements (K = 2), then abstentions for good.
        assertThat(teacher1.subList(2, 4)).containsOnly(Vote.ABSTAIN);
        assertThat(teacher1.subList(0, 2)).doesNotContain(Vote.ABSTAIN);
        assertThat(ledger(LedgerKind.TEACHER_CHARGE))
                .extracting(LedgerEntry::teacherId, LedgerEntry::releases)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1L, 1L),
                        org.assertj.core.groups.Tuple.tuple(1L, 2L));
        assertThat(ledger(LedgerKind.TEACHER_RETIRED))
                .extracting(LedgerEntry::teacherId)
                .containsExactly(1L);
        assertThat(ledger(LedgerKind.TEACHER_CHARGE).get(1).epsilonAfter())
                .isLessThanOrEqualTo(TARGET_EPS)
                .isGreaterThan(ledger(LedgerKind.TEACHER_CHARGE).get(0).epsilonAfter());
        // Kafka ledger mode: each charge also goes out as a durable teacher entry.
        assertThat(h.getSideOutput(Tags.TEACHER_LEDGER))
                .extracting(StreamRecord::getValue)
                .extracting(TeacherSpend::teacherId, TeacherSpend::charges, TeacherSpend::retired)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1L, 1L, false),
                        org.assertj.core.groups.Tuple.tuple(1L, 2L, true));
    }

    @Test
    void shouldChargeAReplayedAnswerOnceAlsoAfterARestore() throws Exception {
        IndividualScheme acc = accounting(3, 1.0);
        open(operator(3, acc, Map.of(), null), null);
        GenerationStep s0 = step(0, 0, 0);
        int v = tested(acc, s0);
        h.processBroadcastElement(s0, 0);
        h.processElement(certain(1, 0, 0, 0, v), 0);
        h.processElement(certain(1, 0, 0, 0, v), 0); // redelivered: DUPLICATE_VOTE, no charge
        OperatorSubtaskState snap = h.snapshot(1L, 0L);
        h.close();
        open(operator(3, acc, Map.of(), null), snap);
        h.processElement(certain(1, 0, 0, 0, v), 0); // replayed after the restore
        assertThat(h.getSideOutput(Tags.REJECTED))
                .extracting(r -> r.getValue().reason())
                .containsExactly(Rejected.DUPLICATE_VOTE);
        assertThat(ledger(LedgerKind.TEACHER_CHARGE)).isEmpty(); // nothing new after restore
        // The restored state holds one charge: one more involvement retires teacher 1 (K = 2).
        GenerationStep s1 = step(0, 1, 0);
        h.processBroadcastElement(s1, 0);
        h.processElement(certain(1, 0, 1, 0, tested(acc, s1)), 0);
        assertThat(ledger(LedgerKind.TEACHER_CHARGE))
                .extracting(LedgerEntry::releases)
                .containsExactly(2L);
        assertThat(ledger(LedgerKind.TEACHER_RETIRED)).hasSize(1);
    }

    /**
     * A resume that forks (issue 23, "resume forks"): the restored state holds the charges at the
     * savepoint, while the durable ledger — the job graph's prior — already holds more, charged by
     * the earlier branch after that savepoint. The teacher's account is max(state, durable), so the
     * fork cannot charge it past K. Before, the restored state won and teacher 1 took two more
     * involvements (K + 1 over both branches).
     */
    @Test
    void aRestoredAccountNeverCountsLessThanTheDurableLedger() throws Exception {
        IndividualScheme acc = accounting(3, 1.0); // K = 2
        open(operator(3, acc, Map.of(), null), null);
        GenerationStep s0 = step(0, 0, 0);
        h.processBroadcastElement(s0, 0);
        h.processElement(certain(1, 0, 0, 0, tested(acc, s0)), 0); // one charge
        OperatorSubtaskState savepoint = h.snapshot(1L, 0L);
        h.close();
        // The earlier branch went on from the savepoint and charged teacher 1 once more (2 = K).
        open(operator(3, acc, Map.of(1L, 2L), null), savepoint);
        GenerationStep s1 = step(0, 1, 0);
        h.processBroadcastElement(s1, 0);
        h.processElement(certain(1, 0, 1, 0, tested(acc, s1)), 0);
        assertThat(h.extractOutputValues())
                .extracting(Vote::token)
                .as("retired over both branches: abstains")
                .containsExactly(Vote.ABSTAIN);
        assertThat(ledger(LedgerKind.TEACHER_CHARGE)).isEmpty();
    }

    @Test
    void shouldStartFromEarlierRunsAndWriteTheLocalLedgerAtCheckpoints() throws Exception {
        IndividualScheme acc = accounting(3, 1.0);
        open(operator(3, acc, Map.of(1L, 1L, 2L, 2L), tmp.toString()), null);
        GenerationStep s0 = step(0, 0, 0);
        int v = tested(acc, s0);
        h.processBroadcastElement(s0, 0);
        h.processElement(certain(1, 0, 0, 0, v), 0); // 1 earlier charge + this one = K
        h.processElement(certain(2, 0, 0, 0, v), 0); // retired in an earlier run: abstains
        assertThat(h.extractOutputValues())
                .extracting(Vote::teacherId, Vote::token)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1L, v),
                        org.assertj.core.groups.Tuple.tuple(2L, Vote.ABSTAIN));
        assertThat(h.getSideOutput(Tags.TEACHER_LEDGER)).isNull(); // local mode: files
        assertThat(BudgetLedgerIo.readTeachersLocal(tmp, "ds")).isEmpty(); // not before the cp
        h.snapshot(1L, 0L);
        List<TeacherSpend> saved = BudgetLedgerIo.readTeachersLocal(tmp, "ds");
        assertThat(saved)
                .extracting(TeacherSpend::teacherId, TeacherSpend::charges, TeacherSpend::retired)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, 2L, true));
        assertThat(saved.get(0).plan()).isEqualTo(acc.planId());
    }

    /**
     * Many sequences of steps with random votes (a random share of teachers voting the tested
     * token) and ν = 0.5: after every charge no teacher's ε at the target δ passes the target, a
     * teacher never takes more than K charges, and a retired teacher never casts a token vote.
     */
    @Test
    void shouldKeepEveryTeacherWithinItsBudgetOverManyRandomSequences() throws Exception {
        int n = 30;
        IndividualScheme acc = accounting(n, 0.5);
        long k = acc.plan().limit();
        open(operator(n, acc, Map.of(), null), null);
        Random rnd = new Random(20261123L);
        Set<Long> retired = new HashSet<>();
        Map<Long, Long> charges = new HashMap<>();
        int seen = 0;
        int ledgerSeen = 0;
        for (long seq = 0; seq < 40; seq++) {
            for (int s = 0; s < 25; s++) {
                GenerationStep st = step(seq, s, 0);
                int v = tested(acc, st);
                double agree = rnd.nextDouble();
                h.processBroadcastElement(st, 0);
                for (long t = 0; t < n; t++) {
                    int vote = rnd.nextDouble() < agree ? v : rnd.nextInt(Fixtures.VOCAB);
                    h.processElement(certain(t, seq, s, 0, vote), 0);
                }
                List<Vote> out = h.extractOutputValues();
                for (Vote x : out.subList(seen, out.size())) {
                    if (retired.contains(x.teacherId())) {
                        assertThat(x.token()).isEqualTo(Vote.ABSTAIN);
                    }
                }
                seen = out.size();
                List<LedgerEntry> all = ledger(LedgerKind.TEACHER_CHARGE);
                for (LedgerEntry e : all.subList(ledgerSeen, all.size())) {
                    assertThat(e.epsilonAfter()).isLessThanOrEqualTo(TARGET_EPS);
                    assertThat(e.releases()).isLessThanOrEqualTo(k);
                    assertThat(charges.merge(e.teacherId(), 1L, Long::sum)).isEqualTo(e.releases());
                }
                ledgerSeen = all.size();
                ledger(LedgerKind.TEACHER_RETIRED).forEach(e -> retired.add(e.teacherId()));
            }
        }
        // The run was long enough to exercise retirement for (nearly) everyone.
        assertThat(retired.size()).isGreaterThan(n / 2);
        assertThat(charges.values()).allMatch(c -> c <= k);
    }

    /** A certain teacher's answer as the operator's input (Fixtures.certain). */
    private static VoteOperator.Input certain(
            long teacher, long seq, int step, int attempt, int token) {
        return VoteOperator.Input.of(Fixtures.vote(teacher, seq, step, attempt, token));
    }
}
