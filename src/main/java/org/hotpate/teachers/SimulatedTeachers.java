package org.hotpate.teachers;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;

/**
 * A built-in ensemble for the teacher worker and the job: Planet-Z-like or α-mixture teachers
 * (WORKLOADS.md), built lazily per teacher (teacher i depends only on (seed, k, i)) and cached,
 * plus the public model used for the ⊥ fallback. {@link #external} has no teachers (an inference
 * service answers) and a uniform public model.
 */
public final class SimulatedTeachers {
    private final IntFunction<SparseProbabilities> build;
    private final SparseProbabilities publicModel;
    private final int vocabularySize;
    private final ConcurrentHashMap<Integer, SparseProbabilities> cache = new ConcurrentHashMap<>();

    private SimulatedTeachers(
            IntFunction<SparseProbabilities> build,
            SparseProbabilities publicModel,
            int vocabularySize) {
        this.build = build;
        this.publicModel = publicModel;
        this.vocabularySize = vocabularySize;
    }

    public static SimulatedTeachers planetZ(long seed, int k, int teachers) {
        PlanetZEnsemble e = PlanetZEnsemble.create(seed, k, teachers);
        return new SimulatedTeachers(e::teacher, e.publicModel(), e.vocabularySize());
    }

    public static SimulatedTeachers alphaMixture(double alpha, int commonTokens, int teachers) {
        AlphaMixtureEnsemble e = AlphaMixtureEnsemble.uniform(alpha, commonTokens, teachers);
        return new SimulatedTeachers(e::teacher, e.publicModel(), e.vocabularySize());
    }

    public static SimulatedTeachers external(int vocabularySize) {
        return new SimulatedTeachers(
                null, PublicModel.uniformVocabulary(vocabularySize), vocabularySize);
    }

    /**
     * This ensemble seen through a larger vocabulary, for benchmarks (WORKLOADS.md: a Llama-size
     * vocabulary is emulated by offsetting ids): every token id moves up by {@code tokenOffset},
     * and teacher i answers as teacher {@code i mod distinct} of this ensemble, so 10⁵ teachers
     * cost the memory of {@code distinct}. Payload sizes and the vote work per teacher stay those
     * of a real teacher (each teacher still votes with its own key).
     */
    public SimulatedTeachers shifted(int tokenOffset, int distinct) {
        if (build == null) {
            throw new IllegalStateException("external ensemble: no built-in teachers");
        }
        if (tokenOffset < 0 || distinct < 1) {
            throw new IllegalArgumentException(
                    "tokenOffset must be >= 0 and distinct >= 1; got "
                            + tokenOffset
                            + " and "
                            + distinct);
        }
        ConcurrentHashMap<Integer, SparseProbabilities> shared = new ConcurrentHashMap<>();
        return new SimulatedTeachers(
                i -> shared.computeIfAbsent(i % distinct, j -> shift(build.apply(j), tokenOffset)),
                shift(publicModel, tokenOffset),
                vocabularySize + tokenOffset);
    }

    private static SparseProbabilities shift(SparseProbabilities p, int offset) {
        int[] tokens = p.tokens();
        for (int j = 0; j < tokens.length; j++) {
            tokens[j] += offset;
        }
        return new SparseProbabilities(tokens, p.probs());
    }

    /** Whether built-in teachers exist (false for external ensembles). */
    public boolean simulated() {
        return build != null;
    }

    /** The ensemble's own vocabulary size. */
    public int vocabularySize() {
        return vocabularySize;
    }

    /** Teacher i's next-token distribution (simulated teachers answer every step alike). */
    public SparseProbabilities teacher(int i) {
        if (build == null) {
            throw new IllegalStateException("external ensemble: no built-in teachers");
        }
        return cache.computeIfAbsent(i, build::apply);
    }

    /** The public model (no private data). */
    public SparseProbabilities publicModel() {
        return publicModel;
    }
}
