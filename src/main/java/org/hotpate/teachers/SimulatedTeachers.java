package org.hotpate.teachers;

import java.util.Arrays;
import java.util.function.IntFunction;
import org.hotpate.core.sampling.RankedProbabilities;
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
    private final IntFunction<SparseProbabilities> teachers;
    private final IntFunction<RankedProbabilities> ranked;
    private final int firstToken; // no teacher lists a smaller id

    // teachers and ranked look teacher i up (cached) in each form; build makes it afresh.
    private SimulatedTeachers(
            IntFunction<SparseProbabilities> build,
            IntFunction<SparseProbabilities> teachers,
            IntFunction<RankedProbabilities> ranked,
            SparseProbabilities publicModel,
            int vocabularySize,
            int firstToken) {
        this.build = build;
        this.teachers = teachers;
        this.ranked = ranked;
        this.publicModel = publicModel;
        this.vocabularySize = vocabularySize;
        this.firstToken = firstToken;
    }

    /** Teachers built by {@code build} on first use and cached by index, in both forms. */
    private static SimulatedTeachers cached(
            IntFunction<SparseProbabilities> build,
            SparseProbabilities publicModel,
            int vocabularySize) {
        IndexCache<SparseProbabilities> cache = new IndexCache<>(build);
        IndexCache<RankedProbabilities> ranked =
                new IndexCache<>(i -> RankedProbabilities.of(cache.get(i)));
        return new SimulatedTeachers(
                build, cache::get, ranked::get, publicModel, vocabularySize, 0);
    }

    public static SimulatedTeachers planetZ(long seed, int k, int teachers) {
        PlanetZEnsemble e = PlanetZEnsemble.create(seed, k, teachers);
        return cached(e::teacher, e.publicModel(), e.vocabularySize());
    }

    public static SimulatedTeachers alphaMixture(double alpha, int commonTokens, int teachers) {
        AlphaMixtureEnsemble e = AlphaMixtureEnsemble.uniform(alpha, commonTokens, teachers);
        return cached(e::teacher, e.publicModel(), e.vocabularySize());
    }

    public static SimulatedTeachers external(int vocabularySize) {
        return new SimulatedTeachers(
                null, null, null, PublicModel.uniformVocabulary(vocabularySize), vocabularySize, 0);
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
        IntFunction<SparseProbabilities> shiftedBuild = j -> shift(build.apply(j), tokenOffset);
        // Each form is built from the base ensemble on first use, so a worker that only votes
        // keeps only the ranked form in memory.
        IndexCache<SparseProbabilities> shared = new IndexCache<>(shiftedBuild);
        IndexCache<RankedProbabilities> sharedRanked =
                new IndexCache<>(j -> RankedProbabilities.of(shiftedBuild.apply(j)));
        return new SimulatedTeachers(
                i -> shiftedBuild.apply(i % distinct),
                i -> shared.get(i % distinct),
                i -> sharedRanked.get(i % distinct),
                shift(publicModel, tokenOffset),
                vocabularySize + tokenOffset,
                firstToken + tokenOffset);
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

    /** A lower bound on every listed token id (a shifted view's offset). */
    public int firstToken() {
        return firstToken;
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
        return teachers.apply(i);
    }

    /**
     * Teacher i's distribution ranked for coordinated votes ({@link RankedProbabilities}: the same
     * votes as {@link #teacher}'s, reading a fraction of the entries).
     */
    public RankedProbabilities ranked(int i) {
        if (build == null) {
            throw new IllegalStateException("external ensemble: no built-in teachers");
        }
        return ranked.apply(i);
    }

    /**
     * Built values by index: a plain array read on the per-vote path (a boxed-key map lookup was 9
     * % of the benchmark's teacher-worker samples), built and grown under a lock. Values are
     * immutable with final fields, so an unsynchronized read sees either null or a whole value.
     */
    private static final class IndexCache<T> {
        private final IntFunction<T> build;
        private volatile Object[] values = new Object[0];

        IndexCache(IntFunction<T> build) {
            this.build = build;
        }

        @SuppressWarnings("unchecked") // only build's values are stored
        T get(int i) {
            Object[] v = values;
            Object p = i >= 0 && i < v.length ? v[i] : null;
            return p != null ? (T) p : buildAndStore(i);
        }

        @SuppressWarnings("unchecked")
        private synchronized T buildAndStore(int i) {
            if (i < 0) {
                throw new IllegalArgumentException("teacher index must be >= 0; got " + i);
            }
            Object[] v = values;
            if (i >= v.length) {
                v =
                        Arrays.copyOf(
                                v, Math.max(i + 1, Math.min(Integer.MAX_VALUE - 8, 2 * v.length)));
            }
            if (v[i] == null) {
                v[i] = build.apply(i);
            }
            values = v; // publishes the grown array and the new value
            return (T) v[i];
        }
    }

    /** The public model (no private data). */
    public SparseProbabilities publicModel() {
        return publicModel;
    }
}
