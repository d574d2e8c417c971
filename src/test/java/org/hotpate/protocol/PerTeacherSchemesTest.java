package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.hotpate.core.accounting.NeighbourRelation;
import org.hotpate.core.accounting.SchemeAStep;
import org.hotpate.core.accounting.SchemeBStep;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.hotpate.model.Vote;
import org.junit.jupiter.api.Test;

/**
 * The per-teacher schemes' charging rules on the job's own implementation — each step runs as the
 * job runs it: every teacher's vote through its account's {@link AccountingMode} (the vote
 * operator), the release on the counted votes ({@link IndividualScheme#release}, the reducer), and
 * scheme A's outcome back to the involved teachers ({@link AccountingMode#onOutcome}). The public
 * model is certain of token 3, so the tested token v is 3 at every step.
 */
class PerTeacherSchemesTest {
    private static final int V = 3;
    private static final int VOCAB = 10;
    private static final long SEED = 5;

    private static IndividualScheme scheme(org.hotpate.core.accounting.IndividualPlan plan) {
        return new IndividualScheme(
                plan,
                1e-6,
                VOCAB,
                () -> new SparseProbabilities(new int[] {V}, new double[] {1.0}));
    }

    private static AccountingMode schemeA(
            double epsilon, long lower, long upper, double nu, int tau) {
        return new AccountingMode.ChargeOnOutcome(
                scheme(
                        new SchemeAStep.Plan(
                                new SchemeAStep.Params(epsilon, lower, upper, nu), tau)));
    }

    private static AccountingMode schemeB(double sigma, double threshold, double order, long k) {
        return new AccountingMode.ChargeAtVote(
                scheme(
                        new SchemeBStep.Plan(
                                new SchemeBStep.Params(sigma, threshold, 1.0), order, 2.0, k)));
    }

    private static int[] votes(int n, int token, int upTo) {
        int[] v = new int[n];
        java.util.Arrays.fill(v, Vote.ABSTAIN);
        for (int i = 0; i < upTo; i++) {
            v[i] = token;
        }
        return v;
    }

    private static TeacherAccount[] accounts(int n) {
        TeacherAccount[] a = new TeacherAccount[n];
        java.util.Arrays.fill(a, TeacherAccount.NONE);
        return a;
    }

    /** One step of the job: votes through the accounts, the release, scheme A's outcomes back. */
    private static StepRelease step(
            AccountingMode mode, TeacherAccount[] accounts, int[] votes, UniformSource noise) {
        List<Vote> counted = new ArrayList<>();
        Set<Long> pending = new HashSet<>();
        for (int i = 0; i < votes.length; i++) {
            AccountingMode.Effect e = mode.onVote(accounts[i], votes[i], i, SEED);
            accounts[i] = e.account();
            if (e.pending()) {
                pending.add((long) i);
            }
            counted.add(new Vote("run", 0, 0, 0, i, e.vote()));
        }
        StepRelease r = mode.scheme().release(counted, SEED, noise);
        if (mode.feedsOutcomesBack()) {
            boolean between = r.chargedTeachers().length > 0;
            for (long t : r.involvedTeachers()) {
                AccountingMode.Effect o =
                        mode.onOutcome(accounts[(int) t], pending.contains(t), between);
                accounts[(int) t] = o.account();
            }
        }
        return r;
    }

