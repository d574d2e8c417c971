package org.hotpate.stream.ops;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
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
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.Outcome;
import org.hotpate.model.Rejected;
import org.hotpate.model.ReleaseCandidate;
import org.hotpate.model.StepResult;
import org.hotpate.model.TeacherFeedback;
import org.hotpate.stream.Budgets;
import org.hotpate.stream.JobConfig;

/**
 * The accountant of a run (keyed by run id; DESIGN.md topology step 5). A candidate is charged
 * before anything about it becomes visible, to two filters ({@link Budgets.Pair}): the run's own
 * ({@code budget.epsilon}) and the dataset's ({@code budget.dataset-epsilon}: every earlier run's
 * curve, composed by the driver, plus this run). If both admit it, the ledger entry and the result
 * leave together (same checkpoint, same Kafka transaction); if not, nothing of it is released — the
 * result says BUDGET_EXHAUSTED and every later candidate of the run is refused too (hard stop).
 *
 * <p>A step key is released at most once per run: {@code released-steps} remembers every released
 * key for the run's lifetime, so a late or replayed candidate (e.g. after the reducer's retention)
 * is dead-lettered as DUPLICATE_RELEASE, never published and never charged twice.
 *
 * <p><b>Durable ledger (write-ahead).</b> After every charge the run's curve goes to {@link
 * Tags#BUDGET_LEDGER}; the job writes it to the compacted budget-ledger topic in the same
 * transaction as the releases it covers ({@code budget.ledger: kafka}). With a local ledger ({@code
 * ledgerDir} set) the accountant writes the latest curve of each run to its file in {@link
 * #snapshotState} — before the checkpoint completes, hence before the Kafka transaction holding the
 * releases commits and becomes visible to read_committed consumers. A failed write fails the
 * checkpoint, so nothing it covers is ever committed. Files only grow ({@link BudgetLedgerIo}).
 *
 * <p>Published results carry the privacy event without its vote-count profile; votes cast and the
 * dataset's ε go to the operator-only ledger.
 *
 * <p><b>Scheme A feedback</b> ({@code teacherFeedback}): an admitted scheme-a release also sends
 * its outcome to each involved teacher ({@link #feedback}) — the only way a BETWEEN outcome reaches
 * the teacher-keyed charges. State: {@code run-budget} (the run filter's snapshot), {@code
 * run-exhausted}, {@code run-releases}, {@code released-steps}; all live as long as the run (one
 * run per job) — they are the run's ledger.
 */
