package org.hotpate.protocol;

import java.util.List;
import java.util.function.Predicate;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.hotpate.core.util.Decimals;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.TeacherSpend;

/**
 * Whether and how a run may start on its dataset (issue 30 item 2): one decision for every driver —
 * {@code ./hotpate run} ({@code RunSession}) and the Kubernetes entry point ({@code ClusterJob}) —
 * so no driver codes its own order of checks. A driver opens the dataset's ledger, takes its hold
 * (the local lock or the Kafka lease), reads what the ledger holds ({@link Ledger}) and calls
 * {@link #decide}; then composes {@link #prior} and checks {@link #requireRoom}. Pure: what the
 * ledger holds comes in as values, a refusal goes out as {@link Refused} with its {@link Reason}
 * (the driver maps it to its exit-2 exception).
 *
 * <p>The rules, in order:
 *
 * <ol>
 *   <li>The run must hold the dataset ({@link Reason#NOT_HELD}): one authority per dataset.
 *   <li>{@link Start#FRESH} (a new run id): refused if the ledger already holds the id ({@link
 *       Reason#RUN_ID_IN_USE}: its entry would merge with the earlier one, which would drop out of
 *       the prior) → {@link Kind#FRESH}.
 *   <li>{@link Start#RESUME} (a restore from a savepoint or checkpoint of the run, {@link
 *       Snapshot}): refused if the snapshot's account is marked finished ({@link Reason#FINISHED});
 *       {@link Kind#CONTINUE} under that account while the snapshot covers its entry (nothing was
 *       released after it); else {@link Kind#FORK}: a new account {@code <runId>~r<k>} composed on
 *       top of every earlier account (the releases after the snapshot stay public while the
 *       restored state forgets them).
 *   <li>{@link Start#DEPLOYMENT} (an entry point that re-runs under a fixed run id and cannot tell
 *       a restart from a new deployment: {@code ClusterJob}): with a snapshot of the run, as a
 *       resume; without one, refused if the run's account is marked finished, {@link Kind#FRESH}
 *       when the ledger holds no entry of the run, else {@link Kind#FORK} on top of every earlier
 *       account — a redeploy is charged as a new run, never a reset of the one before.
 *   <li>The accounting kind: per-teacher and ensemble accounting do not compose on one dataset
 *       ({@link Reason#OTHER_ACCOUNTING}).
 * </ol>
 */
public final class DatasetAdmission {
    private DatasetAdmission() {}

    /** What the driver starts. */
    public enum Start {
        /** A new run under a new run id ({@code ./hotpate run}). */
        FRESH,
        /** The run continued from a snapshot of it ({@code ./hotpate run --from-savepoint}). */
        RESUME,
        /** A deployment under a fixed run id, first or again ({@code ClusterJob}). */
        DEPLOYMENT
    }

    /** How the admitted run is charged. */
    public enum Kind {
        /** The run's own new account; the prior is every earlier run. */
        FRESH,
        /** The run's existing account, continued; the prior is every other account. */
        CONTINUE,
        /**
         * A new account {@code <runId>~r<k>} on top of every earlier account, the run's own too.
         */
        FORK
    }

    /** Why a run is refused (each exits 2 before anything starts). */
    public enum Reason {
        NOT_HELD,
        RUN_ID_IN_USE,
        FINISHED,
        OTHER_ACCOUNTING,
        CAP_AFTER_USE,
        NO_ROOM
    }

    /** A run the dataset refuses, with the message the driver shows. */
    public static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final Reason reason;

        public Refused(Reason reason, String message) {
            super(message);
            this.reason = reason;
        }