    /**
     * With ε = 1 the noise satisfies |Z| ≤ 15 except with probability 2e^{−16}/(1+e^{−1}) < 1e-6
     * per draw, so these zero-noise-logic outcomes fail with probability < 1e-5 over the test
     * (fixed seed).
     */
    @Test
    void schemeA_chargesOnlyBetween_onlyIncludedVotersForV() {
        AccountingMode a = schemeA(1, 50, 100, 1.0, 3); // ν = 1: everyone included
        UniformSource noise = NoiseSources.seededInsecureForTestsOnly(1);
        TeacherAccount[] acc = accounts(400);
        int[] v = votes(400, V, 75);
        v[399] = 4; // votes for another token: never charged
        StepRelease s = step(a, acc, v, noise);
        assertThat(s.token()).isEqualTo(V); // BETWEEN
        assertThat(s.chargedTeachers()).hasSize(75);
        assertThat(acc[0].charges()).isEqualTo(1);
        assertThat(acc[399].charges()).isZero();
        assertThat(acc[0].pending()).isZero(); // the outcome came back

        StepRelease above = step(a, accounts(400), votes(400, V, 300), noise);
        assertThat(above.token()).isEqualTo(V);
        assertThat(above.chargedTeachers()).isEmpty();
        assertThat(above.involvedTeachers()).hasSize(300);

        StepRelease below = step(a, accounts(400), votes(400, V, 10), noise);
        assertThat(below.token()).isEqualTo(-1); // ⊥
        assertThat(below.chargedTeachers()).isEmpty();
    }

    @Test
    void schemeA_retiresAtTau_andRetiredTeachersNoLongerCount() {
        AccountingMode a = schemeA(1, 50, 100, 1.0, 2);
        UniformSource noise = NoiseSources.seededInsecureForTestsOnly(2);
        TeacherAccount[] acc = accounts(400);
        int[] v = votes(400, V, 75);
        step(a, acc, v, noise);
        step(a, acc, v, noise);
        assertThat(acc[0].retired(2)).isTrue();
        // all 75 retired: they abstain, the count is 0 → BELOW, nobody charged, nobody un-retired
        StepRelease s = step(a, acc, v, noise);
        assertThat(s.token()).isEqualTo(-1);
        assertThat(s.involvedTeachers()).isEmpty();
        assertThat(acc[0].retired(2)).isTrue();
        assertThat(acc[0].charges()).isEqualTo(2);
    }

    @Test
    void schemeA_onlyCoinIncludedTeachersCount() {
        AccountingMode a = schemeA(1, 0, 10_000, 0.5, 5);
        StepRelease s =
                step(
                        a,
                        accounts(1000),
                        votes(1000, V, 1000),
                        NoiseSources.seededInsecureForTestsOnly(3));
        org.hotpate.core.accounting.PublicChargingRandomness r = a.scheme().randomness(SEED);
        for (long t : s.chargedTeachers()) {
            assertThat(r.included(t)).isTrue();
        }
        int included = 0;
        for (int i = 0; i < 1000; i++) {
            included += r.included(i) ? 1 : 0;
        }
        assertThat(s.chargedTeachers()).hasSize(included);
    }

