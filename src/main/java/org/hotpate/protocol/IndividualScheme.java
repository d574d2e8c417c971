package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkNotNull;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hotpate.core.accounting.IndividualPlan;
import org.hotpate.core.accounting.IndividualSchemes;
import org.hotpate.core.accounting.NeighbourRelation;
import org.hotpate.core.accounting.PublicChargingRandomness;
import org.hotpate.core.accounting.SchemeAStep;
import org.hotpate.core.accounting.SchemeBStep;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.TeacherDistribution;
import org.hotpate.model.TeacherSpend;
import org.hotpate.model.Vote;

/**
 * A per-teacher ("individual") scheme of a run ({@code mechanism.name: scheme-b} or {@code
 * scheme-a}; docs/privacy-accounting.md §5, "The job's form"): the core plan ({@link
 * IndividualPlan}: K or τ planned from {@code budget.per-teacher-epsilon} / {@code
 * per-teacher-delta}), the step's public charging randomness, the involvement rule, the step's
 * decision on the involved count, and what a teacher's charges read as. All math is core's ({@link
 * IndividualSchemes}, {@link SchemeBStep}, {@link SchemeAStep}).
 *
 * <p><b>Tested token.</b> v is the public model's coordinated vote under the step's public seed
 * ({@link PublicChargingRandomness#publicModelToken}); the inclusion rate ν is {@code sample-rate}.
 * Both are functions of the public seed and the public model only, so the vote operator (which
 * charges) and the reducer (which counts) derive the same values independently with {@link
 * #involved}.
 */
