package org.hotpate.stream;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.Release;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.core.vote.VoteHistogram;

/**
 * The one place where the stream layer calls core: samplers, mechanisms, the ensemble budget
 * filter and per-teacher charging. Operators stay thin and never construct core objects
 * themselves.
 *
 * <p>TEMPORARY STAND-INS (until core sampling/mechanism/accounting land on main): every method
 * below marked "stand-in" is replaced by the real core call.
 */
public final class CoreBindings {
    private CoreBindings() {}

    public static final int RANDOMNESS_VERSION = 1; // stand-in

    /** Public step seed from the run seed (stand-in for SeedDerivation.stepSeed). */
    public static long stepSeed(long runSeed, long sequenceId, int step, int attempt) {
        return mix(mix(mix(runSeed ^ 0x9E3779B97F4A7C15L, sequenceId), step), attempt);
    }

    /** A vote function for one run. */
    public interface Voter {
        /** The teacher's vote (token or VoteHistogram.ABSTAIN) at the step with this public seed. */
        int vote(TeacherDistribution d, long stepSeed, int vocabularySize, long teacherId);
    }

    /** stand-in: Gumbel-max over listed tokens with the residual as the teacher's own competitor. */
    public static Voter voter(JobConfig.Sampler sampler) {
        boolean coordinated = sampler.coordinated();
        return (d, seed, v, teacherId) -> {
            double[] p;
            int[] t;
            if (d instanceof TeacherDistribution.SparseProbabilities s) {
                p = s.probs();
                t = s.tokens();
            } else if (d instanceof TeacherDistribution.TopKLogits l) {
                p = l.probabilities();
                t = l.tokens();
            } else {
                throw new IllegalArgumentException("unsupported distribution " + d);
            }
            double best = Double.NEGATIVE_INFINITY;
            int arg = VoteHistogram.ABSTAIN;
            double mass = 0;
            for (int i = 0; i < t.length; i++) {
                mass += p[i];
                if (p[i] <= 0) {
                    continue;
                }
                long h = coordinated ? mix(seed, t[i]) : mix(mix(seed, teacherId + 1_000_003L), t[i]);
                double score = Math.log(p[i]) - Math.log(expOne(h));
                if (score > best || (score == best && t[i] < arg)) {
                    best = score;
                    arg = t[i];
                }
            }
            double residual = 1 - mass;
            if (residual > 1e-12) {
                double score = Math.log(residual) - Math.log(expOne(mix(mix(seed, -teacherId - 7), 0xABCDEFL)));
                if (score > best) {
                    arg = VoteHistogram.ABSTAIN;
                }
            }
            return arg;
        };
    }

    /** stand-in: noisy max with a threshold (Gaussian noise from SecureRandom). */
    public static AggregationMechanism mechanism(JobConfig.Mechanism m, int vocabularySize, int teachers) {
        double sigma = m.params().getOrDefault("sigma", 10.0);
        double threshold = m.params().getOrDefault("threshold", teachers / 2.0);
        SecureRandom rnd = new SecureRandom();
        return new AggregationMechanism() {
            @Override
            public String name() {
                return m.name();
            }

            @Override
            public Release release(VoteHistogram h) {
                PrivacyEvent e = new PrivacyEvent.Gaussian(sigma, Math.sqrt(2));
                OptionalInt arg = h.argmax();
                if (arg.isEmpty()) {
                    return Release.fail(e);
                }
                double noisy = h.maxCount() + sigma * rnd.nextGaussian();
                return noisy >= threshold
                        ? new Release(arg, e, OptionalDouble.of(noisy), List.of())
                        : new Release(OptionalInt.empty(), e, OptionalDouble.of(noisy), List.of());
            }
        };
    }

    /** The run's ensemble budget filter (stand-in: RDP of Gaussian events on a fixed grid). */
    public static final class EnsembleBudget {
        private static final double[] ORDERS = {1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 32, 64, 128, 256};
        private final double epsilon;
        private final double delta;

        public EnsembleBudget(JobConfig.Budget b) {
            this.epsilon = b.epsilon();
            this.delta = b.delta();
        }

        /** A fresh state (RDP per order; the last slot counts releases). */
        public double[] initialState() {
            return new double[ORDERS.length + 1];
        }

        /** The state after charging e, or null if that would exceed the budget (nothing changes). */
        public double[] tryCharge(double[] state, PrivacyEvent e) {
            double[] next = state.clone();
            for (int i = 0; i < ORDERS.length; i++) {
                next[i] += rdp(e, ORDERS[i]);
            }
            next[ORDERS.length] += 1;
            return epsilonOf(next) <= epsilon ? next : null;
        }

        public double epsilonOf(double[] state) {
            double best = Double.POSITIVE_INFINITY;
            for (int i = 0; i < ORDERS.length; i++) {
                best = Math.min(best, state[i] + Math.log(1 / delta) / (ORDERS[i] - 1));
            }
            return state[ORDERS.length] == 0 ? 0 : best;
        }

        public long releases(double[] state) {
            return (long) state[ORDERS.length];
        }

        private static double rdp(PrivacyEvent e, double a) {
            if (e instanceof PrivacyEvent.Gaussian g) {
                return a * g.l2Sensitivity() * g.l2Sensitivity() / (2 * g.sigma() * g.sigma());
            }
            if (e instanceof PrivacyEvent.NoOp) {
                return 0;
            }
            throw new IllegalArgumentException("unsupported privacy event " + e);
        }
    }

    /** Per-teacher charge of one token vote in a heterogeneous ensemble (stand-in: α/(2σ²), α = 2). */
    public static double perVoteCharge(JobConfig cfg) {
        double sigma = cfg.mechanism().params().getOrDefault("sigma", 10.0);
        return 2.0 / (2 * sigma * sigma);
    }

    /** A public-model token (no private data; stand-in: uniform over the numbers 100..999). */
    public static int publicModelToken(int[] prefix, long stepSeed, int vocabularySize) {
        long h = mix(stepSeed, Arrays.hashCode(prefix));
        return 100 + (int) Math.floorMod(h, 900L);
    }

    static long mix(long a, long b) {
        long z = a * 0xBF58476D1CE4E5B9L + b + 0x94D049BB133111EBL;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static double expOne(long h) {
        double u = ((h >>> 11) + 0.5) * 0x1.0p-53;
        return -Math.log(u);
    }
}
