package org.hotpate.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.hotpate.core.mechanism.GnmaxMechanism;
import org.hotpate.core.mechanism.Release;
import org.hotpate.core.noise.DiscreteGaussian;
import org.hotpate.core.noise.DiscreteLaplace;
import org.hotpate.core.noise.KeyedNoiseSource;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.vote.VoteHistogram;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Cost of the exact samplers (ns per sample) and of one GNMax step over a Llama-3-sized vocabulary
 * (128 256 discrete Gaussians). {@code ./hotpate bench NoiseBenchmark -f 1}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class NoiseBenchmark {
    @Param({"1", "40", "1000"})
    public double sigma;

    /**
     * secure: {@link NoiseSources#secure()}; keyed: the job's replayable {@link KeyedNoiseSource}.
     */
    @Param({"secure", "keyed", "seeded"})
    public String source;

    private UniformSource random;
    private DiscreteGaussian gaussian;
    private DiscreteLaplace laplace;

    @Setup
    public void setup() {
        random =
                switch (source) {
                    case "secure" -> NoiseSources.secure().forCurrentThread();
                    case "keyed" ->
                            KeyedNoiseSource.forStep(
                                    KeyedNoiseSource.newSecret(), "bench", 1, 0, 0);
                    default -> NoiseSources.seededInsecureForTestsOnly(42);
                };
        gaussian = DiscreteGaussian.withSigma(sigma);
        laplace = DiscreteLaplace.withScale(sigma);
    }

    @Benchmark
    public long discreteGaussian() {
        return gaussian.sample(random);
    }

    @Benchmark
    public long discreteLaplace() {
        return laplace.sample(random);
    }

    /** One GNMax release, σ = 40, |V| = 128 256, n = 1000, noise from {@code source} (ms). */
    @State(Scope.Thread)
    public static class Step {
        GnmaxMechanism gnmax;
        VoteHistogram histogram;

        @Setup
        public void setup(NoiseBenchmark b) {
            gnmax = new GnmaxMechanism(40, 128_256, 1000, b.random);
            Map<Integer, Integer> counts = new HashMap<>();
            for (int i = 0; i < 50; i++) {
                counts.put(1000 + 37 * i, 20);
            }
            histogram = VoteHistogram.ofCounts(1000, counts);
        }
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public Release gnmaxStep128k(Step step) {
        return step.gnmax.release(step.histogram);
    }
}
