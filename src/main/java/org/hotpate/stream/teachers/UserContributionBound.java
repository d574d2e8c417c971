package org.hotpate.stream.teachers;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;

/**
 * The per-user contribution bound of every records teacher (n-gram and HTTP): a teacher counts at
 * most {@code maxPerUser} records of one user, the rest are dropped before its model sees them
 * (metric {@code recordsOverUserLimit}). Keyed state {@code user-records} (user → records counted),
 * of the current teacher key.
 */
final class UserContributionBound {
    private final int maxPerUser;
    private final MapState<String, Integer> counted;
    private final Counter overLimit;

    UserContributionBound(RuntimeContext runtime, int maxPerUser) {
        this.maxPerUser = maxPerUser;
        this.counted =
                runtime.getMapState(
                        new MapStateDescriptor<>("user-records", Types.STRING, Types.INT));
        this.overLimit = runtime.getMetricGroup().counter("recordsOverUserLimit");
    }

    /** Whether the current teacher may count one more record of {@code user} (and counts it). */
    boolean admit(String user) throws Exception {
        Integer seen = counted.get(user);
        int n = seen == null ? 0 : seen;
        if (n >= maxPerUser) {
            overLimit.inc();
            return false;
        }
        counted.put(user, n + 1);
        return true;
    }
}
