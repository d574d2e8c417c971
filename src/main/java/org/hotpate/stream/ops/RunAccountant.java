package org.hotpate.stream.ops;

import java.io.Serializable;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.PrivacyEventJson;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.ReleaseCandidate;
import org.hotpate.model.StepResult;
import org.hotpate.model.TeacherFeedback;
import org.hotpate.protocol.AccountingMode;
import org.hotpate.protocol.Admission;
import org.hotpate.protocol.BudgetPlan;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.LedgerEntries;
import org.hotpate.protocol.RunBudget;
import org.hotpate.protocol.StepId;

/**
 * The accountant of a run (keyed by run id; DESIGN.md topology step 5): an adapter over the
 * protocol's {@link RunBudget} and {@link Admission}. A candidate is charged before anything about
 * it becomes visible, to the run's filter ({@code budget.epsilon}) and the dataset's ({@code
 * budget.dataset-epsilon}: every earlier run's curve, composed by the driver, plus this run),
 * admitted on the mechanism's worst case. If both admit it, the ledger entry and the result leave
 * together (same checkpoint, same Kafka transaction); if not, nothing of it is released — the
 * result says BUDGET_EXHAUSTED and every later candidate of the run is refused too (hard stop).
 *
 * <p>A step is released at most once per run: {@code released-steps} remembers every released step
 * for the run's lifetime, so a late or replayed candidate is dead-lettered as DUPLICATE_RELEASE,
 * never published and never charged twice.
 *
 * <p><b>Durable ledger (write-ahead).</b> After every charge the run's curve goes to {@link
 * Tags#BUDGET_LEDGER} (the job writes it to the compacted budget-ledger topic in the same
 * transaction as the releases it covers), or — with a store not on the job's output ({@link
 * LedgerSink}, the local ledger) — to its file in {@link #snapshotState}, before the checkpoint
 * completes, hence before the transaction holding the releases commits. A failed write fails the
 * checkpoint, so nothing it covers is ever committed. Files only grow ({@link BudgetLedgerIo}).
 *
 * <p><b>Fencing.</b> A run whose dataset lease is held in this JVM ({@link LeaseGate}) charges and
 * releases nothing, and completes no checkpoint, once the lease may lapse (issue 39 item 3).
 *
 * <p>Published results carry the privacy event without its vote-count profile; votes cast and the
 * dataset's ε go to the operator-only ledger. Scheme A: an admitted release also sends its outcome
 * to each involved teacher ({@link Tags#TEACHER_FEEDBACK}, same transaction; emitted only here,
 * where a step is released at most once) and a TEACHER_FEEDBACK ledger entry saying how many it
 * charges. State: {@code run-budget} (the filter's snapshot), {@code run-exhausted}, {@code
 * run-releases}, {@code released-steps}; all live as long as the run (one run per job).
 */
