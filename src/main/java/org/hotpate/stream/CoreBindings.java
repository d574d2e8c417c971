package org.hotpate.stream;

import java.util.LinkedHashMap;
import java.util.Map;
import org.hotpate.core.accounting.IndividualSchemes;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.Mechanisms;
import org.hotpate.core.noise.KeyedNoiseSource;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.randomness.IndexedTeacherKeys;
import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.core.randomness.SharedRandomness;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.Sampler;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.core.vote.VoteHistogram;

/**
 * The one place where the stream layer calls core: samplers, step seeds, mechanisms and their
 * secret-keyed noise, and the per-teacher vote cap (the budget filters are in {@link Budgets}).
 * Operators stay thin and never construct core objects themselves.
 */
public final class CoreBindings {
    private CoreBindings() {}

    /** The version of the public-randomness PRF every step carries. */
    public static final int RANDOMNESS_VERSION = SharedRandomness.VERSION;

    /**
     * The public step seed of a run's step: {@code SeedDerivation.stepSeed(runSeed,
     * "<runId>/<sequenceId>", step, attempt)} (docs/shared-randomness.md §4). The run id makes a
     * re-run of the same spec draw fresh shared randomness; the job re-derives this seed to refuse
     * steps it did not issue.
     */
    public static long stepSeed(
            long runSeed, String runId, long sequenceId, int step, int attempt) {
        return SeedDerivation.stepSeed(runSeed, runId + "/" + sequenceId, step, attempt);
    }

    /**
     * The secret-keyed noise of one step (core {@link KeyedNoiseSource}): a step re-closed after a
     * failure draws the same noise and so releases the same answer.
     */
    public static UniformSource stepNoise(
            byte[] secret, String runId, long sequenceId, int step, int attempt) {
        return KeyedNoiseSource.forStep(secret, runId, sequenceId, step, attempt);
    }

    /** The configured mechanism drawing its DP noise from {@code noise}. */
    public static AggregationMechanism mechanism(
            JobConfig.Mechanism m, int vocabularySize, int teachers, UniformSource noise) {
        if (IndividualSchemes.isIndividual(m.name())) {
            return IndividualAccounting.asMechanism(m);
        }
        return Mechanisms.create(m.name(), m.params(), vocabularySize, teachers, noise);
    }

    /** A vote function for one operator instance (not thread-safe: it caches step tables). */
    public interface Voter {
        /**
         * The teacher's vote (token or VoteHistogram.ABSTAIN) at the step with this public seed.
         */
        int vote(TeacherDistribution d, long stepSeed, int vocabularySize, long teacherId);
    }

    /**
     * Votes with the configured core sampler; the step table (u_j for every token) is built once
     * per step and kept for the most recent steps.
     */
    public static Voter voter(JobConfig.Sampler sampler) {
        Sampler s = Samplers.byName(sampler.name());
        Map<Long, StepRandomness> cache =
                new LinkedHashMap<>(64, 0.75f, true) {
                    private static final long serialVersionUID = 1L;

                    @Override
                    protected boolean removeEldestEntry(Map.Entry<Long, StepRandomness> e) {
                        return size() > 256;
                    }
                };
        IndexedTeacherKeys keys = new IndexedTeacherKeys();
        return (d, seed, v, teacherId) ->
                s.vote(
                        d,
                        cache.computeIfAbsent(seed, k -> StepRandomness.forStep(k, v)),
                        keys.of((int) teacherId));
    }

    /** The configured mechanism with secure DP noise (core Mechanisms). */
    public static AggregationMechanism mechanism(
            JobConfig.Mechanism m, int vocabularySize, int teachers) {
        if (IndividualSchemes.isIndividual(m.name())) {
            return IndividualAccounting.asMechanism(m);
        }
        return Mechanisms.create(m.name(), m.params(), vocabularySize, teachers);
    }

    /**
     * The unit of the per-teacher vote cap ({@code budget.per-teacher-votes}): every token vote a
     * teacher casts counts 1 against its cap (core {@code ChargeLimit}). A vote cap only, not
     * individual privacy accounting (Scheme A/B): it retires teachers on top of the ensemble
     * guarantee and claims no per-teacher ε.
     */
    public static double perVoteCharge(JobConfig cfg) {
        return 1.0;
    }

    /**
     * The public-model token after a ⊥: the public model's coordinated vote under the step's public
     * seed (no private data, so no charge); its most likely token if it abstains.
     */
    public static int publicModelToken(
            TeacherDistribution.SparseProbabilities publicModel,
            long stepSeed,
            int vocabularySize) {
        int t =
                Samplers.coordinated()
                        .vote(
                                publicModel,
                                StepRandomness.forStep(stepSeed, vocabularySize),
                                SeedDerivation.teacherKey("public-model"));
        if (t != VoteHistogram.ABSTAIN) {
            return t;
        }
        int best = 0;
        for (int i = 1; i < publicModel.size(); i++) {
            if (publicModel.probAt(i) > publicModel.probAt(best)) {
                best = i;
            }
        }
        return publicModel.tokenAt(best);
    }
}
