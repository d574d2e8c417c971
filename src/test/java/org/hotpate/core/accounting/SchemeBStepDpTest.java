package org.hotpate.core.accounting;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.testing.DpTestSupport;
import org.junit.jupiter.api.Test;

/**
 * Neighbouring tests of Scheme B's streaming step (issue 11; STYLE's DP test pyramid): one step on
 * counts c and c + 1, and a whole run in which one teacher is added — with the test also catching
 * deliberately broken charging rules. Each check's false-failure rate is ≤ 1e-6 (Clopper–Pearson at
 * joint level α, {@link DpTestSupport}); the tested δ(ε) is the exact one of the discrete-Gaussian
 * coordinates the output post-processes.
 */
class SchemeBStepDpTest {
    private static final double ALPHA = 1e-6;
    private static final double SIGMA = 1.5;
    private static final double THRESHOLD = 3;
    private static final int TOKEN = 7;

    private static SchemeBStep.Plan plan(long k) {
        // order 2, B = 1: K = ⌊2·2.25·1/2⌋ = 2 under add/remove (the tests below add one teacher)
        return new SchemeBStep.Plan(
                new SchemeBStep.Params(SIGMA, THRESHOLD, 1.0),
                2,
                1.0,
                k,
                NeighbourRelation.ADD_REMOVE);
    }

    /** One step: report/⊥ on counts 2 and 3 is (1, δ(1))-DP with δ of one shift-1 coordinate. */
    @Test
    void oneStep_isDpBetweenCountsCAndCPlusOne() {
        int runs = 200_000;
        double delta =
                DpTestSupport.discreteGaussianDelta(1, new double[] {SIGMA * SIGMA}, new int[] {1});
        SchemeBStep step = new SchemeBStep(plan(2), NoiseSources.seededInsecureForTestsOnly(1));
        assertThat(
                        DpTestSupport.violations(
                                outcomes(step, 2, runs),
                                outcomes(step, 3, runs),
                                runs,
                                1,
                                delta,
                                ALPHA))
                .isEmpty();
        SchemeBStep quarter =
                new SchemeBStep(
                        new SchemeBStep.Plan(
                                new SchemeBStep.Params(SIGMA / 4, THRESHOLD, 1),
                                2,
                                1,
                                0,
                                NeighbourRelation.ADD_REMOVE),
                        NoiseSources.seededInsecureForTestsOnly(2));
        assertThat(
                        DpTestSupport.violations(
                                outcomes(quarter, 2, runs),
                                outcomes(quarter, 3, runs),
                                runs,
                                1,
                                delta,
                                ALPHA))
                .as("a quarter of the noise is caught")
                .isNotEmpty();
    }

    private static Map<Integer, Long> outcomes(SchemeBStep step, long count, int runs) {
        Map<Integer, Long> m = new TreeMap<>();
        for (int i = 0; i < runs; i++) {
            m.merge(step.decide(count).reported() ? TOKEN : DpTestSupport.BOTTOM, 1L, Long::sum);
        }
        return m;
    }

    /** How a run charges the one teacher that differs between the worlds. */
    private interface ChargeRule {
        boolean charge(SchemeBStep.Decision d);
    }

    private static final int STEPS = 20;
    private static final int RUNS = 100_000;
    private static final long K = 2;

