package org.hotpate.teachers;

import java.util.Arrays;
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
    private final IndexCache cache;

    private SimulatedTeachers(
            IntFunction<SparseProbabilities> build,
            SparseProbabilities publicModel,
            int vocabularySize) {
        this.build = build;
        this.cache = build == null ? null : new IndexCache(build);
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
        IndexCache shared = new IndexCache(j -> shift(build.apply(j), tokenOffset));
        return new SimulatedTeachers(
                i -> shared.get(i % distinct),
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
        return cache.get(i);
    }

    /**
     * Built values by index: a plain array read on the per-vote path (a boxed-key map lookup was 9
     * % of the benchmark's teacher-worker samples), built and grown under a lock. Values are
     * immutable with final fields, so an unsynchronized read sees either null or a whole value.
     */
    private static final class IndexCache {
        private final IntFunction<SparseProbabilities> build;
        private volatile SparseProbabilities[] values = new SparseProbabilities[0];

        IndexCache(IntFunction<SparseProbabilities> build) {
            this.build = build;
        }

        SparseProbabilities get(int i) {
            SparseProbabilities[] v = values;
            SparseProbabilities p = i >= 0 && i < v.length ? v[i] : null;
            return p != null ? p : buildAndStore(i);
        }

        private synchronized SparseProbabilities buildAndStore(int i) {
            if (i < 0) {
                throw new IllegalArgumentException("teacher index must be >= 0; got " + i);
            }
            SparseProbabilities[] v = values;
            if (i >= v.length) {
                v =
                        Arrays.copyOf(
                                v, Math.max(i + 1, Math.min(Integer.MAX_VALUE - 8, 2 * v.length)));
            }
            if (v[i] == null) {
                v[i] = build.apply(i);
            }
            values = v; // publishes the grown array and the new value
            return v[i];
        }
    }

    /** The public model (no private data). */
    public SparseProbabilities publicModel() {
        return publicModel;
    }
}
