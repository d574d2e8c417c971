package org.hotpate.core.mechanism;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.junit.jupiter.api.Test;

class AutoPlannerTest {
    private static final int DEMO_N = 2284;
    private static final int CL100K = 100_277;

    private static AutoPlanner.Plan plan(int n, int v, boolean het, double eps, long positions) {
        return AutoPlanner.plan(
                new AutoPlanner.Inputs(n, v, het, new PrivacyBudget(eps, 1e-6), positions));
    }

    private static long affordable(PrivacyBudget b, Map<String, Double> p) {
        PrivacyEvent worst =
                new PrivacyEvent.Composed(
                        java.util.List.of(
                                new PrivacyEvent.ConfidentGnmax(
                                        p.get("sigma1"), p.get("threshold"), p.get("sigma2"), true),
                                new PrivacyEvent.DiscreteGaussian(p.get("sigma3"), 1)));
        return EnsembleBudgetFilter.maxReleases(EnsembleBudgetFilter.Config.plan(b, worst), worst);
    }

    @Test
    void parametersAreTiedToTheThreshold() {
        AutoPlanner.Plan p = plan(DEMO_N, CL100K, true, 4, 288);
        double t = p.params().get("threshold");
        assertThat(p.mechanism()).isEqualTo(CheckedGnmaxMechanism.NAME);
        assertThat(p.params().get("sigma1")).isCloseTo(t / 3, within(0.1));
        assertThat(p.params().get("sigma2")).isCloseTo(t / 4, within(0.1));
        assertThat(p.params().get("sigma3")).isCloseTo(t / 4, within(0.1));
        assertThat(p.params().get("check-threshold")).isEqualTo(t);
        // printed in this order by `privacy plan` and operator.json, the same in every JVM
        assertThat(p.params().keySet())
                .containsExactly("sigma1", "threshold", "sigma2", "sigma3", "check-threshold");
        assertThat(p.params().get("sigma1")).isLessThanOrEqualTo(t / 3);
        assertThat(p.thresholdShare()).isCloseTo(t / DEMO_N, within(1e-12));
        // the plan's parameters build the mechanism, as a job spec's would
        assertThat(Mechanisms.create(p.mechanism(), p.params(), CL100K, DEMO_N).name())
                .isEqualTo(CheckedGnmaxMechanism.NAME);
    }

    @Test
    void smallPlan_takesTheLeastNoiseThatCoversIt() {
        PrivacyBudget b = new PrivacyBudget(4, 1e-6);
        AutoPlanner.Plan p = plan(DEMO_N, CL100K, true, 4, 288);
        assertThat(p.budgetLimited()).isFalse();
        assertThat(p.plannedSteps()).isEqualTo(576);
        assertThat(p.affordableReleases()).isEqualTo(affordable(b, p.params()));
        assertThat(p.affordableReleases()).isGreaterThanOrEqualTo(576);
        // a threshold 1 % lower (less noise) no longer covers the plan: the smallest, up to
        // rounding
        double t = p.params().get("threshold") * 0.99;
        Map<String, Double> lower =
                Map.of("sigma1", t / 3, "threshold", t, "sigma2", t / 4, "sigma3", t / 4);
        assertThat(affordable(b, lower)).isLessThan(576);
    }

    @Test
    void budgetLimitedPlan_usesTheCap() {
        AutoPlanner.Plan p = plan(DEMO_N, CL100K, true, 4, 12_000);
        assertThat(p.budgetLimited()).isTrue();
        assertThat(p.params().get("threshold"))
                .isEqualTo(AutoPlanner.maxThreshold(DEMO_N, true))
                .isCloseTo(5 * Math.sqrt(DEMO_N), within(0.1));
        assertThat(p.affordableReleases()).isLessThan(p.plannedSteps());
        AutoPlanner.Plan homogeneous = plan(10_000, 1050, false, 1, 1_000_000);
        assertThat(homogeneous.thresholdShare())
                .isCloseTo(AutoPlanner.maxThresholdShare(false), within(1e-4));
        // a small heterogeneous ensemble keeps the quarter: 5·√n > n/4 below n = 400
        assertThat(plan(100, CL100K, true, 4, 12_000).thresholdShare())
                .isCloseTo(0.25, within(1e-4));
    }

    /**
     * Issue 38 item 1: the run over 11,757 users with the demo's keys and 4,000 sequences (48,000
     * positions) was planned at T = 2,939.3, a quarter of n, and released 'Fix' and 'Add'. The
     * noise a budget affords depends on the releases, not on n: the threshold is at most 10 % of n
     * there, and at a fixed budget and sequence count the share T/n falls as n grows.
     */
    @Test
    void largerEnsemble_needsASmallerShare() {
        AutoPlanner.Plan issue = plan(11_757, CL100K, true, 4, 48_000);
        assertThat(issue.thresholdShare()).isLessThanOrEqualTo(0.10);
        assertThat(issue.budgetLimited()).isTrue();
        for (long positions : new long[] {288, 3_600, 48_000}) {
            double previous = Double.POSITIVE_INFINITY;
            for (int n : new int[] {2_296, 5_000, 11_757, 30_000, 100_000, 1_000_000}) {
                AutoPlanner.Plan p = plan(n, CL100K, true, 4, positions);
                assertThat(p.thresholdShare())
                        .as("n %d, %d positions", n, positions)
                        .isLessThan(previous);
                previous = p.thresholdShare();
            }
        }
        // the demo's own plan is unchanged: T = 230.0 at n = 2,296 (README, golden run)
        AutoPlanner.Plan demo = plan(2_296, CL100K, true, 4, 288);
        assertThat(demo.params().get("threshold")).isEqualTo(230.0);
        assertThat(demo.budgetLimited()).isFalse();
    }

    @Test
    void moreBudgetOrLessWork_meansLessNoise() {
        double t4 = plan(DEMO_N, CL100K, true, 4, 288).params().get("threshold");
        double t8 = plan(DEMO_N, CL100K, true, 8, 288).params().get("threshold");
        double t4big = plan(DEMO_N, CL100K, true, 4, 2400).params().get("threshold");
        assertThat(t8).isLessThan(t4);
        assertThat(t4big).isGreaterThan(t4);
    }

    @Test
    void deterministic_aFunctionOfThePublicInputsOnly() {
        assertThat(plan(DEMO_N, CL100K, true, 4, 288))
                .isEqualTo(plan(DEMO_N, CL100K, true, 4, 288));
        assertThat(plan(DEMO_N, CL100K, true, 4, 288).explanation())
                .contains("checked-gnmax")
                .contains("threshold")
                .contains("cover the planned work");
    }

    @Test
    void refusesBadInputs() {
        assertThatThrownBy(() -> plan(0, CL100K, true, 4, 10))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> plan(DEMO_N, CL100K, true, 4, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
