package org.hotpate.stream.driver;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.TeacherSpend;
import org.hotpate.protocol.DatasetAdmission;
import org.hotpate.protocol.DatasetLeases;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.IndividualScheme;
import org.hotpate.protocol.LocalHold;
import org.hotpate.protocol.TeacherIds;
import org.hotpate.stream.RunContext;
import org.hotpate.stream.config.JobConfig;

/**
 * The driver's view of the durable per-dataset budget ledger ({@code budget.ledger}): it holds the
 * dataset, reads what the admission decides on ({@link #state}: every earlier run's entry, the
 * finished marks, the teacher entries; {@link RunAdmission} runs the sequence, {@link
 * DatasetAdmission} decides), refuses a run that starts with no room left, and reads the ledger
 * again at the end for the summary's {@code dataset_epsilon}. The mechanics of the lease and of the
 * lock file's holder are in {@link DatasetHolds}.
 *
 * <p>One authority per dataset (docs/privacy-accounting.md §9, "One authority per dataset"): local
 * mode holds an exclusive lock on the dataset's directory for the life of the driver, and records
 * in the lock file the run and its cluster job, which outlives the driver ({@link LocalHold}: a
 * later run refuses while that job may run); Kafka mode creates the compacted topic when missing
 * and takes the dataset's lease ({@link #acquire}). Either way a second run on the dataset is
 * refused while one holds it. The driver writes a run's entry only for a release it makes itself,
 * before making it (the population prior, {@link #writeEntry}); the job writes the rest.
 */
public final class DatasetLedger implements AutoCloseable {
    private final JobConfig cfg;
    private final LedgerStore store;
    private final LedgerStore.Holding holding;

    private DatasetLedger(JobConfig cfg, LedgerStore store, LedgerStore.Holding holding) {
        this.cfg = cfg;
        this.store = store;
        this.holding = holding;
    }

    /**
     * Opens the ledger of {@code cfg}'s dataset in its store ({@link LedgerStores}): locks it
     * (local) or creates the compacted topic (kafka; {@code client} = the job principal's client
     * properties).
     */
    public static DatasetLedger open(JobConfig cfg, Properties client) {
        LedgerStore store = LedgerStores.of(cfg, client);
        return new DatasetLedger(cfg, store, store.open(cfg));
    }

    /** The store the ledger is in. */
    public LedgerStore store() {
        return store;
    }

    /**
     * One ledger per dataset, whatever the flags (issue 30 item 3): a dataset's ledger is part of
     * its identity, so a run that would open the dataset in a second store is refused (exit 2)
     * naming the store that already holds it ({@link LedgerStore#requireOneStore}; {@code
     * kafkaClient}: the run's Kafka, null with an embedded broker, which starts empty). A store
     * holding none of the dataset's entries is not opened by this check.
     */
    public void requireOneStore(Properties kafkaClient) {
        store.requireOneStore(cfg.datasetId(), kafkaClient);
    }

    /**
     * Every run entry of the dataset (the largest version of each). In Kafka mode also the entries
     * of the local ledger in {@code budget.ledger-dir} on this machine: a dataset used by local
     * runs before is composed with them, not started afresh in a second store (merged by key, so an
     * entry in both counts once).
     */
    public List<BudgetRecord> records() {
        return store.runs(cfg.datasetId());
    }

    /**
     * Every teacher entry of the dataset (per-teacher schemes; the largest version of each; in
     * Kafka mode with the local ledger's, like {@link #records()}).
     */
    public List<TeacherSpend> teacherSpends() {
        Map<String, TeacherSpend> latest = new java.util.LinkedHashMap<>();
        for (TeacherSpend t : store.teachers(cfg.datasetId())) {
            if (t.dataset().equals(cfg.datasetId())) {
                latest.merge(t.key(), t, TeacherSpend::merge);
            }
        }
        return List.copyOf(latest.values());
    }

    /**
     * What a per-teacher run starts each teacher from: its charges on the dataset from earlier runs
     * ({@link #teacherCharges}) and the version of its durable entry, which the run's versions
     * continue.
     */
    public record TeacherPriors(Map<Long, Long> charges, Map<Long, Long> versions) {
        public static final TeacherPriors NONE = new TeacherPriors(Map.of(), Map.of());

        /** A fresh secret, the dataset's earlier runs and what each teacher starts from. */
        RunContext context(DatasetPrior prior) {
            return context(prior, null, null);
        }

        /**
         * Also the durable ids of the run's teachers ({@code ids}: a records run's pseudonyms;
         * null: the ids themselves); these priors keyed by the run's teacher ids; and the durable
         * ledger account the run charges ({@code ledgerAccount}, null: the run id; a resumed fork's
         * {@code <runId>~r<k>} otherwise, DatasetAdmission#decide). Here rather than on {@link
         * RunContext}: the job graph's context knows nothing of the driver's ledger.
         */
        RunContext context(DatasetPrior prior, TeacherIds ids, String ledgerAccount) {
            return new RunContext(
                    org.hotpate.core.noise.KeyedNoiseSource.newSecret(),
                    prior,
                    charges,
                    versions,
                    ids,
                    ledgerAccount);
        }
    }

