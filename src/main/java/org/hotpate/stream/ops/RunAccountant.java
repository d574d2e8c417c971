package org.hotpate.stream.ops;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.io.PrivacyEventJson;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.Outcome;
import org.hotpate.model.ReleaseCandidate;
import org.hotpate.model.StepResult;
import org.hotpate.stream.CoreBindings;
import org.hotpate.stream.JobConfig;

/**
 * The ensemble accountant of a run (keyed by run id; DESIGN.md topology step 5). A candidate is
 * charged to the run's budget filter before anything about it becomes visible: if the charge fits,
 * the ledger entry and the result leave together (same checkpoint, same Kafka transaction); if it
 * does not, nothing of the candidate is released — the result says BUDGET_EXHAUSTED and every later
 * candidate of the run is refused too (hard stop).
 *
 * <p>Published results and ledger entries carry the privacy event without its vote-count profile
 * and no identities of individually charged teachers: both are functions of private votes.
 *
 * <p>State: {@code run-budget} (the filter's state: RDP per order and counters) and {@code
 * run-exhausted}; both live as long as the run (one run per job) — they are the ledger.
 */
public final class RunAccountant
        extends KeyedProcessFunction<String, ReleaseCandidate, StepResult> {
    private static final long serialVersionUID = 1L;

    private final JobConfig.Budget budget;
    private transient ValueState<double[]> state;
    private transient ValueState<Boolean> exhausted;
    private transient EnsembleBudgetFilter.Config filterConfig;
    private transient Counter refused;
    private transient JobMetrics.EpsilonSpent epsilonSpent;

    public RunAccountant(JobConfig.Budget budget) {
        this.budget = budget;
    }

    @Override
    public void open(OpenContext ctx) {
        state =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("run-budget", double[].class));
        exhausted =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("run-exhausted", Types.BOOLEAN));
        filterConfig = CoreBindings.budgetConfig(budget);
        refused = getRuntimeContext().getMetricGroup().counter("refused");
        epsilonSpent = JobMetrics.epsilonSpent(getRuntimeContext());
    }

    @Override
    public void processElement(ReleaseCandidate c, Context ctx, Collector<StepResult> out)
            throws Exception {
        EnsembleBudgetFilter filter =
                state.value() == null
                        ? EnsembleBudgetFilter.create(filterConfig)
                        : EnsembleBudgetFilter.restore(filterConfig, state.value());
        PrivacyEvent event = PrivacyEventJson.decode(c.privacyEventJson());
        String published = PrivacyEventJson.encodePublic(event); // never the private vote counts
        boolean charged = false;
        if (!Boolean.TRUE.equals(exhausted.value()) && filter.canAfford(event)) {
            try {
                filter.charge(event);
                charged = true;
            } catch (IllegalStateException e) {
                charged = false; // does not fit: nothing changed, refuse below
            }
        }
        long now = System.currentTimeMillis();
        double eps = filter.spentEpsilon();
        epsilonSpent.set(c.runId(), eps);
        if (!charged) {
            refused.inc();
            exhausted.update(Boolean.TRUE);
            ctx.output(
                    Tags.LEDGER,
                    new LedgerEntry(
                            c.runId(),
                            "REFUSED",
                            c.sequenceId(),
                            c.step(),
                            c.attempt(),
                            c.mechanism(),
                            published,
                            eps,
                            budget.delta(),
                            filter.releases(),
                            -1,
                            now));
            out.collect(
                    new StepResult(
                            c.runId(),
                            c.sequenceId(),
                            c.step(),
                            c.attempt(),
                            Outcome.BUDGET_EXHAUSTED,
                            -1,
                            c.mechanism(),
                            "",
                            eps,
                            Double.NaN,
                            new long[0],
                            0,
                            c.teachers(),
                            now));
            return;
        }
        state.update(filter.snapshot());
        ctx.output(
                Tags.LEDGER,
                new LedgerEntry(
                        c.runId(),
                        "CHARGE",
                        c.sequenceId(),
                        c.step(),
                        c.attempt(),
                        c.mechanism(),
                        published,
                        eps,
                        budget.delta(),
                        filter.releases(),
                        -1,
                        now));
        Outcome o = c.token() >= 0 ? Outcome.TOKEN : Outcome.FAIL;
        out.collect(
                new StepResult(
                        c.runId(),
                        c.sequenceId(),
                        c.step(),
                        c.attempt(),
                        o,
                        c.token(),
                        c.mechanism(),
                        published,
                        eps,
                        c.noisyCount(),
                        new long[0],
                        c.votesCast(),
                        c.teachers(),
                        now));
    }
}