public final class RunAccountant extends KeyedProcessFunction<String, ReleaseCandidate, StepResult>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    /**
     * The run's budget, the composition of earlier runs on its dataset, whether the mechanism is
     * DP, and the local ledger directory (null: no local writes).
     */
    public record Settings(
            JobConfig.Budget budget,
            Budgets.Prior prior,
            boolean differentiallyPrivate,
            String mechanism,
            String ledgerDir,
            boolean teacherFeedback)
            implements java.io.Serializable {
        /** Without scheme-a's teacher feedback. */
        public Settings(
                JobConfig.Budget budget,
                Budgets.Prior prior,
                boolean differentiallyPrivate,
                String mechanism,
                String ledgerDir) {
            this(budget, prior, differentiallyPrivate, mechanism, ledgerDir, false);
        }
    }

    private final Settings settings;
    private transient ValueState<double[]> state;
    private transient ValueState<Boolean> exhausted;
    private transient ValueState<Long> releaseCount;
    private transient MapState<String, Boolean> releasedSteps;
    private transient Map<String, BudgetRecord> unsaved;
    private transient Counter refused;
    private transient Counter duplicates;
    private transient JobMetrics.EpsilonSpent epsilonSpent;

    public RunAccountant(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void initializeState(FunctionInitializationContext ctx) {
        unsaved = new LinkedHashMap<>();
    }

    @Override
    public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
        if (settings.ledgerDir() == null) {
            return;
        }
        for (BudgetRecord r : unsaved.values()) {
            BudgetLedgerIo.writeLocal(Path.of(settings.ledgerDir()), r); // throws: no commit
        }
        unsaved.clear();
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
        if (releasedSteps.contains(c.stepKey())) {
            duplicates.inc();
            ctx.output(
                    Tags.REJECTED,
                    new Rejected(
                            "results",
                            Rejected.DUPLICATE_RELEASE,
                            "step " + c.stepKey() + " was already released in this run",
                            c.runId(),
                            -1,
                            -1,
                            -1L,
                            null,
                            System.currentTimeMillis()));
            return;
        }
        // Admission is decided on the mechanism's worst case, before the step's own outcome counts.
        PrivacyEvent worstCase = PrivacyEventJson.decode(c.worstCaseEventJson());
        Budgets.Pair budgets =
                state.value() == null
                        ? Budgets.start(settings.budget(), settings.prior(), worstCase)
                        : Budgets.restore(
                                settings.budget(), settings.prior(), worstCase, state.value());
        PrivacyEvent event = PrivacyEventJson.decode(c.privacyEventJson());
        String published = PrivacyEventJson.encodePublic(event); // never the private vote counts
        boolean charged = false;
        if (!Boolean.TRUE.equals(exhausted.value()) && budgets.canAfford()) {
            try {
                budgets.charge(event);
                charged = true;
            } catch (IllegalStateException e) {
                charged = false; // does not fit: nothing changed, refuse below
            }
        }
        long now = System.currentTimeMillis();
        long releases = releaseCount.value() == null ? 0 : releaseCount.value();
        if (charged) {
            releases++;
            state.update(budgets.runSnapshot());
            releaseCount.update(releases);
            releasedSteps.put(c.stepKey(), Boolean.TRUE);
            BudgetRecord record =
                    budgets.record(
                            c.runId(),
                            settings.differentiallyPrivate(),
                            settings.mechanism(),
                            releases,
                            now);
            ctx.output(Tags.BUDGET_LEDGER, record);
            unsaved.put(c.runId(), record);
            if (settings.teacherFeedback()) {
                feedback(c, ctx, now);
            }
        } else {
            refused.inc();
            exhausted.update(Boolean.TRUE);
        }
        double eps =
                settings.differentiallyPrivate() ? budgets.runEpsilon() : Double.POSITIVE_INFINITY;
        epsilonSpent.set(c.runId(), eps);
        ctx.output(
                Tags.LEDGER,
                new LedgerEntry(
                        c.runId(),
                        charged ? LedgerEntry.CHARGE : LedgerEntry.REFUSED,
                        c.sequenceId(),
                        c.step(),
                        c.attempt(),
                        c.mechanism(),
                        published,
                        eps,
                        settings.budget().delta(),
                        releases,
                        -1,
                        now,
                        c.votesCast(),
                        settings.differentiallyPrivate()
                                ? budgets.datasetEpsilon()
                                : Double.POSITIVE_INFINITY));
        Outcome o =
                !charged ? Outcome.BUDGET_EXHAUSTED : c.token() >= 0 ? Outcome.TOKEN : Outcome.FAIL;
        out.collect(
                new StepResult(
                        c.runId(),
                        c.sequenceId(),
                        c.step(),
                        c.attempt(),
                        o,
                        charged ? c.token() : -1,
                        c.mechanism(),
                        charged ? published : "",
                        eps,
                        charged ? c.noisyCount() : Double.NaN,
                        c.teachers()));
    }

    /**
     * Scheme A: the admitted release's outcome to each involved teacher ({@link
     * Tags#TEACHER_FEEDBACK}, same transaction as the release; the vote operator resolves the
     * teacher's pending involvement from it), and one operator-only TEACHER_FEEDBACK ledger entry
     * saying how many teachers it charges — the driver waits for their TEACHER_CHARGE entries
     * before it declares the run finished. Emitted only here, where the step key is released at
     * most once per run, so a step's feedback exists once (a replay re-emits it in an aborted or
     * the same transaction, and the vote operator ignores an involvement no longer pending).
     */
    private void feedback(ReleaseCandidate c, Context ctx, long now) {
        boolean between = c.chargedTeachers().length > 0; // Scheme A: all involved, or none
        for (long teacher : c.involvedTeachers()) {
            ctx.output(
                    Tags.TEACHER_FEEDBACK,
                    new TeacherFeedback(
                            c.runId(),
                            c.sequenceId(),
                            c.step(),
                            c.attempt(),
                            teacher,
                            between,
                            now));
        }
        ctx.output(
                Tags.LEDGER,
                new LedgerEntry(
                        c.runId(),
                        LedgerEntry.TEACHER_FEEDBACK,
                        c.sequenceId(),
                        c.step(),
                        c.attempt(),
                        c.mechanism(),
                        "",
                        Double.NaN,
                        Double.NaN,
                        between ? c.involvedTeachers().length : 0,
                        -1,
                        now,
                        c.involvedTeachers().length,
                        Double.NaN));
    }
}