    /**
     * Each teacher's charges on the dataset from earlier runs, for a scheme-a/scheme-b run (empty
     * otherwise): the durable entry's charges <b>plus its pending involvements</b> — provisional
     * charges of a run that ended before their outcomes came back (a crash, a cancel, a stop), each
     * counted as a charge (a sound over-count: an outcome released but never applied may have been
     * BETWEEN). The vote operator starts every teacher from here, so a user's budget holds over
     * every run. Throws {@link NoBudgetLeftException} when the dataset's teachers were charged
     * under another plan (scheme or parameters that change the unit or the limit): charges under
     * two plans do not add up, so such a run must use the same plan or another dataset.
     */
    public Map<Long, Long> teacherCharges() {
        return teacherPriors().charges();
    }

    /**
     * {@link #teacherPriors()} re-keyed by this run's teacher ids ({@code ids}: a records run's
     * ranks ← the users' pseudonyms; users not in the batch left out).
     */
    public TeacherPriors teacherPriors(TeacherIds ids) {
        TeacherPriors byDurable = teacherPriors();
        return new TeacherPriors(
                ids.toRanks(byDurable.charges()), ids.toRanks(byDurable.versions()));
    }

    /**
     * The dataset's pseudonym secret (records runs' durable teacher ids, {@link TeacherIds}): kept
     * in the ledger store — local: {@code <ledger-dir>/<dataset>/pseudonym.key} (0600), kafka: the
     * entry {@code <dataset>/pseudonym-key} — and created on first use.
     */
    public byte[] pseudonymSecret() {
        return store.pseudonymSecret(cfg.datasetId());
    }

    /**
     * The teacher ids of a records run's durable entries: one teacher per user ({@code directory}
     * per user) under a per-teacher scheme → the users' pseudonyms; otherwise the ids themselves.
     */
    public TeacherIds teacherIds(org.hotpate.teachers.records.UserDirectory directory) {
        if (directory == null || !directory.perUser() || cfg.plan().accounting().scheme() == null) {
            return TeacherIds.IDENTITY;
        }
        return TeacherIds.forUsers(pseudonymSecret(), directory.usersByRank());
    }

    /** {@link #teacherCharges} and each teacher's durable entry version, from one read. */
    public TeacherPriors teacherPriors() {
        IndividualScheme acc = cfg.plan().accounting().scheme();
        if (acc == null) {
            return TeacherPriors.NONE;
        }
        Map<Long, Long> out = new java.util.HashMap<>();
        Map<Long, Long> versions = new java.util.HashMap<>();
        for (TeacherSpend t : teacherSpends()) {
            if (!t.plan().equals(acc.planId())) {
                throw new NoBudgetLeftException(
                        "dataset '"
                                + cfg.datasetId()
                                + "' has teachers charged under the per-teacher plan "
                                + t.plan()
                                + "; this run's plan is "
                                + acc.planId()
                                + " (mechanism.params sigma/epsilon/lower/upper and"
                                + " budget.per-teacher-epsilon/-delta must stay the same on a"
                                + " dataset; see ./hotpate ledger teachers --dataset "
                                + cfg.datasetId()
                                + ")");
            }
            out.merge(t.teacherId(), t.total(), Math::max);
            versions.merge(t.teacherId(), t.version(), Math::max);
        }
        return new TeacherPriors(out, versions);
    }

    /**
     * The composition of the dataset's runs other than ledger account {@code account} (null: every
     * run), without the admission's checks ({@link RunAdmission} composes a run's prior).
     */
    public DatasetPrior prior(String account) {
        return DatasetPrior.compose(cfg.datasetId(), records(), account);
    }

    /**
     * What the dataset's ledger holds for the admission ({@link DatasetAdmission#decide}): whether
     * this ledger holds the dataset ({@link #acquire}), its run entries, which accounts are marked
     * finished, its teacher entries.
     */
    public DatasetAdmission.Ledger state() {
        return new DatasetAdmission.Ledger(
                cfg.datasetId(), holding.held(), records(), this::finished, teacherSpends());
    }

    /** The run's accounting as the admission judges it (mechanism, per-teacher plan). */
    public DatasetAdmission.Accounting accounting() {
        IndividualScheme scheme = cfg.plan().accounting().scheme();
        return new DatasetAdmission.Accounting(
                cfg.mechanism().name(),
                scheme == null ? null : scheme.planId(),
                cfg.budget().perTeacherEpsilon());
    }