        public Reason reason() {
            return reason;
        }
    }

    /**
     * The ledger state a snapshot recorded when its run stopped: the account it charged ({@code
     * null}: the run id) and its entry then ({@code releases} &lt; 0 or {@code rdp} null: not
     * recorded — a retained checkpoint).
     */
    public record Snapshot(String account, long releases, double[] rdp) {
        /**
         * Whether the snapshot covers {@code entry}, the account's entry now: it holds no more
         * releases and no more RDP at any order than when the run stopped. Unknown: false.
         */
        public boolean covers(BudgetRecord entry) {
            if (releases < 0 || rdp == null) {
                return false;
            }
            if (entry.releases() > releases) {
                return false;
            }
            double[] now = entry.rdp();
            for (int i = 0; i < now.length; i++) {
                if (now[i] > (i < rdp.length ? rdp[i] : 0)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** What the driver starts: its run id, how, and the snapshot it restores (null: none). */
    public record Request(String runId, Start start, Snapshot snapshot) {
        public Request {
            if (start == Start.RESUME && snapshot == null) {
                throw new IllegalArgumentException("a resume restores a snapshot");
            }
        }
    }

    /**
     * What the dataset's ledger holds, read under the run's hold: whether this run holds the
     * dataset, every run entry of the dataset (the latest version of each), whether an account is
     * marked finished, and the dataset's teacher entries (per-teacher accounting).
     */
    public record Ledger(
            String dataset,
            boolean held,
            List<BudgetRecord> records,
            Predicate<String> finished,
            List<TeacherSpend> teachers) {}

    /**
     * The run's accounting: its mechanism, and for per-teacher accounting ({@code planId} not null)
     * its plan and per-teacher ε.
     */
    public record Accounting(String mechanism, String planId, double perTeacherEpsilon) {
        public boolean perTeacher() {
            return planId != null;
        }
    }

    /**
     * The admission: how the run is charged, its ledger account, its accounting kind, and a line
     * for the console (empty: none).
     */
    public record Decision(Kind kind, String account, boolean perTeacher, String note) {}

    /** The decision for {@code req} on what {@code ledger} holds; throws {@link Refused}. */
    public static Decision decide(Request req, Ledger ledger, Accounting acc) {
        String dataset = ledger.dataset();
        String runId = req.runId();
        if (!ledger.held()) {
            throw new Refused(
                    Reason.NOT_HELD,
                    "dataset '"
                            + dataset
                            + "' is not held by run "
                            + runId
                            + ": a run is admitted only under the dataset's lock or lease");
        }
        Decision d =
                switch (req.start()) {
                    case FRESH -> fresh(ledger, runId, acc);
                    case RESUME -> resume(ledger, runId, req.snapshot(), acc, "hotpate run");
                    case DEPLOYMENT ->
                            req.snapshot() != null
                                    ? resume(
                                            ledger,
                                            runId,
                                            req.snapshot(),
                                            acc,
                                            "hotpate ClusterJob")
                                    : deployment(ledger, runId, acc);
                };
        requireSameAccounting(ledger, acc);
        return d;
    }

    private static Decision fresh(Ledger ledger, String runId, Accounting acc) {
        if (DatasetPrior.usesRunId(ledger.dataset(), ledger.records(), runId)
                || ledger.finished().test(runId)) {
            throw new Refused(
                    Reason.RUN_ID_IN_USE,
                    "run id '"
                            + runId
                            + "' is already in the budget ledger of dataset '"
                            + ledger.dataset()
                            + "'; a fresh run cannot reuse it (only --from-savepoint continues a"
                            + " run under its id; see ./hotpate ledger show --dataset "
                            + ledger.dataset()
                            + ")");
        }
        return new Decision(Kind.FRESH, runId, acc.perTeacher(), "");
    }

    private static Decision resume(
            Ledger ledger, String runId, Snapshot snapshot, Accounting acc, String driver) {
        String account = snapshot.account() == null ? runId : snapshot.account();
        requireNotFinished(ledger, runId, account);
        BudgetRecord entry = entry(ledger, account);
        if (entry == null || snapshot.covers(entry)) {
            return new Decision(Kind.CONTINUE, account, acc.perTeacher(), "");
        }
        String fork = nextFork(ledger.records(), runId);
        return new Decision(
                Kind.FORK,
                fork,
                acc.perTeacher(),
                driver
                        + ": the ledger entry of "
                        + runId
                        + " went on after this snapshot (a second resume, or an older"
                        + " snapshot): the resume is a fork, charged as "
                        + fork
                        + " on top of every earlier branch");
    }

    private static Decision deployment(Ledger ledger, String runId, Accounting acc) {
        requireNotFinished(ledger, runId, runId);
        if (entry(ledger, runId) == null) {
            return new Decision(Kind.FRESH, runId, acc.perTeacher(), "");
        }
        String fork = nextFork(ledger.records(), runId);
        return new Decision(
                Kind.FORK,
                fork,
                acc.perTeacher(),
                "hotpate ClusterJob: the budget ledger already holds run "
                        + runId
                        + ": this deployment is charged as "
                        + fork
                        + " on top of it");
    }

    private static void requireNotFinished(Ledger ledger, String runId, String account) {
        if (ledger.finished().test(account)) {
            throw new Refused(
                    Reason.FINISHED,
                    "run "
                            + runId
                            + " finished (its ledger entry "
                            + account
                            + " on dataset '"
                            + ledger.dataset()
                            + "' is marked finished); a finished run cannot be resumed or"
                            + " redeployed — start a new run under a new run id");
        }
    }

    private static BudgetRecord entry(Ledger ledger, String account) {
        return ledger.records().stream()
                .filter(r -> r.dataset().equals(ledger.dataset()) && r.runId().equals(account))
                .findFirst()
                .orElse(null);
    }

    /** The first fork account {@code <runId>~r<k>} the ledger does not hold. */
    public static String nextFork(List<BudgetRecord> records, String runId) {
        int k = 1;
        while (true) {
            String fork = runId + "~r" + k;
            if (records.stream().noneMatch(r -> r.runId().equals(fork))) {
                return fork;
            }
            k++;
        }
    }

    /**
     * Per-teacher and ensemble accounting do not compose on one dataset (issue 23): an ensemble run
     * would let teachers a per-teacher run retired vote again and charge none of them, and a
     * per-teacher run starts every teacher at 0 whatever earlier ensemble runs took from it. So a
     * dataset keeps the accounting of its first run; a run of the other kind is refused, naming
     * what the dataset holds.
     */
    static void requireSameAccounting(Ledger ledger, Accounting acc) {
        String dataset = ledger.dataset();
        if (!acc.perTeacher()) {
            if (!ledger.teachers().isEmpty()) {
                TeacherSpend t = ledger.teachers().get(0);
                // No count, spending or retirement of any teacher: those depend on each teacher's
                // private data (threat model, "Per-teacher spending is data-dependent and never
                // public"), and a refusal reaches whoever started the run (issue 30 item 8).
                throw new Refused(
                        Reason.OTHER_ACCOUNTING,
                        "dataset '"
                                + dataset
                                + "' is under per-teacher accounting: its teachers are charged"
                                + " under a per-teacher budget (budget.per-teacher-epsilon; plan "
                                + t.plan()
                                + ", delta "
                                + t.delta()
                                + "). An ensemble run (mechanism "
                                + acc.mechanism()
                                + ") would let teachers retired under it vote and charge none of"
                                + " them; run mechanism.name "
                                + t.plan().substring(0, Math.max(0, t.plan().indexOf('/')))
                                + " with the same per-teacher plan, or use another budget.dataset"
                                + " (each teacher's spending is operator-only: ./hotpate ledger"
                                + " teachers --dataset "
                                + dataset
                                + ")");
            }
            return;
        }
        List<BudgetRecord> ensemble =
                ledger.records().stream()
                        .filter(
                                r ->
                                        !MechanismRegistry.is(
                                                r.mechanism(), MechanismRegistry.Kind.PER_TEACHER))
                        .toList();
        if (!ensemble.isEmpty()) {
            throw new Refused(
                    Reason.OTHER_ACCOUNTING,
                    "dataset '"
                            + dataset
                            + "' has "
                            + ensemble.size()
                            + " ensemble-accounted run(s) (e.g. "
                            + ensemble.get(0).runId()
                            + ", mechanism "
                            + ensemble.get(0).mechanism()
                            + "); per-teacher accounting (mechanism "
                            + acc.mechanism()
                            + ", budget.per-teacher-epsilon "
                            + acc.perTeacherEpsilon()
                            + ") would start every teacher at 0 and not count them. Use another"
                            + " budget.dataset (see ./hotpate ledger show --dataset "
                            + dataset
                            + ")");
        }
    }

    /** The composition of the dataset's runs other than the admitted account. */
    public static DatasetPrior prior(Ledger ledger, Decision decision) {
        return DatasetPrior.compose(ledger.dataset(), ledger.records(), decision.account());
    }

    /**
     * Refuses ({@link Reason#NO_ROOM}, naming the dataset) a run {@code prior} leaves no room for:
     * the earlier runs composed with this run spending its whole budget on worst-case releases
     * would pass the dataset's cap ({@link BudgetPlan#hasRoom}); and ({@link Reason#CAP_AFTER_USE})
     * a cap asked for after uncapped runs. With the population prior {@code priorPlan} (null:
     * none), the prior's RDP and its δ term count, so a prior the dataset cannot hold is refused
     * before it is drawn.
     */
    public static void requireRoom(
            String dataset, DatasetPrior prior, BudgetPlan budget, PriorPlan priorPlan) {
        BudgetTerms terms = budget.terms();
        if (terms.capPlannedAfterUse(prior)) {
            throw new Refused(
                    Reason.CAP_AFTER_USE,
                    "dataset '"
                            + dataset
                            + "' was used by "
                            + prior.runs()
                            + " run(s) without a dataset cap; budget.dataset-epsilon "
                            + terms.datasetEpsilon()
                            + " planned now would be chosen after their outputs were seen, so it"
                            + " would not be a guarantee. A dataset's cap is fixed by its first"
                            + " run: run without budget.dataset-epsilon on this dataset, or give"
                            + " the cap from the first run of a new budget.dataset (see"
                            + " ./hotpate ledger show --dataset "
                            + dataset
                            + ")");
        }
        if (!terms.datasetCapped(prior) || budget.hasRoom(prior, priorPlan)) {
            return;
        }
        EnsembleBudgetFilter.Config runOrder = budget.runConfig();
        double delta = terms.delta();
        throw new Refused(
                Reason.NO_ROOM,
                "dataset '"
                        + dataset
                        + "' has no room for this run: "
                        + (prior.nonPrivate()
                                ? "a non-private run used it"
                                : String.format(
                                        "%d earlier run(s) spent epsilon %s (delta %s), and this"
                                                + " run's budget.epsilon %s%s would take the"
                                                + " dataset to %s > budget.dataset-epsilon %s",
                                        prior.runs(),
                                        Decimals.up(prior.epsilon(delta, runOrder), 4),
                                        delta,
                                        terms.epsilon(),
                                        priorPlan == null
                                                ? ""
                                                : " with its population prior (its delta term "
                                                        + String.format(
                                                                java.util.Locale.ROOT,
                                                                "%.3g",
                                                                priorPlan
                                                                        .charge(budget, prior)
                                                                        .coupling())
                                                        + " must fit the dataset's delta share)",
                                        Decimals.up(budget.epsilonWithFullRun(prior, priorPlan), 4),
                                        Math.min(
                                                terms.datasetEpsilon(),
                                                budget.enforcedDatasetEpsilon(prior))))
                        + " (see ./hotpate ledger show --dataset "
                        + dataset
                        + ")");
    }
}
