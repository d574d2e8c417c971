package org.hotpate.core.generation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.commons.math3.distribution.BetaDistribution;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.mechanism.Release;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.privacy.PmixedPrivacy;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.core.sampling.TeacherDistribution.Dense;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.junit.jupiter.api.Test;

/** PMixED: mollifier, sparse divergences (PRIVACY.md §4.4 vectors), sampling, parameters. */
class PmixedMechanismTest {
    static final double[] P0 = {0.4, 0.3, 0.2, 0.1};
    static final double[] PI = {0.05, 0.05, 0.1, 0.8};

    static PmixedMechanism mechanism(double q, int maxOrder, double radius, long seed) {
        return new PmixedMechanism(
                new PmixedParams(q, maxOrder, radius),
                NoiseSources.seededInsecureForTestsOnly(seed));
    }

    /** The sparse-plus-public divergence reproduces the dense PRIVACY.md §4.4 vectors. */
    @Test
    void sparseDivergence_reproducesPrivacyVectors() {
        PublicDistribution p0 = PublicDistribution.of(P0);
        int[] all = {0, 1, 2, 3};
        double d = PmixedMechanism.symmetricDivergence(all, PI, 0, 1, p0, 3);
        assertThat(d).isCloseTo(Math.max(1.968135029033408, 1.8081753815425923), within(1e-12));
        // exact λ of the §4.4 table land on the repo-style targets β·α
        double[] lambda = {0.8095799827120413, 0.28976432944854963, 0.32178430754970044};
        double[] target = {1.6955280303955078, 0.581517219543457, 0.6707525253295898};
        for (int i = 0; i < 3; i++) {
            assertThat(PmixedMechanism.symmetricDivergence(all, PI, 0, lambda[i], p0, 3))
                    .isCloseTo(target[i], within(1e-6 * target[i]));
        }
    }

    /** A teacher listing only some tokens (residual backs off to p0) equals its dense form. */
    @Test
    void sparseDivergence_withResidual_equalsDense() {
        PublicDistribution p0 = PublicDistribution.of(P0);
        int[] tokens = {3, 1};
        double[] p = {0.5, 0.2}; // residual 0.3 → p = (0.12, 0.29, 0.06, 0.53) as a dense law
        double[] dense = {0.3 * 0.4, 0.2 + 0.3 * 0.3, 0.3 * 0.2, 0.5 + 0.3 * 0.1};
        for (int a : new int[] {2, 3, 6}) {
            for (double lambda : new double[] {0.1, 0.6, 1}) {
                double[] bar = PmixedPrivacy.mix(lambda, dense, P0);
                double expected =
                        Math.max(
                                PmixedPrivacy.renyiDivergence(bar, P0, a),
                                PmixedPrivacy.renyiDivergence(P0, bar, a));
                assertThat(PmixedMechanism.symmetricDivergence(tokens, p, 0.3, lambda, p0, a))
                        .isCloseTo(expected, within(1e-12 + 1e-10 * expected));
            }
        }
    }

    @Test
    void mollify_staysInTheBall_withTheLargestLambda() {
        SplittableRandom rnd = new SplittableRandom(5);
        PmixedMechanism m = mechanism(0.5, 3, 0.3, 1);
        PublicDistribution p0 = PublicDistribution.of(new double[] {0.5, 0.25, 0.15, 0.07, 0.03});
        for (int trial = 0; trial < 200; trial++) {
            double[] p = new double[5];
            double s = 0;
            for (int j = 0; j < 5; j++) {
                p[j] = Math.pow(rnd.nextDouble(), 4);
                s += p[j];
            }
            for (int j = 0; j < 5; j++) {
                p[j] /= s;
            }
            MollifiedDistribution md = m.mollify(new Dense(p), p0);
            double[] bar = md.dense(p0);
            assertThat(sum(bar)).isCloseTo(1, within(1e-12));
            double div = symmetric(bar, p0.probabilities(), 6);
            assertThat(div).isLessThanOrEqualTo(0.3 + 1e-9);
            if (md.lambda() < 1) {
                double[] more = PmixedPrivacy.mix(md.lambda() + 1e-6, p, p0.probabilities());
                assertThat(symmetric(more, p0.probabilities(), 6)).isGreaterThan(0.3);
            }
        }
    }

