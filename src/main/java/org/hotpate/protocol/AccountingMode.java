package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.hotpate.core.mechanism.AggregationMechanism;
import org.hotpate.core.noise.UniformSource;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.model.StepRef;
import org.hotpate.model.TeacherFeedback;
import org.hotpate.model.Vote;

/**
 * How a run accounts for each teacher, on top of the ensemble budget every run has ({@link
 * RunBudget}) — one case per protocol, so the vote operator never asks for a mechanism's name:
 *
 * <ul>
 *   <li>{@link EnsembleOnly}: no per-teacher state; votes made at the source go straight to the
 *       reducer.
 *   <li>{@link VoteCap} ({@code budget.per-teacher-votes}, heterogeneous ensembles): every token
 *       vote counts one against the teacher's cap; the vote that reaches it is the teacher's last.
 *       A cap on top of the ensemble guarantee, not individual privacy accounting.
 *   <li>{@link ChargeAtVote} (Scheme B): an involved teacher is charged one unit whatever the
 *       outcome, so the charge is applied with the vote, in the same keyed state and checkpoint.
 *   <li>{@link ChargeOnOutcome} (Scheme A): only a BETWEEN outcome charges, known after the
 *       release: an involvement is pending until the accountant's outcome comes back ({@link
 *       #onOutcome}); a teacher with no room for every pending outcome to charge abstains.
 * </ul>
 *
 * <p>Each case answers the same two questions — what a teacher's vote does to its {@link
 * TeacherAccount} ({@link #onVote}) and what a released outcome does ({@link #onOutcome}) — as a
 * {@link Effect} the operator applies: the vote to emit, the account to store, and what to report.
 * A new mode (another per-teacher scheme, per-user charging) is one more case here.
 *
 * <p><b>Why abstaining on pending involvements is sound</b> (Scheme A). Its guarantee (Theorem 2)
 * holds for any involvement rule that is a function of the teacher's own data and of the history
 * (the step outcomes, which the proof treats as released, and the public seeds). The pending set is
 * one: the teacher's own involvements whose outcomes are not yet applied. Abstaining is what a
 * teacher absent from the data does. So "abstain while charges + pending ≥ τ" is just another
 * data-dependent involvement rule, the count a teacher can enter in BETWEEN outcomes stays ≤ τ, and
 * Theorem 2 applies unchanged. When an outcome comes back depends on the pipeline's timing, which
 * the threat model treats as public (liveness), never on the noise or the count.
 */
public sealed interface AccountingMode extends Serializable {

    /** Why a teacher's vote became an abstention, if it did. */
    enum Abstention {
        /** It votes. */
        NONE,
        /** Its account is used up: it never votes again. */
        RETIRED,
        /** Scheme A: no room left if every outcome in flight charged it. */
        NO_ROOM
    }

    /**
     * What a vote or an outcome does: the vote to emit (the teacher's own, or {@code ABSTAIN}), the
     * account to store, why it abstains, whether a per-teacher charge is to be recorded
     * (TEACHER_CHARGE and the durable spending), whether this retired the teacher (TEACHER_RETIRED,
     * once), and whether the step became a pending involvement.
     */
    record Effect(
            int vote,
            TeacherAccount account,
            Abstention abstention,
            boolean charged,
            boolean retired,
            boolean pending) {
        static Effect vote(int vote, TeacherAccount account) {
            return new Effect(vote, account, Abstention.NONE, false, false, false);
        }

        static Effect abstain(TeacherAccount account, Abstention why) {
            return new Effect(Vote.ABSTAIN, account, why, false, false, false);
        }
    }

    /** Whether votes need the teacher's account (the teacher-keyed vote operator). */
    boolean keepsAccounts();

    /** What teacher {@code teacher}'s {@code vote} at the step with {@code stepSeed} does. */
    Effect onVote(TeacherAccount account, int vote, long teacher, long stepSeed);

    /**
     * Whether released outcomes must come back to the involved teachers' accounts (the accountant's
     * feedback, a second loop through Kafka).
     */
    default boolean feedsOutcomesBack() {
        return false;
    }

    /**
     * What a released outcome does to an account in which the step {@code pending} or not: a step
     * not pending (feedback read again after a restore whose state already holds its effect, or a
     * step the teacher was not involved in) does nothing — a release charges a teacher at most
     * once. Null when nothing changes.
     */
    default Effect onOutcome(TeacherAccount account, boolean pending, boolean charged) {
        return null;
    }

    /** The per-teacher scheme of the run, or null (the step is released from the histogram). */
    default IndividualScheme scheme() {
        return null;
    }

    /**
     * What a closed step releases under this mode: an ensemble mechanism ({@code ensemble}, built
     * only when asked) on the step's canonical histogram; a per-teacher scheme on its involved
     * count ({@link PerTeacher} overrides this), with the step's public seed and keyed noise.
     */
    default StepRelease release(
            StepTally tally,
            long stepSeed,
            UniformSource noise,
            Supplier<AggregationMechanism> ensemble) {
        return StepRelease.of(ensemble.get(), tally);
    }

    /** Whether steps are released by an ensemble mechanism (built when the reducer opens). */
    default boolean releasesFromHistogram() {
        return true;
    }

    /** A TEACHER_CHARGE or TEACHER_RETIRED entry for {@code teacher} at {@code step}. */
    LedgerEntry teacherEntry(
            LedgerKind kind, StepRef step, long teacher, TeacherAccount account, long atMs);