    /**
     * A run of 20 steps in which the teacher always votes the tested token and its coin is always 1
     * (ν = 1), the other teachers contributing {@code others} to the count; world D′ adds the
     * teacher. Released: the number of reports (a post-processing of the transcript). With the real
     * rule the teacher is in exactly K = 2 steps, so the transcripts differ in 2 coordinates.
     */
    private static Map<Integer, Long> reportsPerRun(
            boolean withTeacher, int others, ChargeRule rule, long seed) {
        SchemeBStep.Plan plan = plan(K);
        SchemeBStep step = new SchemeBStep(plan, NoiseSources.seededInsecureForTestsOnly(seed));
        Map<Integer, Long> m = new TreeMap<>();
        for (int run = 0; run < RUNS; run++) {
            TeacherCharges charges = TeacherCharges.NONE;
            int reports = 0;
            for (int s = 0; s < STEPS; s++) {
                PublicChargingRandomness r = PublicChargingRandomness.forStep(s, 1.0, TOKEN);
                boolean involved =
                        withTeacher && IndividualSchemes.involved(TOKEN, 0, r, charges, plan);
                SchemeBStep.Decision d = step.decide(others + (involved ? 1 : 0));
                if (involved && rule.charge(d)) {
                    charges = charges.charge(plan);
                }
                reports += d.reported() ? 1 : 0;
            }
            m.merge(reports, 1L, Long::sum);
        }
        return m;
    }

    private static List<DpTestSupport.Violation> runCheck(int others, ChargeRule rule) {
        double eps = 2;
        double delta =
                DpTestSupport.discreteGaussianDelta(
                        eps, new double[] {SIGMA * SIGMA, SIGMA * SIGMA}, new int[] {1, 1});
        return DpTestSupport.violations(
                reportsPerRun(false, others, rule, 11),
                reportsPerRun(true, others, rule, 12),
                RUNS,
                eps,
                delta,
                ALPHA);
    }

    @Test
    void wholeRun_theRealRule_chargesEveryInvolvement_andPasses() {
        ChargeRule real = SchemeBStep.Decision::chargeInvolved;
        assertThat(runCheck(0, real)).isEmpty(); // reports rare
        assertThat(runCheck(3, real)).isEmpty(); // reports common
    }

    /** BROKEN on purpose: charging only when v is reported lets ⊥ steps be free. */
    @Test
    void wholeRun_catchesChargingOnlyOnReports() {
        assertThat(runCheck(0, SchemeBStep.Decision::reported)).isNotEmpty();
    }

    /**
     * BROKEN on purpose: the charge decided by the noisy count ("a count above the threshold is
     * free", Scheme A's rule misapplied to B): the teacher keeps influencing while z ≥ t.
     */
    @Test
    void wholeRun_catchesChargesDecidedByTheNoisyCount() {
        assertThat(runCheck(3, d -> !d.reported())).isNotEmpty();
    }

    // ---------- replace-one (docs/proofs/replace-one.md §2) ----------

    private static final int PAIR_STEPS = 4;
    private static final int PAIR_RUNS = 200_000;

    /**
     * A run of {@link #PAIR_STEPS} steps under replace-one: the other teachers contribute {@code
     * others} to the count; in world D user x votes the tested token in every step, in world D′ its
     * replacement x′ votes it from step 2 on (coins 1). Each is involved while its plan admits one
     * more charge. Released: (reports in steps 0–1) − (reports in steps 2–3), a post-processing of
     * the transcript that an adversary who knows when each user votes would look at.
     */
    private static Map<Integer, Long> pairRun(
            boolean replaced, SchemeBStep.Plan plan, int others, long seed) {
        SchemeBStep step = new SchemeBStep(plan, NoiseSources.seededInsecureForTestsOnly(seed));
        Map<Integer, Long> m = new TreeMap<>();
        for (int run = 0; run < PAIR_RUNS; run++) {
            TeacherCharges charges = TeacherCharges.NONE;
            int d = 0;
            for (int s = 0; s < PAIR_STEPS; s++) {
                PublicChargingRandomness r = PublicChargingRandomness.forStep(s, 1.0, TOKEN);
                int vote = !replaced || s >= PAIR_STEPS / 2 ? TOKEN : TOKEN + 1;
                boolean involved = IndividualSchemes.involved(vote, 0, r, charges, plan);
                SchemeBStep.Decision dec = step.decide(others + (involved ? 1 : 0));
                if (involved) {
                    charges = charges.charge(plan);
                }
                d += dec.reported() ? (s < PAIR_STEPS / 2 ? 1 : -1) : 0;
            }
            m.merge(d, 1L, Long::sum);
        }
        return m;
    }