    /**
     * Writes {@code r}, an entry of this run, durably (the local file fsynced, or acknowledged by
     * the topic's replicas) — never lowering what the ledger holds ({@link BudgetRecord#max}). The
     * driver's write-ahead of the population prior ({@link PriorRelease}).
     */
    public void writeEntry(BudgetRecord r) {
        store.writeRun(r);
    }

    /** The run's entry ({@code account}) as the ledger holds it now, or null. */
    public BudgetRecord entry(String account) {
        return records().stream().filter(r -> r.runId().equals(account)).findFirst().orElse(null);
    }

    /**
     * Marks ledger account {@code account} finished: the run ended cleanly and cannot be resumed.
     */
    public void markFinished(String account) {
        store.markFinished(cfg.datasetId(), account);
    }

    private boolean finished(String account) {
        return store.finished(cfg.datasetId(), account);
    }

    /**
     * Throws {@link NoBudgetLeftException}, naming the dataset, when {@code prior} leaves no room
     * for this run ({@link DatasetAdmission#requireRoom}), and {@link RunRefusedException} for a
     * cap asked for after uncapped runs.
     */
    public void requireRoom(DatasetPrior prior) {
        try {
            DatasetAdmission.requireRoom(
                    cfg.datasetId(),
                    prior,
                    cfg.plan().budget(),
                    cfg.plan().prior()); // the population prior, if any: charged before it is drawn
        } catch (DatasetAdmission.Refused r) {
            throw RunRefusedException.of(r);
        }
    }

    /**
     * The dataset's ε over every run in the ledger now, at the run's δ (+∞ after a non-DP run): at
     * the dataset's fixed order, or without a dataset cap at this run's planned order ({@link
     * DatasetPrior#epsilon(double, org.hotpate.core.accounting.EnsembleBudgetFilter.Config)}).
     */
    public double datasetEpsilon() {
        return DatasetPrior.compose(cfg.datasetId(), records(), null)
                .epsilon(cfg.budget().delta(), runOrder());
    }

    /** The run filter's plan, whose order converts an uncapped dataset's curve (null: none). */
    EnsembleBudgetFilter.Config runOrder() {
        return cfg.plan().budget().runConfig();
    }

    /**
     * Takes the dataset's lease for run {@code runId} before the run reads its prior (Kafka mode;
     * local mode already holds the directory's lock): appends a claim to the dataset's partition of
     * the ledger topic and reads up to it ({@link DatasetLeases}). Throws {@link
     * DatasetInUseException} naming the dataset and the holder when another run holds it; else
     * heartbeats until {@link #close}.
     */
    public void acquire(String runId) {
        holding.acquire(runId);
    }

    /**
     * Kafka ledger, before {@link #acquire}: the fixed id of the job the claim is for (a Kubernetes
     * deployment): a silent claim of the same run naming that job is this deployment's own (the job
     * recovered after a JobManager failover), not another job that may still spend.
     */
    public void ownJob(String jobId) {
        holding.ownJob(jobId);
    }

    /**
     * The run's job is on a remote cluster: its claim names the job, so that if this driver goes
     * silent the claim stays in force while the job may still run.
     */
    public void jobSubmitted(String flinkRest, String jobId) {
        holding.jobSubmitted(flinkRest, jobId);
    }

    /**
     * Local ledger: the run that held the dataset before this one (named in the lock file, its
     * driver gone and its job no longer running, else {@link #open} refused), if any.
     */
    public Optional<String> previousRun() {
        return holding.previousRun();
    }

    /**
     * Kafka ledger: runs {@code action} once the run must stop releasing (its lease not renewed
     * within the fencing margin, or taken over): the driver cancels a job that runs elsewhere.
     */
    public void onLeaseLost(Runnable action) {
        holding.onLeaseLost(action);
    }

    /** Kafka ledger: the epoch of the run's claim (its offset in the ledger partition), or -1. */
    public long leaseEpoch() {
        return holding.leaseEpoch();
    }

    /** Kafka ledger: null while the run may release, else why not ({@link #onLeaseLost}). */
    public String leaseLost() {
        return holding.leaseLost();
    }

    /**
     * Before a job is submitted to a cluster under the fixed id {@code jobId}: the lock file names
     * the run's job as pending (local ledger), the lease's claim names the job (Kafka ledger), so
     * that a driver killed between the submission and {@link #jobSubmitted} still leaves its job
     * findable.
     */
    public void jobSubmitting(String flinkRest, String jobId) {
        holding.jobSubmitting(flinkRest, jobId);
    }

    /**
     * Local ledger: the run's job is known to have ended (the driver saw it in a terminal state),
     * so the lock file no longer sends later runs to its JobManager.
     */
    public void jobEnded() {
        holding.jobEnded();
    }

    @Override
    public void close() {
        holding.close();
    }
}
