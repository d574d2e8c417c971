package org.hotpate.bench;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.RankedProbabilities;
import org.hotpate.core.sampling.Sampler;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.core.sampling.TeacherDistribution.Dense;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.hotpate.teachers.PlanetZEnsemble;
import org.hotpate.teachers.SimulatedTeachers;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The coordinated vote kernel, in ns per teacher distribution, next to the memory-read bound of the
 * same arrays (summing the probabilities and reading the token ids) in the same run.
 *
 * <p>{@code k} is the number of listed tokens of a sparse distribution (random ids in a Llama-3
 * vocabulary of 128 256, listed mass 0.95, so the residual competitor is drawn too); {@code k =
 * 128256} means a dense full-vocabulary array (mass 1). Each invocation votes {@code TEACHERS}
 * distinct distributions at one step. {@code buildStepTable} is the once-per-step cost of the 1/u
 * table; {@code coordinatedVoteWithoutTable} computes every u_j on the fly (Philox + log), the cost
 * the table removes. {@code rankedVote} is the same vote from {@link RankedProbabilities}
 * (decreasing probability, early stop); {@code planetZVote} and {@code planetZRankedVote} vote the
 * pipeline benchmark's 10 000 distinct Planet-Z teachers (950 listed tokens each, 126 MB) at one
 * step, the model-side work of {@code bench pipeline --payload model-vote}.
 *
 * <p>Run: {@code ./hotpate bench VoteKernel -f 1 -wi 2 -i 3}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class VoteKernelBenchmark {
    static final int VOCABULARY = 128_256;
    static final int TEACHERS = 256;

    @Param({"100", "1000", "128256"})
    public int k;

    private TeacherDistribution[] teachers;
    private int[][] tokens;
    private double[][] probs;
    private long[] keys;
    private RankedProbabilities[] ranked;
    private StepRandomness table;
    private StepRandomness noTable;
    private final Sampler coordinated = Samplers.coordinated();

    @Setup
    public void setUp() {
        Random rnd = new Random(42);
        boolean dense = k >= VOCABULARY;
        // Dense: 16 distinct 1 MB arrays visited round-robin (16 MB, beyond the caches).
        int distinct = dense ? 16 : TEACHERS;
        teachers = new TeacherDistribution[TEACHERS];
        tokens = new int[TEACHERS][];
        probs = new double[TEACHERS][];
        keys = new long[TEACHERS];
        for (int i = 0; i < TEACHERS; i++) {
            keys[i] = SeedDerivation.teacherKey(i);
            if (i >= distinct) {
                teachers[i] = teachers[i % distinct];
                tokens[i] = tokens[i % distinct];
                probs[i] = probs[i % distinct];
                continue;
            }
            int size = dense ? VOCABULARY : k;
            double[] p = new double[size];
            double s = 0;
            for (int j = 0; j < size; j++) {
                p[j] = -Math.log(1 - rnd.nextDouble());
                s += p[j];
            }
            double mass = dense ? 1.0 : 0.95;
            for (int j = 0; j < size; j++) {
                p[j] *= mass / s;
            }
            int[] t = dense ? null : distinctTokens(rnd, size);
            teachers[i] = dense ? new Dense(p) : new SparseProbabilities(t, p);
            tokens[i] = t; // dense: token id = index, nothing to read
            probs[i] = p;
        }
        ranked = new RankedProbabilities[TEACHERS];
        for (int i = 0; i < TEACHERS; i++) {
            ranked[i] = RankedProbabilities.of(teachers[i].toSparseProbabilities());
        }
        long seed = SeedDerivation.stepSeed(1, "bench", 0, 0);
        table = StepRandomness.forStep(seed, VOCABULARY);
        noTable = StepRandomness.forStep(seed, 0);
    }

    private static int[] distinctTokens(Random rnd, int size) {
        java.util.BitSet used = new java.util.BitSet(VOCABULARY);
        int[] t = new int[size];
        for (int j = 0; j < size; j++) {
            int x;
            do {
                x = rnd.nextInt(VOCABULARY);
            } while (used.get(x));
            used.set(x);
            t[j] = x;
        }
        return t;
    }

    /** Per teacher distribution: the coordinated vote with the per-step table. */
    @Benchmark
    @OperationsPerInvocation(TEACHERS)
    public long coordinatedVote() {
        long acc = 0;
        for (int i = 0; i < teachers.length; i++) {
            acc += coordinated.vote(teachers[i], table, keys[i]);
        }
        return acc;
    }

    /** Per teacher distribution: the same votes from the ranked form (early stop). */
    @Benchmark
    @OperationsPerInvocation(TEACHERS)
    public long rankedVote() {
        long acc = 0;
        for (int i = 0; i < ranked.length; i++) {
            acc += ranked[i].coordinatedVote(table, keys[i]);
        }
        return acc;
    }

    /** The pipeline benchmark's model-side teachers (BenchWorkload): 10⁴ distinct Planet-Z. */
    @State(Scope.Benchmark)
    public static class PlanetZ {
        static final int DISTINCT = 10_000;
        SparseProbabilities[] sparse = new SparseProbabilities[DISTINCT];
        RankedProbabilities[] ranked = new RankedProbabilities[DISTINCT];
        long[] keys = new long[DISTINCT];
        StepRandomness step;

        @Setup
        public void setUp() {
            SimulatedTeachers t =
                    SimulatedTeachers.planetZ(1, 20, DISTINCT)
                            .shifted(VOCABULARY - PlanetZEnsemble.VOCABULARY_SIZE, DISTINCT);
            for (int i = 0; i < DISTINCT; i++) {
                sparse[i] = t.teacher(i);
                ranked[i] = t.ranked(i);
                keys[i] = SeedDerivation.teacherKey(i);
            }
            step = StepRandomness.forStep(SeedDerivation.stepSeed(1, "bench", 0, 0), VOCABULARY);
        }
    }

    /** Per Planet-Z teacher: the sampler's vote over its 950 entries in token order. */
    @Benchmark
    @OperationsPerInvocation(PlanetZ.DISTINCT)
    public long planetZVote(PlanetZ z) {
        long acc = 0;
        for (int i = 0; i < PlanetZ.DISTINCT; i++) {
            acc += coordinated.vote(z.sparse[i], z.step, z.keys[i]);
        }
        return acc;
    }

    /** Per Planet-Z teacher: the same votes from the ranked form. */
    @Benchmark
    @OperationsPerInvocation(PlanetZ.DISTINCT)
    public long planetZRankedVote(PlanetZ z) {
        long acc = 0;
        for (int i = 0; i < PlanetZ.DISTINCT; i++) {
            acc += z.ranked[i].coordinatedVote(z.step, z.keys[i]);
        }
        return acc;
    }

    /** Per teacher distribution: read the same arrays (sum probabilities, read token ids). */
    @Benchmark
    @OperationsPerInvocation(TEACHERS)
    public double memoryRead() {
        double acc = 0;
        long ids = 0;
        for (int i = 0; i < probs.length; i++) {
            double[] p = probs[i];
            int[] t = tokens[i];
            if (t == null) {
                for (int j = 0; j < p.length; j++) {
                    acc += p[j];
                }
                continue;
            }
            for (int j = 0; j < p.length; j++) {
                acc += p[j];
                ids += t[j];
            }
        }
        return acc + ids;
    }

    /** Per teacher distribution: the vote computing every u_j on the fly (no table). */
    @Benchmark
    @OperationsPerInvocation(TEACHERS)
    public long coordinatedVoteWithoutTable() {
        long acc = 0;
        for (int i = 0; i < teachers.length; i++) {
            acc += coordinated.vote(teachers[i], noTable, keys[i]);
        }
        return acc;
    }

    /** Once per step: the table of u_j and 1/u_j over the whole vocabulary. */
    @Benchmark
    public StepRandomness buildStepTable() {
        return StepRandomness.forStep(k, VOCABULARY);
    }

    /** Once per step of ranked votes: the table and its block maxima (first maxInvExp1). */
    @Benchmark
    public double buildStepTableWithBounds() {
        return StepRandomness.forStep(k, VOCABULARY).maxInvExp1(0, VOCABULARY - 1);
    }
}