    /**
     * The check: (ε, δ) with δ the exact δ(ε) of two discrete-Gaussian coordinates, what a pair of
     * users each charged K = 1 can differ in. The target (order 2, B = 1 at σ = 1.5) allows K = 2
     * under add/remove and K = 1 under replace-one.
     */
    private static List<DpTestSupport.Violation> pairCheck(SchemeBStep.Plan plan) {
        double eps = 1.5;
        double delta =
                DpTestSupport.discreteGaussianDelta(
                        eps, new double[] {SIGMA * SIGMA, SIGMA * SIGMA}, new int[] {1, 1});
        return DpTestSupport.violations(
                pairRun(false, plan, 2, 21),
                pairRun(true, plan, 2, 22),
                PAIR_RUNS,
                eps,
                delta,
                ALPHA);
    }

    private static SchemeBStep.Plan planFor(NeighbourRelation relation) {
        // order 2, B = 1, σ = 1.5: 2σ²B/α = 2.25 → K = 2 (add/remove), 1 (replace-one)
        long k = ChargePlanning.schemeBK(SIGMA, 2, 1.0, relation);
        return new SchemeBStep.Plan(
                new SchemeBStep.Params(SIGMA, THRESHOLD, 1.0), 2, 1.0, k, relation);
    }

    @Test
    void replaceOne_theReplaceOnePlanPasses() {
        SchemeBStep.Plan plan = planFor(NeighbourRelation.REPLACE_ONE);
        assertThat(plan.k()).isEqualTo(1);
        assertThat(pairCheck(plan)).isEmpty();
    }

    /**
     * BROKEN on purpose: K planned under add/remove (2) while the pair charges both users — the
     * transcripts then differ in four coordinates and the two-coordinate δ is violated.
     */
    @Test
    void replaceOne_catchesAnAddRemovePlanUsedUnderReplaceOne() {
        SchemeBStep.Plan broken = planFor(NeighbourRelation.ADD_REMOVE);
        assertThat(broken.k()).isEqualTo(2);
        assertThat(pairCheck(broken)).isNotEmpty();
    }

    /** The printed per-user ε under each relation, at the target δ: both within the target. */
    @Test
    void replaceOne_planForTargetHalvesKAndPrintsBothRelations() {
        SchemeBStep.Params p = new SchemeBStep.Params(8, 30, 0.5);
        SchemeBStep.Plan addRemove =
                SchemeBStep.Plan.forTarget(p, 1, 1e-6, NeighbourRelation.ADD_REMOVE);
        SchemeBStep.Plan replaceOne = SchemeBStep.Plan.forTarget(p, 1, 1e-6);
        assertThat(replaceOne.relation()).isEqualTo(NeighbourRelation.REPLACE_ONE);
        assertThat(addRemove.k()).isEqualTo(2);
        assertThat(replaceOne.k()).isEqualTo(1);
        assertThat(replaceOne.order()).isEqualTo(addRemove.order());
        // replace-one: the user's charges plus its replacement's (up to K)
        assertThat(replaceOne.epsilon(1, 1e-6)).isLessThanOrEqualTo(1.0);
        assertThat(replaceOne.epsilon(1, 1e-6)).isEqualTo(addRemove.epsilonAddRemove(2, 1e-6));
        assertThat(replaceOne.epsilonAddRemove(1, 1e-6)).isLessThan(replaceOne.epsilon(1, 1e-6));
        assertThat(replaceOne.epsilonAddRemove(0, 1e-6)).isZero();
        // two users each at the add/remove K (a replace-one pair) pass the target
        assertThat(addRemove.epsilonAddRemove(2 * addRemove.k(), 1e-6)).isGreaterThan(1.0);
    }
}
