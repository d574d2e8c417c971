package org.hotpate.core.mechanism;

import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.DoubleFunction;
import org.hotpate.core.privacy.PrivacyEvent;

/**
 * What the privacy planner ({@code ./hotpate privacy cost|plan}) and the evaluation's tuner ask of
 * an ensemble mechanism, carried by its {@link MechanismRegistry} entry so that no caller branches
 * on a mechanism's name. Each hook is optional: a mechanism without it is not offered there (the
 * callers list the names that have it, {@link MechanismRegistry#stepRdpNames()} and the like).
 *
 * @param stepRdp one step's RDP per order, data-independent and data-dependent ({@code privacy
 *     cost}); null for none
 * @param answeredStep the data-independent cost of one answered query ({@code privacy plan}); null
 *     for none
 * @param tuning the noise parameters the evaluation's tuner searches ({@code PrivacyEfficiency});
 *     null for none
 */
public record PrivacyAnalysis(StepRdp stepRdp, AnsweredStep answeredStep, Tuning tuning) {

    /** No hook: a mechanism the planner and the tuner do not offer. */
    public static final PrivacyAnalysis NONE = new PrivacyAnalysis(null, null, null);

    public Optional<StepRdp> findStepRdp() {
        return Optional.ofNullable(stepRdp);
    }

    public Optional<AnsweredStep> findAnsweredStep() {
        return Optional.ofNullable(answeredStep);
    }

    public Optional<Tuning> findTuning() {
        return Optional.ofNullable(tuning);
    }

    /**
     * Where a hook reads its numeric parameters by key (the privacy command: its {@code --key}
     * options). Each method refuses a missing or out-of-range value in the caller's own words; the
     * hooks read their keys in a fixed order, so the first refusal is always the same.
     */
    public interface Inputs {
        boolean has(String key);

        /** A required value, any number. */
        double value(String key);

        /** An optional value, any number. */
        double value(String key, double dflt);

        /** A required value > 0. */
        double positive(String key);

        /** An optional value in (0, 1]. */
        double unitFraction(String key, double dflt);

        /** How a refusal names the parameter {@code key} (the command line: {@code --key}). */
        default String spell(String key) {
            return key;
        }

        /** The caller's refusal of a combination of values, with {@code message}. */
        RuntimeException invalid(String message);
    }

    /** {@code privacy cost}: one step's RDP at each order. */
    @FunctionalInterface
    public interface StepRdp {
        /**
         * @param votes the vote count of each listed token (tokens not listed have 0 votes)
         * @param vocabularySize |V| ≥ votes.length
         */
        Curves of(Inputs in, double[] votes, int vocabularySize, double[] orders);
    }

    /**
     * One step's RDP at each order: the data-independent curve (what hotpate charges) and PATE
     * 2018's data-dependent one (continuous noise, computed from private votes: for comparison
     * only).
     */
    public record Curves(double[] dataIndependent, double[] dataDependent) {}

    /**
     * {@code privacy plan}: the data-independent cost of one answered query, as events each paid
     * {@code 1 / answeredFraction} times per answer.
     *
     * @param parameters every key {@link #cost} reads
     */
    public record AnsweredStep(
            List<String> parameters, java.util.function.Function<Inputs, Cost> cost) {
        public AnsweredStep {
            parameters = List.copyOf(parameters);
            checkNotNull("cost", cost);
        }

        public Cost costOf(Inputs in) {
            return cost.apply(in);
        }
    }

    /**
     * One answered query's cost: Σ RDP(event) / answeredFraction over the shares, and the planning
     * assumptions the cost rests on, as output fields (e.g. {@code answered_fraction}).
     */
    public record Cost(List<Share> shares, Map<String, Object> assumptions) {
        public Cost {
            shares = List.copyOf(shares);
            assumptions = Map.copyOf(assumptions);
        }

        /** One event, paid on every answer. */
        public static Cost of(PrivacyEvent event) {
            return new Cost(List.of(new Share(event, 1.0)), Map.of());
        }
    }

    /**
     * An event paid on every query when only {@code answeredFraction} of the queries are answered
     * (1 for an event of the answer itself): one answer pays RDP(event) / answeredFraction.
     */
    public record Share(PrivacyEvent event, double answeredFraction) {
        public Share {
            checkNotNull("event", event);
        }
    }

    /** The noise parameters the evaluation's tuner searches for a mechanism. */
    public sealed interface Tuning permits NoisyArgmax, ThresholdedArgmax {}

    /**
     * A noisy argmax with one noise scale: parameter {@code parameter} = the scale, Laplace noise
     * if {@code laplace} (else Gaussian), {@code event} the step's event at a scale.
     */
    public record NoisyArgmax(String parameter, boolean laplace, DoubleFunction<PrivacyEvent> event)
            implements Tuning {
        public NoisyArgmax {
            checkNotNull("parameter", parameter);
            checkNotNull("event", event);
        }
    }

    /**
     * A Confident-GNMax-shaped step: a threshold test with N(0, σ1²) noise, then (when answered) a
     * GNMax argmax with σ2. The threshold is either a parameter the tuner chooses ({@code
     * fixedThreshold} null) or fixed by the mechanism from σ1, σ2 and the public sizes.
     *
     * @param params the mechanism's parameters for (σ1, T, σ2), in the order they are reported
     */
    public record ThresholdedArgmax(FixedThreshold fixedThreshold, TunedParams params)
            implements Tuning {
        public ThresholdedArgmax {
            checkNotNull("params", params);
        }

        public Optional<FixedThreshold> findFixedThreshold() {
            return Optional.ofNullable(fixedThreshold);
        }

        /** The data-independent event of the threshold step (σ1, T). */
        public PrivacyEvent thresholdStep(double sigma1, double threshold) {
            return new PrivacyEvent.ConfidentGnmax(sigma1, threshold, 1, false);
        }

        /** The data-independent event of the answer's argmax (σ2). */
        public PrivacyEvent answer(double sigma2) {
            return new PrivacyEvent.Gnmax(sigma2);
        }
    }

    /** The threshold a mechanism fixes itself. */
    @FunctionalInterface
    public interface FixedThreshold {
        double of(double sigma1, double sigma2, int teachers, int vocabularySize);
    }

    /**
     * {@code privacy plan --scheme}: a per-teacher scheme's plan for each teacher's target (ε, δ),
     * as output fields (the limit, the relation, the add/remove comparison).
     */
    @FunctionalInterface
    public interface SchemePlan {
        Map<String, Object> report(Inputs in, double perTeacherEpsilon, double perTeacherDelta);
    }

    /** A tuned setting (σ1, T, σ2) as the mechanism's named parameters. */
    @FunctionalInterface
    public interface TunedParams {
        Map<String, Double> of(double sigma1, double threshold, double sigma2);
    }
}
