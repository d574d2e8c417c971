package org.hotpate.stream.ops;

import java.util.Map;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.hotpate.protocol.AccountingMode;
import org.hotpate.protocol.TeacherAccount;

/**
 * A teacher's {@link TeacherAccount} in the vote operator's keyed state: {@code teacher-charges}
 * (its charges; absent: its charges on the dataset before this run — the durable entry's charges +
 * pending), {@code pending-involvements} (scheme-a: the steps whose outcome has not come back) and
 * {@code teacher-version} (the number of account changes written to the durable ledger for the
 * teacher on the dataset; absent: the durable entry's version). All live as long as the run: a
 * spent teacher never votes again, across restarts.
 */
final class TeacherAccounts {
    private final AccountingMode mode;
    private final Map<Long, Long> priorCharges;
    private final Map<Long, Long> priorVersions;
    private ValueState<Long> charges;
    private ValueState<Long> version;
    private MapState<String, Boolean> pending;

    TeacherAccounts(
            AccountingMode mode, Map<Long, Long> priorCharges, Map<Long, Long> priorVersions) {
        this.mode = mode;
        this.priorCharges = priorCharges;
        this.priorVersions = priorVersions;
    }

    void open(RuntimeContext rc) {
        charges = rc.getState(new ValueStateDescriptor<>("teacher-charges", Types.LONG));
        version = rc.getState(new ValueStateDescriptor<>("teacher-version", Types.LONG));
        pending =
                rc.getMapState(
                        new MapStateDescriptor<>(
                                "pending-involvements", Types.STRING, Types.BOOLEAN));
    }

    /** The current key's account (the pending set is counted only when the mode has one). */
    TeacherAccount load(long teacher) throws Exception {
        Long stored = charges.value();
        int inFlight = 0;
        if (mode.feedsOutcomesBack()) {
            for (String ignored : pending.keys()) {
                inFlight++;
            }
        }
        long durable = priorCharges.getOrDefault(teacher, 0L); // charges + pending, every run
        // Restored state never counts for less than the durable ledger (max(state, durable)): a
        // resume that forks restores charges older than what its earlier branch left (issue 23).
        // Sound because a teacher's per-teacher ε is monotone in its charge count (Scheme B: the
        // per-teacher Rényi filter, Feldman & Zrnic 2021 Thm 4.3; Scheme A: Theorem 2,
        // docs/privacy-accounting.md §5). Tested: VoteOperatorIndividualTest.aRestoredAccount….
        long c = stored != null ? Math.max(stored, durable - inFlight) : durable;
        return new TeacherAccount(c, inFlight);
    }

    /**
     * Stores the charges of {@code after} if the account changed (also when only its pending set
     * did: from then on the teacher's stored charges, not the dataset's prior, are its charges).
     */
    void store(TeacherAccount before, TeacherAccount after) throws Exception {
        if (!after.equals(before)) {
            charges.update(after.charges());
        }
    }

    /** The next version of the current key's durable entry (one more account change). */
    long nextVersion(long teacher) throws Exception {
        Long stored = version.value();
        long next = (stored != null ? stored : priorVersions.getOrDefault(teacher, 0L)) + 1;
        version.update(next);
        return next;
    }

    boolean isPending(String step) throws Exception {
        return pending.contains(step);
    }

    void involve(String step) throws Exception {
        pending.put(step, Boolean.TRUE);
    }

    void resolve(String step) throws Exception {
        pending.remove(step);
    }
}