public final class RunAccountant extends KeyedProcessFunction<String, ReleaseCandidate, StepResult>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    /**
     * The run's budget plan (its terms, the mechanism's worst-case event every release is admitted
     * on, the run filter's configuration), the composition of earlier runs on its dataset, whether
     * it is DP, the accounting mode, the run's ledger store ({@link LedgerSink}), the durable
     * ledger account the run charges (null: its run id; a resumed fork's own account otherwise) and
     * the release made before the first step (the population prior's, {@link
     * org.hotpate.protocol.PriorPlan}; null: none).
     */
    public record Settings(
            BudgetPlan budget,
            DatasetPrior prior,
            boolean differentiallyPrivate,
            AccountingMode mode,
            LedgerSink ledger,
            String ledgerAccount,
            org.hotpate.protocol.PriorPlan preCharge)
            implements Serializable {
        /** Without a release before the first step (no population prior). */
        public Settings(
                BudgetPlan budget,
                DatasetPrior prior,
                boolean differentiallyPrivate,
                AccountingMode mode,
                LedgerSink ledger,
                String ledgerAccount) {
            this(budget, prior, differentiallyPrivate, mode, ledger, ledgerAccount, null);
        }

        public Settings(
                BudgetPlan budget,
                DatasetPrior prior,
                boolean differentiallyPrivate,
                AccountingMode mode,
                LedgerSink ledger) {
            this(budget, prior, differentiallyPrivate, mode, ledger, null, null);
        }

        /** The durable ledger account of run {@code runId}. */
        String account(String runId) {
            return ledgerAccount != null ? ledgerAccount : runId;
        }
    }

    private final Settings settings;
    private transient ValueState<double[]> state;
    private transient ValueState<Boolean> exhausted;
    private transient ValueState<Long> releaseCount;
    private transient MapState<String, Boolean> releasedSteps;
    private transient RunBudget budget; // the state's value as an object, rebuilt after a restore
    private transient String budgetKey; // the run whose state it is
    private transient WriteAhead<String, BudgetRecord> unsaved;
    private transient Counter refused;
    private transient Counter duplicates;
    private transient JobMetrics.EpsilonSpent epsilonSpent;

    public RunAccountant(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) {
        unsaved = new WriteAhead<>();
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        // The checkpoint's transaction carries every release since the last one: none may commit
        // once the run's dataset lease may lapse (issue 39 item 3).
        LeaseGate.check(budgetKey);
        LedgerSink ledger = settings.ledger();
        unsaved.flush(ledger.onJobOutput() ? null : ledger::writeRun);
    }

    @Override
    public void open(OpenContext ctx) {
        state =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("run-budget", double[].class));
        exhausted =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("run-exhausted", Types.BOOLEAN));
        releaseCount =
                getRuntimeContext()
                        .getState(new ValueStateDescriptor<>("run-releases", Types.LONG));
        releasedSteps =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>(
                                        "released-steps", Types.STRING, Types.BOOLEAN));
        refused = getRuntimeContext().getMetricGroup().counter("refused");
        duplicates = getRuntimeContext().getMetricGroup().counter("duplicateReleases");
        epsilonSpent = JobMetrics.epsilonSpent(getRuntimeContext());
    }

    @Override
    public void processElement(ReleaseCandidate c, Context ctx, Collector<StepResult> out)
            throws Exception {
        LeaseGate.check(c.runId()); // no charge, no release once the run's lease may lapse
        String key = StepId.keyOf(c);
        if (releasedSteps.contains(key)) {
            duplicates.inc();
            ctx.output(
                    Tags.REJECTED,
                    Rejected.of(
                            "results",
                            Rejected.DUPLICATE_RELEASE,
                            "step " + key + " was already released in this run",
                            c.runId(),
                            -1));
            return;
        }
        PrivacyEvent event = PrivacyEventJson.decode(c.privacyEventJson());
        String published = PrivacyEventJson.encodePublic(event); // never the private vote counts
        Admission a =
                Admission.decide(
                        budget(ctx.getCurrentKey()),
                        Boolean.TRUE.equals(exhausted.value()),
                        event,
                        settings.differentiallyPrivate());
        long now = System.currentTimeMillis();
        long releases = releaseCount.value() == null ? 0 : releaseCount.value();
        if (a.charged()) {
            releases++;
            state.update(budget.snapshot());
            releaseCount.update(releases);
            releasedSteps.put(key, Boolean.TRUE);
            BudgetRecord record =
                    budget.record(
                            settings.account(c.runId()),
                            settings.differentiallyPrivate(),
                            c.mechanism(),
                            releases,
                            now);
            ctx.output(Tags.BUDGET_LEDGER, record);
            unsaved.put(record.runId(), record);
            if (settings.mode().feedsOutcomesBack()) {
                feedback(c, ctx, now);
            }
        } else {
            refused.inc();
            exhausted.update(Boolean.TRUE);
        }
        epsilonSpent.set(c.runId(), a.runEpsilon());
        ctx.output(
                Tags.LEDGER,
                LedgerEntries.release(
                        c,
                        a.charged(),
                        c.mechanism(),
                        published,
                        a.runEpsilon(),
                        settings.budget().terms().delta(),
                        releases,
                        c.votesCast(),
                        c.releasedVotes(),
                        a.datasetEpsilon(),
                        now));
        out.collect(a.result(c, c.token(), c.mechanism(), published, c.noisyCount(), c.teachers()));
    }

    /**
     * The run's budget: kept as an object between candidates, rebuilt from state after a restore.
     */
    private RunBudget budget(String run) throws Exception {
        if (budget == null || !run.equals(budgetKey)) {
            budgetKey = run;
            double[] s = state.value();
            budget =
                    s == null
                            ? settings.budget().start(settings.prior(), settings.preCharge())
                            : settings.budget().restore(settings.prior(), settings.preCharge(), s);
        }
        return budget;
    }

    /**
     * Scheme A: the admitted release's outcome to each involved teacher, and one TEACHER_FEEDBACK
     * ledger entry saying how many teachers it charges — the driver waits for their TEACHER_CHARGE
     * entries before it declares the run finished.
     */
    private void feedback(ReleaseCandidate c, Context ctx, long now) {
        boolean between = c.chargedTeachers().length > 0; // Scheme A: all involved, or none
        for (TeacherFeedback f :
                AccountingMode.ChargeOnOutcome.outcomes(c, c.involvedTeachers(), between, now)) {
            ctx.output(Tags.TEACHER_FEEDBACK, f);
        }
        ctx.output(
                Tags.LEDGER,
                LedgerEntries.feedback(
                        c,
                        c.mechanism(),
                        c.involvedTeachers().length,
                        between ? c.involvedTeachers().length : 0,
                        now));
    }
}