    @Test
    void mollify_publicTeacher_keepsLambdaOne_andZeroPublicMass_forcesLambdaZero() {
        PmixedMechanism m = mechanism(0.5, 3, 0.01, 1);
        PublicDistribution p0 = PublicDistribution.of(P0);
        assertThat(m.mollify(new Dense(P0), p0).lambda()).isEqualTo(1);
        PublicDistribution hole = PublicDistribution.of(new double[] {0.5, 0.5, 0});
        MollifiedDistribution md =
                m.mollify(new SparseProbabilities(new int[] {2}, new double[] {1}), hole);
        assertThat(md.lambda()).isEqualTo(0);
        assertThat(md.publicWeight()).isEqualTo(1);
        assertThatThrownBy(
                        () ->
                                m.mollify(
                                        new SparseProbabilities(new int[] {7}, new double[] {1}),
                                        hole))
                .hasMessage("teacher token 7 is outside the public vocabulary");
    }

    @Test
    void sampleMixture_emptySubsetIsThePublicModel() {
        PublicDistribution p0 = PublicDistribution.of(P0);
        assertThat(PmixedMechanism.sampleMixture(List.of(), p0, 0.0)).isEqualTo(0);
        assertThat(PmixedMechanism.sampleMixture(List.of(), p0, 0.65)).isEqualTo(1);
        assertThat(PmixedMechanism.sampleMixture(List.of(), p0, 0.95)).isEqualTo(3);
        MollifiedDistribution md =
                new MollifiedDistribution(new int[] {2}, new double[] {0.5}, 0.5, 0.5);
        assertThat(PmixedMechanism.sampleMixture(List.of(md), p0, 0.49)).isEqualTo(2);
        // u = 0.5 + 0.5·0.45: the public part at 0.45 → token 1
        assertThat(PmixedMechanism.sampleMixture(List.of(md), p0, 0.725)).isEqualTo(1);
    }

    /**
     * {@code step} draws from {@code stepLaw}: 100 000 seeded steps, every token's frequency inside
     * its two-sided Clopper–Pearson interval at level 1e-6/(2|V|) (false-failure chance ≤ 1e-6).
     */
    @Test
    void step_drawsFromTheExactStepLaw() {
        PublicDistribution p0 = PublicDistribution.of(new double[] {0.3, 0.3, 0.2, 0.1, 0.1});
        List<TeacherDistribution> roster =
                List.of(
                        new SparseProbabilities(new int[] {4}, new double[] {0.9}),
                        new SparseProbabilities(new int[] {3, 4}, new double[] {0.5, 0.5}),
                        new Dense(new double[] {0.1, 0.1, 0.1, 0.6, 0.1}),
                        new SparseProbabilities(new int[] {0}, new double[] {1}));
        PmixedMechanism m = mechanism(0.4, 3, 0.5, 42);
        double[] law = m.stepLaw(roster, p0);
        assertThat(sum(law)).isCloseTo(1, within(1e-12));
        int runs = 100_000;
        long[] counts = new long[5];
        StepInput in = new StepInput(4, roster::get, () -> p0, 0, 5);
        for (int i = 0; i < runs; i++) {
            Release r = m.step(in);
            counts[r.token().getAsInt()]++;
        }
        double level = 1e-6 / (2 * 5);
        for (int t = 0; t < 5; t++) {
            double lo =
                    counts[t] == 0
                            ? 0
                            : new BetaDistribution(null, counts[t], runs - counts[t] + 1)
                                    .inverseCumulativeProbability(level);
            double hi =
                    counts[t] == runs
                            ? 1
                            : new BetaDistribution(null, counts[t] + 1, runs - counts[t])
                                    .inverseCumulativeProbability(1 - level);
            assertThat(law[t]).as("token %d", t).isBetween(lo, hi);
        }
    }

