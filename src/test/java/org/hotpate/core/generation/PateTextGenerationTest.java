package org.hotpate.core.generation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.Mechanisms;
import org.hotpate.core.mechanism.Release;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.core.sampling.TeacherDistribution.Dense;
import org.junit.jupiter.api.Test;

/** Hot and cold PATE as text-generation methods, and the generation loop's rules. */
class PateTextGenerationTest {
    static final int N = 50;
    static final int V = 8;
    static final double[] SPREAD = {0.3, 0.25, 0.2, 0.1, 0.05, 0.05, 0.03, 0.02};

    static GenerationLoop.Teachers identical(double[] p) {
        return new GenerationLoop.Teachers() {
            @Override
            public int size() {
                return N;
            }

            @Override
            public TeacherDistribution next(int teacher, int[] prefix) {
                return new Dense(p);
            }
        };
    }

    static AggregationMechanism confident(long seed) {
        return Mechanisms.create(
                "confident-gnmax",
                Map.of("sigma1", 5.0, "sigma2", 5.0, "threshold", 40.0),
                V,
                N,
                NoiseSources.seededInsecureForTestsOnly(seed));
    }

    /**
     * Identical teachers with a spread-out distribution: coordinated votes always agree (count = n,
     * so Confident-GNMax answers), independent votes split (max count ≈ 0.3n < T, ⊥).
     */
    @Test
    void hotAnswersWhereColdFails_onTheSameSeedsAndMechanism() {
        PateTextGeneration hot = PateTextGeneration.hot(confident(1), N);
        PateTextGeneration cold = PateTextGeneration.cold(confident(1), N);
        GenerationLoop.Teachers t = identical(SPREAD);
        int hotTokens = 0;
        int coldTokens = 0;
        Set<Integer> distinct = new HashSet<>();
        for (long seed = 0; seed < 200; seed++) {
            StepInput in =
                    new StepInput(
                            N,
                            i -> t.next(i, new int[0]),
                            () -> PublicDistribution.uniform(V),
                            seed,
                            V);
            Release h = hot.step(in);
            Release c = cold.step(in);
            if (!h.isFail()) {
                hotTokens++;
                distinct.add(h.token().getAsInt());
            }
            coldTokens += c.isFail() ? 0 : 1;
        }
        assertThat(hotTokens).isGreaterThan(190);
        assertThat(coldTokens).isLessThan(5);
        assertThat(distinct).hasSizeGreaterThan(4); // diversity: the shared randomness varies
        assertThat(hot.name()).isEqualTo("hot-pate");
        assertThat(cold.name()).isEqualTo("cold-pate");
    }

    @Test
    void worstCaseStepEvent_isTheMechanismsOwnWorstCase() {
        PateTextGeneration hot = PateTextGeneration.hot(confident(1), N);
        assertThat(hot.worstCaseStepEvent())
                .isInstanceOfSatisfying(
                        PrivacyEvent.ConfidentGnmax.class, e -> assertThat(e.answered()).isTrue());
        assertThat(hot.worstCaseStepEvent()).isEqualTo(confident(1).worstCaseEvent());
    }

    @Test
    void loop_refusesNonPrivateMethods() {
        PateTextGeneration targmax =
                PateTextGeneration.hot(
                        Mechanisms.create("targmax", Map.of("threshold", 3.0), V, N), N);
        assertThat(targmax.isDifferentiallyPrivate()).isFalse();
        assertThatThrownBy(
                        () ->
                                GenerationLoop.run(
                                        targmax,
                                        List.of(new GenerationLoop.Prompt("a", new int[] {1})),
                                        identical(SPREAD),
                                        p -> PublicDistribution.uniform(V),
                                        V,
                                        budget(1, 1e-6),
                                        options(FailPolicy.STOP, 1)))
                .hasMessageContaining("not differentially private");
    }

    /** A run filter planned for this test's Confident-GNMax worst case. */
    static EnsembleBudgetFilter budget(double epsilon, double delta) {
        return EnsembleBudgetFilter.create(
                EnsembleBudgetFilter.Config.plan(
                        new PrivacyBudget(epsilon, delta), confident(3).worstCaseEvent()));
    }

    static GenerationLoop.Options options(FailPolicy policy, int attempts) {
        return new GenerationLoop.Options(7, 5, -1, policy, attempts);
    }

    static List<GenerationLoop.Prompt> prompts(int k) {
        List<GenerationLoop.Prompt> p = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            p.add(new GenerationLoop.Prompt("p" + i, new int[] {i % V}));
        }
        return p;
    }

    @Test
    void loop_failPolicies_andEveryStepCharged() {
        PateTextGeneration cold = PateTextGeneration.cold(confident(3), N);
        for (FailPolicy policy : FailPolicy.values()) {
            EnsembleBudgetFilter f = budget(50, 1e-6);
            GenerationLoop.Result r =
                    GenerationLoop.run(
                            cold,
                            prompts(3),
                            identical(SPREAD),
                            p -> PublicDistribution.uniform(V),
                            V,
                            f,
                            options(policy, 3));
            assertThat(f.releases()).as("%s", policy).isEqualTo(r.steps());
            for (GenerationLoop.Sequence s : r.sequences()) {
                switch (policy) {
                    case STOP -> {
                        assertThat(s.finish()).isEqualTo(FinishReason.FAIL_STOP);
                        assertThat(s.steps()).isEqualTo(s.privateTokens() + 1);
                    }
                    case RESAMPLE -> {
                        assertThat(s.finish()).isEqualTo(FinishReason.FAIL_STOP);
                        assertThat(s.fails()).isGreaterThanOrEqualTo(3);
                    }
                    case FALLBACK -> {
                        assertThat(s.finish()).isEqualTo(FinishReason.MAX_STEPS);
                        assertThat(s.generated()).hasSize(5);
                        assertThat(s.privateTokens()).isLessThan(5);
                    }
                }
            }
        }
    }

    @Test
    void loop_stopsAtTheStopToken_andAtTheBudget() {
        PateTextGeneration hot = PateTextGeneration.hot(confident(4), N);
        double[] always3 = {0, 0, 0, 1, 0, 0, 0, 0};
        GenerationLoop.Result r =
                GenerationLoop.run(
                        hot,
                        prompts(2),
                        identical(always3),
                        p -> PublicDistribution.uniform(V),
                        V,
                        budget(50, 1e-6),
                        new GenerationLoop.Options(7, 5, 3, FailPolicy.STOP, 1));
        for (GenerationLoop.Sequence s : r.sequences()) {
            assertThat(s.generated()).containsExactly(3);
            assertThat(s.finish()).isEqualTo(FinishReason.STOP_TOKEN);
        }
        EnsembleBudgetFilter small = budget(1, 1e-6);
        GenerationLoop.Result b =
                GenerationLoop.run(
                        hot,
                        prompts(50),
                        identical(SPREAD),
                        p -> PublicDistribution.uniform(V),
                        V,
                        small,
                        options(FailPolicy.STOP, 1));
        assertThat(b.budgetExhausted()).isTrue();
        assertThat(b.spentEpsilon()).isLessThanOrEqualTo(1);
        assertThat(b.sequences().get(49).finish()).isEqualTo(FinishReason.BUDGET_EXHAUSTED);
        assertThat(b.sequences().get(49).steps()).isZero();
        assertThat(small.releases()).isEqualTo(b.steps());
    }
}