public final class IndividualScheme implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final int CACHED_STEPS = 256;

    private final IndividualPlan plan;
    private final double targetDelta;
    private final double sampleRate;
    private final int vocabularySize;
    private final PublicModel publicModel;
    private transient TeacherDistribution model;
    private transient Map<Long, PublicChargingRandomness> cache;

    public IndividualScheme(
            IndividualPlan plan, double targetDelta, int vocabularySize, PublicModel publicModel) {
        this.plan = checkNotNull("plan", plan);
        this.targetDelta = targetDelta;
        this.vocabularySize = vocabularySize;
        this.publicModel = checkNotNull("publicModel", publicModel);
        this.sampleRate = plan.sampleRate();
    }

    public IndividualPlan plan() {
        return plan;
    }

    /** The scheme's name ({@code scheme-b} or {@code scheme-a}). */
    public String name() {
        return plan.scheme();
    }

    /** Charges a teacher may take ({@link IndividualPlan#limit()}). */
    public long limit() {
        return plan.limit();
    }

    /** The per-teacher target δ at which {@link #epsilon} is stated. */
    public double targetDelta() {
        return targetDelta;
    }

    /**
     * What a teacher's stored charge count means: the scheme and the parameters that fix the unit
     * and the limit. Charges carry over between runs on a dataset only under the same plan.
     */
    public String planId() {
        return planId(plan, targetDelta);
    }

    /** {@link #planId()} of {@code plan} at the per-teacher target δ {@code targetDelta}. */
    public static String planId(IndividualPlan plan, double targetDelta) {
        return plan.id(targetDelta);
    }

    /**
     * The plan a {@link #planId()} names, as far as it fixes a teacher's limit and ε (the threshold
     * and sample rate are not part of it: 0 and 1 here), or empty for an id this version cannot
     * read — an entry written before the relation was part of the id was planned under add/remove.
     */
    public static java.util.Optional<IndividualPlan> planFromId(String id) {
        try {
            String[] parts = id.split("/");
            Map<String, String> kv = new LinkedHashMap<>();
            for (int i = 1; i < parts.length; i++) {
                int eq = parts[i].indexOf('=');
                if (eq > 0) {
                    kv.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
                }
            }
            NeighbourRelation relation =
                    NeighbourRelation.of(kv.getOrDefault("relation", "add-remove"));
            if (parts[0].equals(SchemeBStep.NAME)) {
                return java.util.Optional.of(
                        new SchemeBStep.Plan(
                                new SchemeBStep.Params(Double.parseDouble(kv.get("sigma")), 0, 1.0),
                                Double.parseDouble(kv.get("order")),
                                Double.parseDouble(kv.get("budget")),
                                Long.parseLong(kv.get("k")),
                                relation));
            }
            if (parts[0].equals(SchemeAStep.NAME)) {
                long width = (long) Double.parseDouble(kv.get("width"));
                return java.util.Optional.of(
                        new SchemeAStep.Plan(
                                new SchemeAStep.Params(
                                        Double.parseDouble(kv.get("epsilon")), 0, width, 1.0),
                                Integer.parseInt(kv.get("tau")),
                                relation));
            }
        } catch (RuntimeException e) {
            // not a plan id of this version
        }
        return java.util.Optional.empty();
    }

    /** The per-teacher target δ a {@link #planId()} of Scheme A names, else {@code fallback}. */
    public static double targetDeltaFromId(String id, double fallback) {
        for (String part : id.split("/")) {
            if (part.startsWith("delta=")) {
                try {
                    return Double.parseDouble(part.substring(6));
                } catch (NumberFormatException e) {
                    return fallback;
                }
            }
        }
        return fallback;
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
                            return size() > CACHED_STEPS;
                        }
                    };
            model = publicModel.distribution();
        }
        return cache.computeIfAbsent(
                stepSeed,
                s ->
                        PublicChargingRandomness.forStep(
                                s,
                                sampleRate,
                                PublicChargingRandomness.publicModelToken(
                                        model,
                                        StepRandomness.forStep(s, vocabularySize),
                                        vocabularySize)));
    }

    /**
     * The involvement rule: whether a teacher with {@code account} takes part in the step with this
     * public seed when it votes {@code vote} — room for one more charge, public coin 1, own vote =
     * v (core {@link IndividualSchemes#involved}). A function of the teacher's own vote and account
     * and of public randomness only.
     */
    public boolean involved(int vote, long teacher, long stepSeed, TeacherAccount account) {
        return IndividualSchemes.involved(
                vote, teacher, randomness(stepSeed), account.asCharges(), plan);
    }

    /**
     * The involved teachers among a step's counted votes, sorted (canonical: the same votes give
     * the same draw). A teacher without room was already turned into an abstention by the vote
     * operator, so each is tested as a teacher with room.
     */
    public long[] involvedAmong(List<Vote> votes, long stepSeed) {
        List<Long> involved = new ArrayList<>();
        for (Vote v : votes) {
            if (involved(v.token(), v.teacherId(), stepSeed, TeacherAccount.NONE)) {
                involved.add(v.teacherId());
            }
        }
        return involved.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    /**
     * The step's release from its counted votes: core decides on the involved count with the step's
     * keyed noise; v is released if reported, else ⊥. It names the involved teachers and those the
     * outcome charges (Scheme B: all of them; Scheme A: all of them on BETWEEN, else none); the
     * noisy count is never released.
     */
    public StepRelease release(List<Vote> counted, long stepSeed, UniformSource noise) {
        long[] involved = involvedAmong(counted, stepSeed);
        SchemeBStep.Decision d = plan.decide(involved.length, noise);
        return new StepRelease(
                d.reported() ? randomness(stepSeed).token() : -1,
                d.event(),
                Double.NaN,
                d.chargeInvolved() ? involved : new long[0],
                involved);
    }

    /**
     * A teacher's durable spending on {@code dataset} after its account changed ({@code
     * <dataset>/teacher/<id>}, the {@code version}-th change on the dataset): its charges under
     * this plan, its pending involvements (provisional charges), its ε at the target δ after its
     * charges, whether it is retired. Operator-only.
     */
    public TeacherSpend spend(
            String dataset,
            long teacher,
            TeacherAccount account,
            long version,
            String runId,
            long atMs) {
        return new TeacherSpend(
                dataset,
                teacher,
                planId(),
                account.charges(),
                account.pending(),
                version,
                epsilon(account),
                targetDelta,
                account.retired(limit()),
                runId,
                atMs);
    }

    /** The teacher's individual ε at the target δ (operator-only: data-dependent). */
    public double epsilon(TeacherAccount account) {
        return account.asCharges().epsilon(plan, targetDelta);
    }

    /**
     * The ensemble-level event of one step of the scheme named {@code name} with spec parameters
     * {@code params} (B: a discrete Gaussian count of sensitivity 1; A: ε-DP), which is also its
     * worst case — from the spec parameters alone.
     */
    public static PrivacyEvent event(String name, Map<String, Double> params) {
        return MechanismRegistry.get(name).stepEvent(params);
    }
}