    @Test
    void step_asksOnlyTheSampledTeachers_andEmitsTheFixedCurve() {
        PmixedMechanism m = mechanism(0.1, 4, 0.2, 3);
        PublicDistribution p0 = PublicDistribution.uniform(3);
        int[] asked = new int[1];
        StepInput in =
                new StepInput(
                        1000,
                        i -> {
                            asked[0]++;
                            return new Dense(new double[] {1, 0, 0});
                        },
                        () -> p0,
                        0,
                        3);
        Release r = m.step(in);
        assertThat(asked[0]).isBetween(50, 160); // Binomial(1000, 0.1): ±5.3 sd
        assertThat(r.event()).isEqualTo(m.worstCaseStepEvent());
        assertThat(r.event()).isEqualTo(m.params().stepEvent());
        assertThat(m.params().stepEvent().orders()).containsExactly(2, 3, 4);
    }

    @Test
    void params_forBudget_andValidation() {
        PmixedParams p = PmixedParams.forBudget(0.03, 3, new PrivacyBudget(8, 1e-5), 1024);
        assertThat(p.stepEvent().rdp()[1]).isLessThanOrEqualTo(0.0031233481640206093);
        assertThat(p.radius()).isCloseTo(0.6868687404381562, within(1e-8));
        assertThat(p.constraintOrder()).isEqualTo(6);
        assertThatThrownBy(() -> new PmixedParams(0, 3, 0.1))
                .hasMessage("samplingRate must be in (0, 1]; got 0.0");
        assertThatThrownBy(() -> new PmixedParams(0.1, 1, 0.1))
                .hasMessage("maxOrder must be in [2, 64]; got 1");
        assertThatThrownBy(() -> new PmixedParams(0.1, 3, Double.NaN))
                .hasMessage("radius must be >= 0 and finite; got NaN");
        assertThatThrownBy(() -> PmixedParams.forBudget(0.1, 2, new PrivacyBudget(1, 1e-6), 10))
                .hasMessageContaining("leaves no RDP budget at order 2");
    }

    @Test
    void generationLoop_runsPmixedUntilTheBudgetIsSpent() {
        PmixedParams params = PmixedParams.forBudget(0.2, 16, new PrivacyBudget(4, 1e-6), 40);
        PmixedMechanism m = new PmixedMechanism(params, NoiseSources.seededInsecureForTestsOnly(9));
        PublicDistribution p0 = PublicDistribution.uniform(4);
        GenerationLoop.Teachers teachers =
                new GenerationLoop.Teachers() {
                    @Override
                    public int size() {
                        return 10;
                    }

                    @Override
                    public TeacherDistribution next(int teacher, int[] prefix) {
                        return new Dense(new double[] {0.7, 0.1, 0.1, 0.1});
                    }
                };
        List<GenerationLoop.Prompt> prompts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            prompts.add(new GenerationLoop.Prompt("p" + i, new int[] {1}));
        }
        EnsembleBudgetFilter f =
                EnsembleBudgetFilter.create(
                        EnsembleBudgetFilter.Config.plan(
                                new PrivacyBudget(4, 1e-6), m.worstCaseStepEvent()));
        GenerationLoop.Result r =
                GenerationLoop.run(
                        m,
                        prompts,
                        teachers,
                        prefix -> p0,
                        4,
                        f,
                        new GenerationLoop.Options(1, 8, -1, FailPolicy.STOP, 1));
        assertThat(r.budgetExhausted()).isTrue();
        assertThat(r.steps()).isEqualTo(r.privateTokens()).isGreaterThanOrEqualTo(40);
        assertThat(r.fails()).isZero();
        assertThat(r.spentEpsilon()).isLessThanOrEqualTo(4);
        assertThat(f.canAfford(m.worstCaseStepEvent())).isFalse();
    }

    static double symmetric(double[] a, double[] b, int order) {
        return Math.max(
                PmixedPrivacy.renyiDivergence(a, b, order),
                PmixedPrivacy.renyiDivergence(b, a, order));
    }

    static double sum(double[] a) {
        double s = 0;
        for (double x : a) {
            s += x;
        }
        return s;
    }

    static org.assertj.core.data.Offset<Double> within(double d) {
        return org.assertj.core.data.Offset.offset(d);
    }
}
