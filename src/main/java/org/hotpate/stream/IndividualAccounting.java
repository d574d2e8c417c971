package org.hotpate.stream;

import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.hotpate.core.accounting.IndividualPlan;
import org.hotpate.core.accounting.IndividualSchemes;
import org.hotpate.core.accounting.PublicChargingRandomness;
import org.hotpate.core.accounting.SchemeAStep;
import org.hotpate.core.accounting.SchemeBStep;
import org.hotpate.core.accounting.TeacherCharges;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.mechanism.Release;
import org.hotpate.core.noise.NoiseSources;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.core.vote.VoteHistogram;

/**
 * The stream's binding of per-teacher ("individual") accounting ({@code mechanism.name: scheme-b}
 * or {@code scheme-a}; docs/privacy-accounting.md §5, "The job's form"): the core plan ({@link
 * IndividualPlan}, K or τ planned from {@code budget.per-teacher-epsilon} / {@code
 * per-teacher-delta}), the step's public charging randomness, the involvement rule and the step
 * decision. All math is core's ({@link IndividualSchemes}, {@link SchemeBStep}, {@link
 * SchemeAStep}, {@link TeacherCharges}); operators call this class only.
 *
 * <p><b>Tested token.</b> v is the public model's coordinated vote under the step's public seed
 * ({@link PublicChargingRandomness#publicModelToken}); the inclusion rate ν is {@code sample-rate}.
 * Both are functions of the public seed and the public model only, so the vote operator (which
 * charges) and the reducer (which counts) derive the same values independently.
 */
public final class IndividualAccounting implements Serializable {
    private static final long serialVersionUID = 1L;

    private final IndividualPlan plan;
    private final double targetDelta;
    private final double sampleRate;
    private final JobConfig.Ensemble ensemble;
    private final int vocabularySize;
    private transient TeacherDistribution publicModel;
    private transient Map<Long, PublicChargingRandomness> cache;

    public IndividualAccounting(
            IndividualPlan plan, double targetDelta, JobConfig.Ensemble ensemble) {
        this.plan = checkNotNull("plan", plan);
        this.targetDelta = targetDelta;
        this.ensemble = checkNotNull("ensemble", ensemble);
        this.vocabularySize = ensemble.effectiveVocabulary();
        this.sampleRate =
                plan instanceof SchemeBStep.Plan b
                        ? b.params().sampleRate()
                        : ((SchemeAStep.Plan) plan).params().sampleRate();
    }

    /** The run's binding, or null when the mechanism is not a per-teacher scheme. */
    public static IndividualAccounting of(JobConfig cfg) {
        IndividualPlan p = cfg.individualPlan();
        return p == null
                ? null
                : new IndividualAccounting(p, cfg.budget().targetTeacherDelta(), cfg.ensemble());
    }

    public IndividualPlan plan() {
        return plan;
    }

    /** The per-teacher target δ at which {@link #epsilon} is stated. */
    public double targetDelta() {
        return targetDelta;
    }

    /** Whether charges are applied at vote time (Scheme B: every involvement, any outcome). */
    public boolean chargesAtVote() {
        return plan instanceof SchemeBStep.Plan;
    }

    /**
     * Whether charges depend on the released outcome (Scheme A: only BETWEEN charges), so the
     * accountant must feed each release back to the involved teachers' keyed state.
     */
    public boolean chargesOnOutcome() {
        return plan instanceof SchemeAStep.Plan;
    }

    /**
     * What a teacher's stored charge count means: the scheme and the parameters that fix the unit
     * and the limit. Charges carry over between runs on a dataset only under the same plan.
     */
    public String planId() {
        if (plan instanceof SchemeBStep.Plan b) {
            return "scheme-b/sigma="
                    + b.params().sigma()
                    + "/order="
                    + b.order()
                    + "/budget="
                    + b.rdpBudget()
                    + "/k="
                    + b.k();
        }
        SchemeAStep.Plan a = (SchemeAStep.Plan) plan;
        return "scheme-a/epsilon="
                + a.params().epsilon()
                + "/width="
                + a.params().bandWidth()
                + "/tau="
                + a.tau()
                + "/delta="
                + targetDelta;
    }

    /** The step's public charging randomness (ν = sample-rate, v = the public model's vote). */
    public PublicChargingRandomness randomness(long stepSeed) {
        if (cache == null) {
            cache =
                    new LinkedHashMap<>(64, 0.75f, true) {
                        private static final long serialVersionUID = 1L;

                        @Override
                        protected boolean removeEldestEntry(
                                Map.Entry<Long, PublicChargingRandomness> e) {
                            return size() > 256;
                        }
                    };
            publicModel = ensemble.simulated().publicModel();
        }
        return cache.computeIfAbsent(
                stepSeed,
                s ->
                        PublicChargingRandomness.forStep(
                                s,
                                sampleRate,
                                PublicChargingRandomness.publicModelToken(
                                        publicModel,
                                        StepRandomness.forStep(s, vocabularySize),
                                        vocabularySize)));
    }

    /**
     * Whether a teacher with {@code charges} takes part in the step with this public seed when it
     * votes {@code vote}: room for one more charge, public coin 1, own vote = v (core {@link
     * IndividualSchemes#involved}).
     */
    public boolean involved(int vote, long teacher, long stepSeed, TeacherCharges charges) {
        return IndividualSchemes.involved(vote, teacher, randomness(stepSeed), charges, plan);
    }

    /** The step's decision on {@code involvedCount}, DP noise from {@code noise}. */
    public SchemeBStep.Decision decide(long involvedCount, UniformSource noise) {
        return plan instanceof SchemeBStep.Plan b
                ? new SchemeBStep(b, noise).decide(involvedCount)
                : new SchemeAStep((SchemeAStep.Plan) plan, noise).decide(involvedCount);
    }

    /** The teacher's individual ε at the target δ (operator-only: data-dependent). */
    public double epsilon(TeacherCharges charges) {
        return charges.epsilon(plan, targetDelta);
    }

    /**
     * The ensemble-level event of one step of {@code m} (B: a discrete Gaussian count of
     * sensitivity 1; A: ε-DP), which is also its worst case — from the spec parameters alone.
     */
    public static PrivacyEvent event(JobConfig.Mechanism m) {
        // Core's own event(), through a plan that admits no charge (the event needs no target).
        if (m.name().equals(SchemeBStep.NAME)) {
            return new SchemeBStep(
                            new SchemeBStep.Plan(SchemeBStep.Params.fromSpec(m.params()), 2, 0, 0),
                            NoiseSources.secure())
                    .event();
        }
        return new SchemeAStep(
                        new SchemeAStep.Plan(SchemeAStep.Params.fromSpec(m.params()), 0),
                        NoiseSources.secure())
                .event();
    }

    /**
     * The per-teacher schemes as an {@link AggregationMechanism} for the code paths that only need
     * a mechanism's name and worst case (spec validation, the budget filters' admission): they
     * release through {@link #decide}, never from a histogram.
     */
    static AggregationMechanism asMechanism(JobConfig.Mechanism m) {
        PrivacyEvent e = event(m);
        return new AggregationMechanism() {
            @Override
            public String name() {
                return m.name();
            }

            @Override
            public Release release(VoteHistogram histogram) {
                throw new UnsupportedOperationException(
                        m.name() + " releases through the per-teacher path, not a histogram");
            }

            @Override
            public PrivacyEvent worstCaseEvent() {
                return e;
            }
        };
    }
}
