package org.hotpate.core.accounting;

/**
 * A per-teacher ("individual") accounting plan, fixed before the run from public inputs (the
 * scheme's parameters and {@code budget.per-teacher-epsilon} / {@code per-teacher-delta}): the
 * number of charges a teacher may take ({@link #limit()}: Scheme B's K involvements, Scheme A's τ
 * target hits) and how a teacher's charges read as an ε. A teacher's state is a {@link
 * TeacherCharges}.
 */
public sealed interface IndividualPlan extends java.io.Serializable
        permits SchemeBStep.Plan, SchemeAStep.Plan {

    /** The mechanism name in job specs ({@code scheme-b} or {@code scheme-a}). */
    String scheme();

    /**
     * What a teacher's stored charge count means at the per-teacher target δ {@code targetDelta}:
     * the scheme and the parameters that fix the unit and the limit, and the relation (read back by
     * {@code protocol.IndividualScheme.planFromId}).
     */
    String id(double targetDelta);

    /** The public inclusion coin's rate ({@code sample-rate}). */
    double sampleRate();

    /**
     * Whether a teacher is charged at its vote (Scheme B: every involved teacher, whatever the
     * outcome) rather than on the released outcome (Scheme A: only on BETWEEN).
     */
    boolean chargesAtVote();

    /** One step's decision on the involved count, with the step's secret-keyed noise. */
    SchemeBStep.Decision decide(long involvedCount, org.hotpate.core.noise.UniformSource noise);

    /** Charges a teacher may take; a teacher with this many never takes part again. */
    long limit();

    /** The neighbouring relation the limit was planned under (replace-one in the job). */
    NeighbourRelation relation();

    /**
     * The individual ε at {@code delta} of a teacher with {@code charges} charges under the plan's
     * {@link #relation()}: under replace-one, the pair (this user, any replacement) with the
     * replacement charged up to the limit — so even a teacher with no charge reads as the
     * replacement's share; under add/remove, {@link #epsilonAddRemove}. It never exceeds the
     * per-teacher target at the target δ for charges ≤ {@link #limit()}. A teacher's guarantee is
     * its plan's target; this number is how much of it the teacher's own charges have used. It is
     * data-dependent (it depends on the teacher's votes): operator-only, never public.
     */
    double epsilon(long charges, double delta);

    /**
     * What the scheme's add/remove statement gives a teacher stopped after {@code charges} charges
     * (0 for none: such a teacher never entered a count, or — Scheme A — never hit a target): the
     * loss between the worlds with and without this user only. Printed for comparison, labelled;
     * not hotpate's guarantee.
     */
    double epsilonAddRemove(long charges, double delta);
}
