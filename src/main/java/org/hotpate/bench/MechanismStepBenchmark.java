package org.hotpate.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.AutoPlanner;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.hotpate.core.mechanism.Mechanisms;
import org.hotpate.core.mechanism.Release;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.privacy.PrivacyBudget;
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
 * One aggregation step of the demo's shape (n = 2,284 teachers, cl100k_base's 100,277 tokens,
 * secure noise) with the mechanism the demo used before ({@code confident-gnmax} σ1 60, T 250, σ2
 * 30) and the one {@code mechanism: auto} plans now ({@code checked-gnmax}, the demo's
 * budget-limited plan): what the privacy-efficiency levers cost per step
 * (docs/privacy-efficiency.md). {@code ./hotpate bench MechanismStepBenchmark -f 1}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class MechanismStepBenchmark {
    private static final int TEACHERS = 2284;
    private static final int VOCABULARY = 100_277;

    /**
     * answered: one token holds 700 votes (above both thresholds); bottom: the top count is 200 (a
     * ⊥ at the threshold step for both).
     */
    @Param({"answered", "bottom"})
    public String step;

    @Param({MechanismRegistry.CONFIDENT_GNMAX, MechanismRegistry.CHECKED_GNMAX})
    public String mechanism;

    private AggregationMechanism m;
    private VoteHistogram histogram;

    @Setup
    public void setup() {
        if (mechanism.equals(MechanismRegistry.CONFIDENT_GNMAX)) {
            m =
                    Mechanisms.create(
                            mechanism,
                            Map.of("sigma1", 60.0, "threshold", 250.0, "sigma2", 30.0),
                            VOCABULARY,
                            TEACHERS,
                            NoiseSources.secure());
        } else {
            AutoPlanner.Plan plan =
                    AutoPlanner.plan(
                            new AutoPlanner.Inputs(
                                    TEACHERS,
                                    VOCABULARY,
                                    true,
                                    new PrivacyBudget(4.0, 1e-6),
                                    24_000));
            m =
                    Mechanisms.create(
                            plan.mechanism(),
                            plan.params(),
                            VOCABULARY,
                            TEACHERS,
                            NoiseSources.secure());
        }
        Map<Integer, Integer> counts = new HashMap<>();
        counts.put(1000, step.equals("answered") ? 700 : 200);
        for (int i = 1; i < 40; i++) {
            counts.put(1000 + 37 * i, 10);
        }
        histogram = VoteHistogram.ofCounts(TEACHERS, counts);
    }

    @Benchmark
    public Release release() {
        return m.release(histogram);
    }
}
