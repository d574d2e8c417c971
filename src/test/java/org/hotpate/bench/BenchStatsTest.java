package org.hotpate.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The benchmark's statistics: nearest-rank percentiles and the steady-state window. */
class BenchStatsTest {
    @Test
    void percentilesAreNearestRank() {
        double[] v = new double[100];
        for (int i = 0; i < 100; i++) {
            v[i] = 100 - i; // unsorted on purpose: 100..1
        }
        assertThat(BenchStats.percentile(v, 0.5)).isEqualTo(50);
        assertThat(BenchStats.percentile(v, 0.99)).isEqualTo(99);
        assertThat(BenchStats.percentile(v, 1.0)).isEqualTo(100);
        assertThat(BenchStats.percentile(v, 0.001)).isEqualTo(1);
        assertThat(v[0]).as("input left as it was").isEqualTo(100);
        assertThat(BenchStats.percentile(new double[] {7, 3, 5}, 0.5)).isEqualTo(5);
        assertThat(BenchStats.percentile(new double[] {4}, 0.99)).isEqualTo(4);
        // p99 of 10 values is the largest: ceil(9.9) = 10th.
        assertThat(BenchStats.percentile(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.99))
                .isEqualTo(10);
        assertThat(BenchStats.percentile(new double[0], 0.5)).isNaN();
        assertThatThrownBy(() -> BenchStats.percentile(v, 0))
                .hasMessage("q must be in (0, 1]; got 0.0");
    }

    /** Samples every second of a cumulative count with the given rate per second. */
    private static double[][] series(double[] ratePerSecond) {
        double[] t = new double[ratePerSecond.length + 1];
        double[] c = new double[t.length];
        for (int i = 1; i < t.length; i++) {
            t[i] = i;
            c[i] = c[i - 1] + ratePerSecond[i - 1];
        }
        return new double[][] {t, c};
    }

    @Test
    void aConstantRateAfterAnIdleStartIsSteadyFromWhereItStarts() {
        double[] r = new double[60];
        for (int i = 10; i < 60; i++) {
            r[i] = 1000;
        }
        double[][] s = series(r);
        BenchStats.Window w = BenchStats.steadyWindow(s[0], s[1], 5, 20, 4, 0.25);
        assertThat(w.steady()).isTrue();
        assertThat(w.rate()).isCloseTo(1000, within(1e-9));
        assertThat(w.startS()).isEqualTo(10); // the idle batch is cut, nothing else
        assertThat(w.endS()).isEqualTo(60);
    }

    @Test
    void aRampIsExcludedAndTheMinimumStartIsRespected() {
        double[] r = new double[80];
        for (int i = 0; i < 80; i++) {
            r[i] = i < 20 ? 50 * i : 1000; // ramps up over 20 s
        }
        double[][] s = series(r);
        BenchStats.Window w = BenchStats.steadyWindow(s[0], s[1], 0, 20, 4, 0.25);
        assertThat(w.steady()).isTrue();
        assertThat(w.startS()).isEqualTo(20); // all of the ramp, none of the plateau
        assertThat(w.rate()).isCloseTo(1000, within(1e-9));
        assertThat(w.spread()).isLessThanOrEqualTo(0.25);

        BenchStats.Window late = BenchStats.steadyWindow(s[0], s[1], 30, 20, 4, 0.25);
        assertThat(late.startS()).isEqualTo(30);
        assertThat(late.rate()).isCloseTo(1000, within(1e-9));
    }

    @Test
    void burstsAtCheckpointsAreSteadyOverBlocksOfSeveralSeconds() {
        // Offsets committed once per checkpoint (every 2 s), sampled every second, with noise.
        SplittableRandom rnd = new SplittableRandom(7);
        double[] r = new double[61];
        for (int i = 0; i < r.length; i++) {
            r[i] = i % 2 == 0 ? 2000 * (0.9 + 0.2 * rnd.nextDouble()) : 0;
        }
        double[][] s = series(r);
        BenchStats.Window w = BenchStats.steadyWindow(s[0], s[1], 5, 30, 4, 0.25);
        assertThat(w.steady()).isTrue();
        assertThat(w.rate()).isBetween(900.0, 1100.0);
    }

    @Test
    void aRateThatKeepsFallingIsNeverSteady() {
        double[] r = new double[60];
        for (int i = 0; i < 60; i++) {
            r[i] = 1000 * Math.pow(0.9, i); // halves about every 6.6 s
        }
        double[][] s = series(r);
        BenchStats.Window w = BenchStats.steadyWindow(s[0], s[1], 10, 20, 4, 0.25);
        assertThat(w.steady()).isFalse();
        assertThat(w.spread()).isGreaterThan(0.25);
        assertThat(w.startS()).isBetween(10.0, 40.0); // MSER truncates at most half the batches
        double exact = (s[1][60] - s[1][(int) w.startS()]) / (60 - w.startS());
        assertThat(w.rate()).isCloseTo(exact, within(1e-9));
    }

    @Test
    void aTooShortTailFallsBackToTheLastMinimumLength() {
        double[][] s = series(new double[] {5, 5, 5, 5, 5, 5, 5, 5, 5, 5});
        BenchStats.Window w = BenchStats.steadyWindow(s[0], s[1], 9, 4, 4, 0.25);
        assertThat(w.startS()).isEqualTo(6);
        assertThat(w.rate()).isCloseTo(5, within(1e-9));
        assertThat(w.steady()).isTrue(); // judged on the fallback window itself
    }

    @Test
    void interpolatesBetweenSamples() {
        double[] t = {0, 2, 4};
        double[] c = {0, 10, 30};
        assertThat(BenchStats.at(t, c, 1)).isEqualTo(5);
        assertThat(BenchStats.at(t, c, 3)).isEqualTo(20);
        assertThat(BenchStats.at(t, c, -1)).isEqualTo(0);
        assertThat(BenchStats.at(t, c, 9)).isEqualTo(30);
    }

    @Test
    void threadRolesDropSubtaskIndicesAndNumbers() {
        assertThat(ThreadCpu.role("vote (1/2)#0")).isEqualTo("vote");
        assertThat(ThreadCpu.role("Source: distributions-source -> decode-distributions (2/2)#0"))
                .isEqualTo("Source: distributions-source -> decode-distributions");
        assertThat(ThreadCpu.role("kafka-producer-network-thread | producer-3"))
                .isEqualTo("kafka-producer-network-thread");
        assertThat(ThreadCpu.role("data-plane-kafka-request-handler-7"))
                .isEqualTo("data-plane-kafka-request-handler");
        assertThat(ThreadCpu.role("bench-teacher-worker")).isEqualTo("bench-teacher-worker");
        assertThat(ThreadCpu.nativeKind("G1 Conc#0")).isEqualTo("(native) GC threads");
        assertThat(ThreadCpu.nativeKind("GC Thread#1")).isEqualTo("(native) GC threads");
        assertThat(ThreadCpu.nativeKind("C2 CompilerThre")).isEqualTo("(native) JIT compilers");
        assertThat(ThreadCpu.nativeKind("rocksdb:low")).isEqualTo("(native) RocksDB background");
        assertThat(ThreadCpu.nativeKind("vote (1/2)#0")).isNull();
    }
}
