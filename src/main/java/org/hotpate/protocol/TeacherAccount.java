package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkState;

import java.io.Serializable;
import org.hotpate.core.accounting.TeacherCharges;

/**
 * One teacher's account under the run's {@link AccountingMode}: the charges it has taken (token
 * votes under a vote cap; involvements or target hits under a per-teacher scheme — on the dataset,
 * earlier runs included) and its involvements whose released outcome has not come back yet ({@code
 * pending}, scheme-a only). An immutable value: the vote operator loads it from the teacher's keyed
 * state, asks the mode what a vote or an outcome does to it, and stores the result.
 *
 * <p>Rules every mode keeps (PRIVACY.md Appendix A; DESIGN.md invariant 5): charges never decrease,
 * so a teacher that reached its limit stays retired and never votes again, across restarts; a
 * charge is a function of the teacher's own vote, public randomness and the released outcome only —
 * never of the count or the noise.
 */
public record TeacherAccount(long charges, int pending) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** A teacher never charged, nothing pending. */
    public static final TeacherAccount NONE = new TeacherAccount(0, 0);

    public TeacherAccount {
        checkArgument(charges >= 0, "charges must be >= 0; got " + charges);
        checkArgument(pending >= 0, "pending must be >= 0; got " + pending);
    }

    /** An account with {@code charges} and nothing pending. */
    public static TeacherAccount of(long charges) {
        return charges == 0 ? NONE : new TeacherAccount(charges, 0);
    }

    /** Whether one more charge stays within {@code limit}. */
    public boolean admits(long limit) {
        return charges < limit;
    }

    /** Whether the account has used its whole {@code limit}: the teacher never votes again. */
    public boolean retired(long limit) {
        return !admits(limit);
    }

    /**
     * Whether there is room for one more charge even if every pending outcome charges too (scheme
     * a: an involvement counts as a charge until its outcome comes back).
     */
    public boolean roomWithPending(long limit) {
        return charges + pending < limit;
    }

    /** The account after one more charge; {@link IllegalStateException} once retired. */
    public TeacherAccount charge(long limit) {
        checkState(admits(limit), "teacher is retired: " + charges + " charges, limit " + limit);
        return new TeacherAccount(charges + 1, pending);
    }

    /** The account with one more involvement whose outcome is pending. */
    public TeacherAccount involve() {
        return new TeacherAccount(charges, pending + 1);
    }

    /** The account with one pending involvement resolved (its outcome came back). */
    public TeacherAccount resolve() {
        checkState(pending > 0, "no pending involvement to resolve");
        return new TeacherAccount(charges, pending - 1);
    }

    /** The charges as core's per-teacher state (per-teacher schemes). */
    public TeacherCharges asCharges() {
        return TeacherCharges.of(charges);
    }
}