    /** The ensemble budget only. */
    record EnsembleOnly() implements AccountingMode {
        @Override
        public boolean keepsAccounts() {
            return false;
        }

        @Override
        public Effect onVote(TeacherAccount account, int vote, long teacher, long stepSeed) {
            return Effect.vote(vote, account);
        }

        @Override
        public LedgerEntry teacherEntry(
                LedgerKind kind, StepRef step, long teacher, TeacherAccount account, long atMs) {
            throw new IllegalStateException("no per-teacher entries without per-teacher rules");
        }
    }

    /** At most {@code votes} token votes per teacher; abstentions are free. */
    record VoteCap(long votes) implements AccountingMode {
        public VoteCap {
            checkPositive("budget.per-teacher-votes", votes);
        }

        @Override
        public boolean keepsAccounts() {
            return true;
        }

        @Override
        public Effect onVote(TeacherAccount account, int vote, long teacher, long stepSeed) {
            if (account.retired(votes)) {
                return Effect.abstain(account, Abstention.RETIRED);
            }
            if (vote == Vote.ABSTAIN) {
                return Effect.vote(vote, account);
            }
            TeacherAccount next = account.charge(votes);
            return new Effect(vote, next, Abstention.NONE, false, next.retired(votes), false);
        }

        @Override
        public LedgerEntry teacherEntry(
                LedgerKind kind, StepRef step, long teacher, TeacherAccount account, long atMs) {
            return LedgerEntries.teacher(kind, step, teacher, "", 0, 0, 0, atMs);
        }
    }

    /**
     * A per-teacher privacy scheme ({@link IndividualScheme}): a retired teacher abstains; an
     * involved one is charged now ({@link ChargeAtVote}) or once its outcome is known ({@link
     * ChargeOnOutcome}); charges are reported with the teacher's ε at the per-teacher δ.
     */
    sealed interface PerTeacher extends AccountingMode {
        @Override
        IndividualScheme scheme();

        @Override
        default StepRelease release(
                StepTally tally,
                long stepSeed,
                UniformSource noise,
                Supplier<AggregationMechanism> ensemble) {
            return scheme().release(tally.counted(), stepSeed, noise);
        }

        @Override
        default boolean releasesFromHistogram() {
            return false;
        }

        /** What an involved teacher's vote does (the teacher is not retired). */
        Effect onInvolvement(TeacherAccount account, int vote);

        @Override
        default boolean keepsAccounts() {
            return true;
        }

        @Override
        default Effect onVote(TeacherAccount account, int vote, long teacher, long stepSeed) {
            if (account.retired(scheme().limit())) {
                return Effect.abstain(account, Abstention.RETIRED);
            }
            if (!scheme().involved(vote, teacher, stepSeed, account)) {
                return Effect.vote(vote, account);
            }
            return onInvolvement(account, vote);
        }

        /** The account after one charge, and whether it retired the teacher. */
        default Effect charge(TeacherAccount account, int vote) {
            TeacherAccount next = account.charge(scheme().limit());
            return new Effect(
                    vote, next, Abstention.NONE, true, next.retired(scheme().limit()), false);
        }

        @Override
        default LedgerEntry teacherEntry(
                LedgerKind kind, StepRef step, long teacher, TeacherAccount account, long atMs) {
            return LedgerEntries.teacher(
                    kind,
                    step,
                    teacher,
                    scheme().name(),
                    scheme().epsilon(account),
                    scheme().targetDelta(),
                    account.charges(),
                    atMs);
        }
    }

    /** Scheme B: every involvement is charged at the vote, whatever the outcome. */
    record ChargeAtVote(IndividualScheme scheme) implements PerTeacher {
        public ChargeAtVote {
            checkNotNull("scheme", scheme);
        }

        @Override
        public Effect onInvolvement(TeacherAccount account, int vote) {
            return charge(account, vote);
        }
    }

    /** Scheme A: an involvement is pending until its released outcome comes back. */
    record ChargeOnOutcome(IndividualScheme scheme) implements PerTeacher {
        public ChargeOnOutcome {
            checkNotNull("scheme", scheme);
        }

        @Override
        public boolean feedsOutcomesBack() {
            return true;
        }

        @Override
        public Effect onInvolvement(TeacherAccount account, int vote) {
            if (!account.roomWithPending(scheme.limit())) {
                return Effect.abstain(account, Abstention.NO_ROOM);
            }
            return new Effect(vote, account.involve(), Abstention.NONE, false, false, true);
        }

        @Override
        public Effect onOutcome(TeacherAccount account, boolean pending, boolean charged) {
            if (!pending) {
                return null;
            }
            TeacherAccount resolved = account.resolve();
            return charged ? charge(resolved, Vote.ABSTAIN) : Effect.vote(Vote.ABSTAIN, resolved);
        }

        /**
         * A release's outcome for each of its {@code involved} teachers: charged on BETWEEN (the
         * release charges all of them), else not. Also how a vote in no release (its step abandoned
         * below the quorum, or late) resolves its involvement: uncharged.
         */
        public static List<TeacherFeedback> outcomes(
                StepRef step, long[] involved, boolean charged, long atMs) {
            List<TeacherFeedback> out = new ArrayList<>(involved.length);
            for (long teacher : involved) {
                out.add(
                        new TeacherFeedback(
                                step.runId(),
                                step.sequenceId(),
                                step.step(),
                                step.attempt(),
                                teacher,
                                charged,
                                atMs));
            }
            return out;
        }
    }
}
