package org.hotpate.stream.ops;

import java.util.HashSet;
import java.util.Set;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Meter;
import org.apache.flink.metrics.MeterView;
import org.apache.flink.metrics.MetricGroup;
import org.hotpate.io.AvroWire;
import org.hotpate.model.KafkaOut;
import org.hotpate.model.Rejected;

/**
 * The job's operational metrics, in one place: every operator registers its metric in {@code
 * open()} with one call here and updates it with a one-line hook. They live in the operator's
 * metric group under {@code hotpate}, so the Prometheus reporter exports them as {@code
 * flink_taskmanager_job_task_operator_hotpate_<name>} with the operator and subtask as labels
 * (docs/operations.md lists them and what to do when they move):
 *
 * <ul>
 *   <li>{@code epsilonSpent} — ε spent by the job's run so far (accountant; the run id is in the
 *       job name);
 *   <li>{@code openSteps} — steps the reducer has seen and not closed yet;
 *   <li>{@code sequencesInFlight} — sequences with a result and not finished (sequence loop);
 *   <li>{@code distributionsPerSecond} — teacher distributions decoded for this run;
 *   <li>{@code rejectedPerSecond} — dead letters written to the rejected topic;
 *   <li>{@code teachersRetired} — teachers retired by per-teacher charging (operator-only: it
 *       counts teachers whose data spent their budget).
 * </ul>
 *
 * <p>Gauges are per subtask and live: after a failover they restart empty and count steps and
 * sequences again as they next move (within one step deadline for steps). Sum them over subtasks; ε
 * is reported by the one subtask that holds the run.
 */
public final class JobMetrics {
    public static final String GROUP = "hotpate";
    private static final int RATE_WINDOW_S = 10;

    private JobMetrics() {}

    private static MetricGroup group(RuntimeContext ctx) {
        return ctx.getMetricGroup().addGroup(GROUP);
    }

    /** {@code epsilonSpent}: the run's ε so far. */
    public static EpsilonSpent epsilonSpent(RuntimeContext ctx) {
        return new EpsilonSpent(group(ctx));
    }

    /** {@code openSteps}: keys added when a step opens, removed when it closes. */
    public static LiveKeys openSteps(RuntimeContext ctx) {
        return new LiveKeys(group(ctx), "openSteps");
    }

    /** {@code sequencesInFlight}: keys added on a sequence's results, removed when it finishes. */
    public static LiveKeys sequencesInFlight(RuntimeContext ctx) {
        return new LiveKeys(group(ctx), "sequencesInFlight");
    }

    /** {@code distributionsPerSecond}, over the last 10 s. */
    public static Meter distributions(RuntimeContext ctx) {
        return group(ctx).meter("distributionsPerSecond", new MeterView(RATE_WINDOW_S));
    }

    /** {@code teachersRetired} (operator-only). */
    public static Counter teachersRetired(RuntimeContext ctx) {
        return group(ctx).counter("teachersRetired");
    }

    /** The ε gauge of each run this subtask accounts for. */
    public static final class EpsilonSpent {
        private final double[] latest = {0};

        private EpsilonSpent(MetricGroup group) {
            // One run per job: the run id is already in the job name label. (A key/value group per
            // run did not reach the Prometheus endpoint.)
            group.gauge("epsilonSpent", (Gauge<Double>) () -> latest[0]);
        }

        public void set(String runId, double epsilon) {
            latest[0] = epsilon;
        }
    }

    /** A gauge counting the keys currently open in this subtask. */
    public static final class LiveKeys {
        private final Set<String> keys = new HashSet<>();

        private LiveKeys(MetricGroup group, String name) {
            group.gauge(name, (Gauge<Integer>) keys::size);
        }

        public void add(String key) {
            keys.add(key);
        }

        public void remove(String key) {
            keys.remove(key);
        }
    }

    /**
     * The encoder of dead letters for the rejected topic; meters {@code rejectedPerSecond} (every
     * operator's rejects pass through it).
     */
    public static final class EncodeRejected extends RichMapFunction<Rejected, KafkaOut> {
        private static final long serialVersionUID = 1L;
        private final String topic;
        private transient Meter rejected;

        public EncodeRejected(String topic) {
            this.topic = topic;
        }

        @Override
        public void open(org.apache.flink.api.common.functions.OpenContext ctx) {
            rejected =
                    group(getRuntimeContext())
                            .meter("rejectedPerSecond", new MeterView(RATE_WINDOW_S));
        }

        @Override
        public KafkaOut map(Rejected r) {
            rejected.markEvent();
            return new KafkaOut(topic, null, AvroWire.encode(r));
        }
    }
}