    @Test
    void schemeA_paramsValidation_andAPlanWithoutRoomChargesNoOne() {
        assertThatThrownBy(() -> new SchemeAStep.Params(0.1234567, 1, 5, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("decimals");
        assertThatThrownBy(() -> new SchemeAStep.Params(0.1, 5, 5, 1))
                .isInstanceOf(IllegalArgumentException.class);
        AccountingMode none = schemeA(1, 0, 10_000, 1.0, 0); // τ = 0: no teacher may be charged
        TeacherAccount[] acc = accounts(10);
        StepRelease s =
                step(none, acc, votes(10, V, 10), NoiseSources.seededInsecureForTestsOnly(4));
        assertThat(s.involvedTeachers()).isEmpty();
        assertThat(acc).allMatch(x -> x.charges() == 0);
    }

    /** σ = 2: |N_ℤ(0,4)| ≤ 12 except with probability < 1e-8 per draw. */
    @Test
    void schemeB_chargesEveryInvolvement_andRetiresAtK() {
        AccountingMode b = schemeB(2, 40, 3, 2);
        UniformSource noise = NoiseSources.seededInsecureForTestsOnly(4);
        TeacherAccount[] acc = accounts(100);
        StepRelease hi = step(b, acc, votes(100, V, 80), noise);
        assertThat(hi.token()).isEqualTo(V);
        assertThat(hi.chargedTeachers()).hasSize(80);
        StepRelease lo = step(b, acc, votes(100, V, 10), noise);
        assertThat(lo.token()).isEqualTo(-1);
        assertThat(lo.chargedTeachers()).hasSize(10); // charged regardless of the outcome
        assertThat(acc[0].retired(2)).isTrue();
        assertThat(acc[20].retired(2)).isFalse();
        StepRelease after = step(b, acc, votes(100, V, 80), noise);
        assertThat(after.chargedTeachers()).hasSize(70); // the 10 retired teachers no longer count
        assertThat(((SchemeBStep.Plan) b.scheme().plan()).chargePerInvolvement())
                .isEqualTo(3 / 8.0);
    }

    @Test
    void schemeB_forTarget_matchesPlanning_andKNeverPassesTheBudget() {
        SchemeBStep.Params p = new SchemeBStep.Params(Math.sqrt(2) / 0.01, 10, 1.0);
        SchemeBStep.Plan plan = SchemeBStep.Plan.forTarget(p, 1, 1e-6);
        assertThat(plan.k()).isEqualTo(349); // replace-one: half the add/remove 698
        assertThatThrownBy(
                        () -> new SchemeBStep.Plan(p, plan.order(), plan.rdpBudget(), plan.k() + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Flink ships function objects by Java serialization: the job's protocol values survive it. */
    @Test
    void accountingModesAndTheirValuesAreSerializable() throws Exception {
        Object[] objects = {
            schemeA(0.1, 5, 25, 0.5, 3),
            schemeB(2, 40, 3, 2),
            new AccountingMode.VoteCap(3),
            new AccountingMode.EnsembleOnly(),
            TeacherAccount.of(3),
            new StepId("r/x", 1, 2, 3),
            new RunShape("r", "e", 1, 10, 1000, 1, 1, 1, EarlyStop.NONE)
        };
        for (Object o : objects) {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
                out.writeObject(o);
            }
            try (java.io.ObjectInputStream in =
                    new java.io.ObjectInputStream(
                            new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
                assertThat(in.readObject()).isInstanceOf(o.getClass());
            }
        }
    }

    /** A plan id names the plan's limit, its ε and its relation; old ids read as add/remove. */
    @Test
    void planIdRoundTrips_withTheRelation() {
        SchemeBStep.Plan b =
                SchemeBStep.Plan.forTarget(new SchemeBStep.Params(12, 30, 0.5), 1, 1e-6);
        String id = IndividualScheme.planId(b, 1e-6);
        assertThat(id).endsWith("/relation=replace-one");
        org.hotpate.core.accounting.IndividualPlan back =
                IndividualScheme.planFromId(id).orElseThrow();
        assertThat(back.limit()).isEqualTo(b.limit());
        assertThat(back.relation()).isEqualTo(NeighbourRelation.REPLACE_ONE);
        assertThat(back.epsilon(1, 1e-6)).isEqualTo(b.epsilon(1, 1e-6));
        SchemeAStep.Plan a =
                SchemeAStep.Plan.forTarget(new SchemeAStep.Params(0.1, 5, 25, 0.5), 4, 1e-6);
        org.hotpate.core.accounting.IndividualPlan aBack =
                IndividualScheme.planFromId(IndividualScheme.planId(a, 1e-6)).orElseThrow();
        assertThat(aBack.limit()).isEqualTo(a.limit());
        assertThat(aBack.epsilonAddRemove(2, 1e-6)).isEqualTo(a.epsilonAddRemove(2, 1e-6));
        assertThat(IndividualScheme.targetDeltaFromId(IndividualScheme.planId(a, 1e-6), 0))
                .isEqualTo(1e-6);
        assertThat(
                        IndividualScheme.planFromId("scheme-b/sigma=8.0/order=29.1/budget=0.5/k=2")
                                .orElseThrow()
                                .relation())
                .isEqualTo(NeighbourRelation.ADD_REMOVE);
        assertThat(IndividualScheme.planFromId("frob")).isEmpty();
    }
}
