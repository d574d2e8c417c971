package org.hotpate.stream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.accounting.IndividualSchemes;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.util.Decimals;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.DatasetLock;
import org.hotpate.io.KafkaIo;
import org.hotpate.io.LedgerMarkersIo;
import org.hotpate.io.PseudonymSecrets;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.LedgerMarker;
import org.hotpate.model.TeacherSpend;
import org.hotpate.protocol.DatasetLeases;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.IndividualScheme;
import org.hotpate.protocol.LocalHold;
import org.hotpate.protocol.RunBudget;
import org.hotpate.protocol.TeacherIds;

/**
 * The driver's view of the durable per-dataset budget ledger ({@code budget.ledger}): it reads
 * every earlier run's curve on the run's dataset, composes them into the {@link DatasetPrior} the
 * job starts from, refuses a run that starts with no room left, and reads the ledger again at the
 * end for the summary's {@code dataset_epsilon}.
 *
 * <p>One authority per dataset (docs/privacy-accounting.md §9, "One authority per dataset"): local
 * mode holds an exclusive lock on the dataset's directory for the life of the driver, and records
 * in the lock file the run and its cluster job, which outlives the driver ({@link LocalHold}: a
 * later run refuses while that job may run); Kafka mode creates the compacted topic when missing
 * and takes the dataset's lease ({@link #acquire}). Either way a second run on the dataset is
 * refused while one holds it. The driver never writes a run's entry: the job does.
 */
public final class DatasetLedger implements AutoCloseable {
    /**
     * A run the dataset's ledger refuses before anything starts ({@code ./hotpate run} exits 2 with
     * the message): another accounting on the dataset (per-teacher vs ensemble), a cap asked for
     * after uncapped runs, a finished run resumed — and the subclasses below.
     */
    public static class RunRefusedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public RunRefusedException(String message) {
            super(message);
        }
    }

    /** A run that cannot start because its dataset's budget is spent. */
    public static final class NoBudgetLeftException extends RunRefusedException {
        private static final long serialVersionUID = 1L;

        public NoBudgetLeftException(String message) {
            super(message);
        }
    }

    /**
     * A fresh run whose run id the dataset's ledger already holds (only a resume may reuse one).
     */
    public static final class RunIdInUseException extends RunRefusedException {
        private static final long serialVersionUID = 1L;

        public RunIdInUseException(String message) {
            super(message);
        }
    }

    /** A run that cannot start because another run holds its dataset. */
    public static final class DatasetInUseException extends RunRefusedException {
        private static final long serialVersionUID = 1L;

        public DatasetInUseException(String message) {
            super(message);
        }
    }

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    /** A lease's heartbeat period and the silence after which an embedded run's claim lapses. */
    static final Duration LEASE_HEARTBEAT = Duration.ofSeconds(5);

    static final Duration LEASE_TIMEOUT = Duration.ofSeconds(30);

    private final JobConfig cfg;
    private final Properties client; // null in local mode
    private final DatasetLock lock; // null in kafka mode
    private Lease lease; // kafka mode, once acquired
    private LocalHold.Holder holder; // local mode: what the lock file says of this run
    private String previousRun; // local mode: the run the lock file named when this one took it

    private DatasetLedger(JobConfig cfg, Properties client, DatasetLock lock) {
        this.cfg = cfg;
        this.client = client;
        this.lock = lock;
    }

    /**
     * Opens the ledger of {@code cfg}'s dataset: locks it (local) or creates the compacted topic
     * (kafka; {@code client} = the job principal's client properties).
     */
    public static DatasetLedger open(JobConfig cfg, Properties client) {
        if (cfg.ledgerMode() == JobConfig.LedgerMode.LOCAL) {
            DatasetLock lock;
            try {
                lock = DatasetLock.acquire(cfg.ledgerDir(), cfg.datasetId());
            } catch (IllegalStateException e) {
                throw new DatasetInUseException(e.getMessage());
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot open the budget ledger in " + cfg.ledgerDir(), e);
            }
            try {
                requireNoOrphan(cfg, lock.previous());
            } catch (RuntimeException e) {
                try {
                    lock.close();
                } catch (IOException ignored) {
                    // the refusal is what matters; the lock goes with the process anyway
                }
                throw e;
            }
            DatasetLedger opened = new DatasetLedger(cfg, null, lock);
            opened.previousRun =
                    LocalHold.Holder.parse(lock.previous())
                            .map(LocalHold.Holder::runId)
                            .orElse(null);
            return opened;
        }
        String topic = cfg.kafka().topics().name(Topic.BUDGET_LEDGER);
        KafkaIo.createTopics(
                client,
                List.of(topic),
                cfg.kafka().partitions(),
                Map.of(
                        topic,
                        Map.of(
                                "cleanup.policy",
                                "compact",
                                // the leases' one clock: the broker stamps every marker
                                "message.timestamp.type",
                                "LogAppendTime")));
        return new DatasetLedger(cfg, client, null);
    }

    /**
     * One ledger per dataset, whatever the flags (issue 30 item 3): a dataset's ledger is part of
     * its identity, so a run that would open the dataset in a second store is refused (exit 2)
     * naming the store that already holds it. Local ledger: refused when the run's Kafka ({@code
     * kafkaClient}, null with an embedded broker, which starts empty) holds entries of the dataset
     * on the budget-ledger topic. Kafka ledger: refused when the local ledger directory on this
     * machine holds entries of the dataset. A store holding none of the dataset's entries is not
     * opened by this check.
     */
    public void requireOneStore(Properties kafkaClient) {
        String dataset = cfg.datasetId();
        String topic = cfg.kafka().topics().name(Topic.BUDGET_LEDGER);
        if (lock != null) {
            if (kafkaClient == null || !topicExists(kafkaClient, topic)) {
                return;
            }
            boolean onTopic =
                    BudgetLedgerIo.readTopic(kafkaClient, topic, READ_TIMEOUT).stream()
                                    .anyMatch(r -> r.dataset().equals(dataset))
                            || BudgetLedgerIo.readTeachersTopic(kafkaClient, topic, READ_TIMEOUT)
                                    .stream()
                                    .anyMatch(t -> t.dataset().equals(dataset));
            if (onTopic) {
                throw new RunRefusedException(
                        "dataset '"
                                + dataset
                                + "' has its budget ledger on the Kafka topic "
                                + topic
                                + " ("
                                + cfg.kafka().bootstrap()
                                + "); this run would open it in the local ledger "
                                + cfg.ledgerDir()
                                + " too. One ledger per dataset: run it with budget.ledger:"
                                + " kafka, or use another budget.dataset");
            }
            return;
        }
        boolean local;
        try {
            local =
                    !BudgetLedgerIo.readLocal(cfg.ledgerDir(), dataset).isEmpty()
                            || !BudgetLedgerIo.readTeachersLocal(cfg.ledgerDir(), dataset)
                                    .isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the local budget ledger in " + cfg.ledgerDir(), e);
        }
        if (local) {
            throw new RunRefusedException(
                    "dataset '"
                            + dataset
                            + "' has its budget ledger in the local directory "
                            + cfg.ledgerDir()
                            + "; this run would open it on the Kafka topic "
                            + topic
                            + " too. One ledger per dataset: run it with budget.ledger: local,"
                            + " or use another budget.dataset");
        }
    }

    private static boolean topicExists(Properties client, String topic) {
        try (org.apache.kafka.clients.admin.Admin admin =
                org.apache.kafka.clients.admin.Admin.create(client)) {
            return admin.listTopics()
                    .names()
                    .get(READ_TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .contains(topic);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted listing the topics of the run's Kafka", e);
        } catch (java.util.concurrent.ExecutionException
                | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(
                    "cannot list the topics of the run's Kafka (one ledger per dataset: the"
                            + " dataset's entries on "
                            + topic
                            + " must be checked before a local-ledger run)",
                    e);
        }
    }

    /**
     * Every run entry of the dataset (the largest version of each). In Kafka mode also the entries
     * of the local ledger in {@code budget.ledger-dir} on this machine: a dataset used by local
     * runs before is composed with them, not started afresh in a second store (merged by key, so an
     * entry in both counts once).
     */
    public List<BudgetRecord> records() {
        return records(cfg, client);
    }

    /**
     * {@link #records()} of {@code cfg}'s dataset read without opening the ledger ({@code client}
     * null: the local ledger only; {@code ./hotpate ledger show --spec}).
     */
    public static List<BudgetRecord> records(JobConfig cfg, Properties client) {
        List<BudgetRecord> all;
        try {
            all =
                    new java.util.ArrayList<>(
                            BudgetLedgerIo.readLocal(cfg.ledgerDir(), cfg.datasetId()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (client != null) {
            all.addAll(
                    BudgetLedgerIo.readTopic(
                            client, cfg.kafka().topics().name(Topic.BUDGET_LEDGER), READ_TIMEOUT));
        }
        return BudgetLedgerIo.latest(
                all.stream().filter(r -> r.dataset().equals(cfg.datasetId())).toList());
    }

    /**
     * Every teacher entry of the dataset (per-teacher schemes; the largest version of each; in
     * Kafka mode with the local ledger's, like {@link #records()}).
     */
    public List<TeacherSpend> teacherSpends() {
        List<TeacherSpend> all;
        try {
            all =
                    new java.util.ArrayList<>(
                            BudgetLedgerIo.readTeachersLocal(cfg.ledgerDir(), cfg.datasetId()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (client != null) {
            all.addAll(
                    BudgetLedgerIo.readTeachersTopic(
                            client, cfg.kafka().topics().name(Topic.BUDGET_LEDGER), READ_TIMEOUT));
        }
        Map<String, TeacherSpend> latest = new java.util.LinkedHashMap<>();
        for (TeacherSpend t : all) {
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
        if (client == null) {
            try {
                return PseudonymSecrets.readOrCreateLocal(cfg.ledgerDir(), cfg.datasetId());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return PseudonymSecrets.readOrCreateOnTopic(
                client,
                cfg.kafka().topics().name(Topic.BUDGET_LEDGER),
                cfg.datasetId(),
                READ_TIMEOUT);
    }

    /**
     * The teacher ids of a records run's durable entries: one teacher per user ({@code directory}
     * per user) under a per-teacher scheme → the users' pseudonyms; otherwise the ids themselves.
     */
    public TeacherIds teacherIds(org.hotpate.teachers.records.UserDirectory directory) {
        if (directory == null
                || !directory.perUser()
                || CoreBindings.accountingMode(cfg).scheme() == null) {
            return TeacherIds.IDENTITY;
        }
        return TeacherIds.forUsers(pseudonymSecret(), directory.usersByRank());
    }

    /** {@link #teacherCharges} and each teacher's durable entry version, from one read. */
    public TeacherPriors teacherPriors() {
        IndividualScheme acc = CoreBindings.accountingMode(cfg).scheme();
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
     * The composition of the dataset's runs other than ledger account {@code account} (a run's
     * account is its run id, or a fork's {@link #resumeAccount}). A {@code fresh} run (not a
     * resume) whose run id the ledger already holds is refused with {@link RunIdInUseException}:
     * its curve would merge with the earlier run's entry and the earlier run would drop out of the
     * prior ({@link DatasetPrior#usesRunId}). Refuses ({@link RunRefusedException}) a run whose
     * accounting does not compose with the dataset's ({@link #requireSameAccounting}).
     */
    public DatasetPrior prior(String account, boolean fresh) {
        List<BudgetRecord> records = records();
        if (fresh && DatasetPrior.usesRunId(cfg.datasetId(), records, account)) {
            throw new RunIdInUseException(
                    "run id '"
                            + account
                            + "' is already in the budget ledger of dataset '"
                            + cfg.datasetId()
                            + "'; a fresh run cannot reuse it (only --from-savepoint continues a"
                            + " run under its id; see ./hotpate ledger show --dataset "
                            + cfg.datasetId()
                            + ")");
        }
        requireSameAccounting(records);
        return DatasetPrior.compose(cfg.datasetId(), records, account);
    }

    /**
     * Per-teacher and ensemble accounting do not compose on one dataset (issue 23): an ensemble run
     * would let teachers a per-teacher run retired vote again and charge none of them, and a
     * per-teacher run starts every teacher at 0 whatever earlier ensemble runs took from it. So a
     * dataset keeps the accounting of its first run; a run of the other kind is refused, naming
     * what the dataset holds.
     */
    void requireSameAccounting(List<BudgetRecord> records) {
        IndividualScheme scheme = CoreBindings.accountingMode(cfg).scheme();
        if (scheme == null) {
            List<TeacherSpend> teachers = teacherSpends();
            if (!teachers.isEmpty()) {
                TeacherSpend t = teachers.get(0);
                // No count, spending or retirement of any teacher: those depend on each teacher's
                // private data (threat model, "Per-teacher spending is data-dependent and never
                // public"), and a refusal reaches whoever started the run (issue 30 item 8).
                throw new RunRefusedException(
                        "dataset '"
                                + cfg.datasetId()
                                + "' is under per-teacher accounting: its teachers are charged"
                                + " under a per-teacher budget (budget.per-teacher-epsilon; plan "
                                + t.plan()
                                + ", delta "
                                + t.delta()
                                + "). An ensemble run (mechanism "
                                + cfg.mechanism().name()
                                + ") would let teachers retired under it vote and charge none of"
                                + " them; run mechanism.name "
                                + t.plan().substring(0, Math.max(0, t.plan().indexOf('/')))
                                + " with the same per-teacher plan, or use another budget.dataset"
                                + " (each teacher's spending is operator-only: ./hotpate ledger"
                                + " teachers --dataset "
                                + cfg.datasetId()
                                + ")");
            }
            return;
        }
        List<BudgetRecord> ensemble =
                records.stream()
                        .filter(r -> !IndividualSchemes.isIndividual(r.mechanism()))
                        .toList();
        if (!ensemble.isEmpty()) {
            throw new RunRefusedException(
                    "dataset '"
                            + cfg.datasetId()
                            + "' has "
                            + ensemble.size()
                            + " ensemble-accounted run(s) (e.g. "
                            + ensemble.get(0).runId()
                            + ", mechanism "
                            + ensemble.get(0).mechanism()
                            + "); per-teacher accounting (mechanism "
                            + cfg.mechanism().name()
                            + ", budget.per-teacher-epsilon "
                            + cfg.budget().perTeacherEpsilon()
                            + ") would start every teacher at 0 and not count them. Use another"
                            + " budget.dataset (see ./hotpate ledger show --dataset "
                            + cfg.datasetId()
                            + ")");
        }
    }

    /**
     * The ledger account a resume of run {@code meta} continues (issue 23, "resume forks"). The run
     * continues under its own account when that account's entry holds no more than the savepoint
     * recorded when the driver stopped the run (nothing was released after the snapshot). Otherwise
     * — the same savepoint resumed a second time, an older savepoint, a retained checkpoint — the
     * releases after the snapshot stay public while the restored state forgets them: the resume
     * becomes a fork with a new account {@code <runId>~r<k>}, and its prior includes every earlier
     * account of the run, so the dataset's ε counts both branches (an over-count of the shared
     * prefix, never an under-count). A run marked finished is refused.
     *
     * <p>Why the fork's sum bounds the dataset: both branches were released, and RDP curves of
     * adaptively composed releases add order by order under the mechanisms' relation (replace one
     * user's data; Mironov 2017 Prop. 1, Feldman &amp; Zrnic 2021 Thm 3.1); the shared prefix,
     * counted in both entries, only adds non-negative terms. Tested by {@code
     * DatasetLedgerTest.theSameSavepointResumedTwiceForks…}; the old rule (continue under the run's
     * own entry, max-merged) fails it.
     */
    public String resumeAccount(RunMetadata meta) {
        String runId = meta.runId();
        String account = meta.account() == null ? runId : meta.account();
        if (finished(account)) {
            throw new RunRefusedException(
                    "run "
                            + runId
                            + " finished (its ledger entry "
                            + account
                            + " on dataset '"
                            + cfg.datasetId()
                            + "' is marked finished); a finished run cannot be resumed — start a"
                            + " new run");
        }
        List<BudgetRecord> records = records();
        BudgetRecord entry =
                records.stream().filter(r -> r.runId().equals(account)).findFirst().orElse(null);
        if (entry == null || meta.coversLedger(entry)) {
            return account;
        }
        return nextFork(records, runId);
    }

    /**
     * The ledger account of a deployment of run {@code runId} by an entry point that cannot tell a
     * restart of the run from a new deployment under the same run id ({@link ClusterJob}: the
     * Kubernetes operator re-runs {@code main()} with the manifest's fixed run id). The run's own
     * account when the ledger holds no entry of it; otherwise a fork {@code <runId>~r<k>}, whose
     * prior includes every earlier account: a redeploy is charged as a new run on top of what the
     * run spent, never a reset of it (issue 30 item 2, the reset only). An upgrade that restores
     * the run's state is charged the same way: its restored curve includes the prefix, counted
     * again (an over-count, never an under-count; the composition of {@link #resumeAccount}).
     */
    public String deploymentAccount(String runId) {
        List<BudgetRecord> records = records();
        return records.stream().noneMatch(r -> r.runId().equals(runId))
                ? runId
                : nextFork(records, runId);
    }

    private static String nextFork(List<BudgetRecord> records, String runId) {
        int k = 1;
        while (true) {
            String fork = runId + "~r" + k;
            if (records.stream().noneMatch(r -> r.runId().equals(fork))) {
                return fork;
            }
            k++;
        }
    }

    /** The run's entry ({@code account}) as the ledger holds it now, or null. */
    public BudgetRecord entry(String account) {
        return records().stream().filter(r -> r.runId().equals(account)).findFirst().orElse(null);
    }

    /**
     * Marks ledger account {@code account} finished: the run ended cleanly and cannot be resumed.
     */
    public void markFinished(String account) {
        long now = System.currentTimeMillis();
        if (client == null) {
            try {
                BudgetLedgerIo.markFinishedLocal(cfg.ledgerDir(), cfg.datasetId(), account);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            try (LedgerMarkersIo m = markers()) {
                m.append(LedgerMarker.finished(cfg.datasetId(), account, now));
            }
        }
    }

    private boolean finished(String account) {
        if (BudgetLedgerIo.finishedLocal(cfg.ledgerDir(), cfg.datasetId(), account)) {
            return true;
        }
        if (client == null) {
            return false;
        }
        try (LedgerMarkersIo m = markers()) {
            return m.read(cfg.datasetId(), -1).stream()
                    .anyMatch(
                            x ->
                                    LedgerMarker.FINISHED.equals(x.kind())
                                            && x.runId().equals(account));
        }
    }

    private LedgerMarkersIo markers() {
        return new LedgerMarkersIo(
                client, cfg.kafka().topics().name(Topic.BUDGET_LEDGER), cfg.datasetId());
    }

    /**
     * Throws {@link NoBudgetLeftException}, naming the dataset, when {@code prior} leaves no room
     * for this run: the earlier runs composed with this run spending its whole budget on worst-case
     * releases would pass {@code budget.dataset-epsilon} ({@link RunBudget#hasRoom}).
     */
    public void requireRoom(DatasetPrior prior) {
        if (RunBudget.capPlannedAfterUse(prior, cfg.budget().terms())) {
            throw new RunRefusedException(
                    "dataset '"
                            + cfg.datasetId()
                            + "' was used by "
                            + prior.runs()
                            + " run(s) without a dataset cap; budget.dataset-epsilon "
                            + cfg.budget().datasetEpsilon()
                            + " planned now would be chosen after their outputs were seen, so it"
                            + " would not be a guarantee. A dataset's cap is fixed by its first"
                            + " run: run without budget.dataset-epsilon on this dataset, or give"
                            + " the cap from the first run of a new budget.dataset (see"
                            + " ./hotpate ledger show --dataset "
                            + cfg.datasetId()
                            + ")");
        }
        if (!RunBudget.datasetCapped(prior, cfg.budget().terms())) {
            return;
        }
        PrivacyEvent worst = CoreBindings.worstCaseEvent(cfg);
        if (RunBudget.hasRoom(prior, cfg.budget().terms(), worst)) {
            return;
        }
        double delta = cfg.budget().delta();
        throw new NoBudgetLeftException(
                "dataset '"
                        + cfg.datasetId()
                        + "' has no room for this run: "
                        + (prior.nonPrivate()
                                ? "a non-private run used it"
                                : String.format(
                                        "%d earlier run(s) spent epsilon %s (delta %s), and this"
                                                + " run's budget.epsilon %s would take the dataset"
                                                + " to %s > budget.dataset-epsilon %s",
                                        prior.runs(),
                                        Decimals.up(prior.epsilon(delta, runOrder()), 4),
                                        delta,
                                        cfg.budget().epsilon(),
                                        Decimals.up(
                                                RunBudget.epsilonWithFullRun(
                                                        prior, cfg.budget().terms(), worst),
                                                4),
                                        Math.min(
                                                cfg.budget().datasetEpsilon(),
                                                RunBudget.enforcedDatasetEpsilon(
                                                        prior, cfg.budget().terms(), worst))))
                        + " (see ./hotpate ledger show --dataset "
                        + cfg.datasetId()
                        + ")");
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
        return RunBudget.runConfig(cfg.budget().terms(), CoreBindings.worstCaseEvent(cfg));
    }

    /**
     * Takes the dataset's lease for run {@code runId} before the run reads its prior (Kafka mode;
     * local mode already holds the directory's lock): appends a claim to the dataset's partition of
     * the ledger topic and reads up to it ({@link DatasetLeases}). Throws {@link
     * DatasetInUseException} naming the dataset and the holder when another run holds it; else
     * heartbeats until {@link #close}.
     */
    public void acquire(String runId) {
        if (lock != null) {
            recordHolder(LocalHold.Holder.embedded(runId, ProcessHandle.current().pid()));
            return;
        }
        if (client == null || lease != null) {
            return;
        }
        lease = new Lease(markers(), cfg.datasetId(), runId);
        try {
            lease.claim();
        } catch (RuntimeException e) {
            lease.release();
            lease = null;
            throw e;
        }
    }

    /**
     * The run's job is on a remote cluster: its claim names the job, so that if this driver goes
     * silent the claim stays in force while the job may still run.
     */
    public void jobSubmitted(String flinkRest, String jobId) {
        if (lock != null) {
            recordJob(jobId, flinkRest);
        }
        if (lease != null) {
            lease.tag = DatasetLeases.tag(lease.claimId, flinkRest, jobId);
            lease.beat();
        }
    }

    /** A run's claim on the dataset (Kafka mode), renewed every {@link #LEASE_HEARTBEAT}. */
    private static final class Lease {
        private final LedgerMarkersIo markers;
        private final String dataset;
        private final String runId;
        private final String claimId;
        private volatile String tag;
        private java.util.concurrent.ScheduledExecutorService heartbeat;

        Lease(LedgerMarkersIo markers, String dataset, String runId) {
            this.markers = markers;
            this.dataset = dataset;
            this.runId = runId;
            byte[] b = new byte[12];
            new java.security.SecureRandom().nextBytes(b);
            this.claimId = java.util.HexFormat.of().formatHex(b);
            this.tag = claimId;
        }

        void claim() {
            long offset =
                    markers.append(
                            LedgerMarker.lease(
                                    dataset, runId, tag, true, System.currentTimeMillis()));
            List<DatasetLeases.Claim> claims = DatasetLeases.claims(markers.read(dataset, offset));
            // "now" is the broker's time of this claim, on the same clock as every other marker
            long now =
                    claims.stream()
                            .filter(c -> c.claimId().equals(claimId))
                            .mapToLong(DatasetLeases.Claim::lastMs)
                            .findFirst()
                            .orElse(DatasetLeases.UNKNOWN_TIME);
            DatasetLeases.Claim holder =
                    DatasetLeases.holder(
                                    claims, now, LEASE_TIMEOUT.toMillis(), DatasetLedger::jobMayRun)
                            .orElseThrow(
                                    () ->
                                            new IllegalStateException(
                                                    "the lease claim of run "
                                                            + runId
                                                            + " is not in the ledger topic"));
            if (!holder.claimId().equals(claimId)) {
                throw new DatasetInUseException(
                        "dataset '"
                                + dataset
                                + "' is in use by run "
                                + holder.runId()
                                + (now == DatasetLeases.UNKNOWN_TIME
                                                || holder.lastMs() == DatasetLeases.UNKNOWN_TIME
                                        ? " (the ledger topic does not stamp broker time"
                                                + " — message.timestamp.type=LogAppendTime — so"
                                                + " a silent claim cannot lapse"
                                        : " (last heartbeat "
                                                + Math.max(0, (now - holder.lastMs()) / 1000)
                                                + " s ago, broker time")
                                + DatasetLeases.remoteJob(holder.tag())
                                        .map(j -> ", Flink job " + j[1] + " at " + j[0])
                                        .orElse("")
                                + "); one run per dataset at a time — wait for it to end (a"
                                + " claim lapses "
                                + LEASE_TIMEOUT.toSeconds()
                                + " s after its driver stops, once its job no longer runs)");
            }
            heartbeat =
                    java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                            r -> {
                                Thread t = new Thread(r, "dataset-lease-" + dataset);
                                t.setDaemon(true);
                                return t;
                            });
            heartbeat.scheduleAtFixedRate(
                    this::beat,
                    LEASE_HEARTBEAT.toMillis(),
                    LEASE_HEARTBEAT.toMillis(),
                    java.util.concurrent.TimeUnit.MILLISECONDS);
        }

        void beat() {
            try {
                markers.append(
                        LedgerMarker.lease(dataset, runId, tag, true, System.currentTimeMillis()));
            } catch (RuntimeException e) {
                // a missed heartbeat: the next one renews; the claim lapses only after a timeout
            }
        }

        void release() {
            if (heartbeat != null) {
                heartbeat.shutdownNow();
            }
            try {
                markers.append(
                        LedgerMarker.lease(dataset, runId, tag, false, System.currentTimeMillis()));
            } catch (RuntimeException e) {
                // the claim lapses after its timeout
            } finally {
                markers.close();
            }
        }
    }

    /**
     * Local ledger: the run that held the dataset before this one (named in the lock file, its
     * driver gone and its job no longer running, else {@link #open} refused), if any.
     */
    public Optional<String> previousRun() {
        return Optional.ofNullable(previousRun);
    }

    /**
     * Local ledger, before a job is submitted to a cluster: the lock file names the run's job as
     * pending, so that a driver killed between the submission and {@link #jobSubmitted} still
     * leaves its job findable (by the run's job name).
     */
    public void jobSubmitting(String flinkRest) {
        if (lock != null) {
            recordJob(LocalHold.PENDING, flinkRest);
        }
    }

    /**
     * Local ledger: the run's job is known to have ended (the driver saw it in a terminal state),
     * so the lock file no longer sends later runs to its JobManager.
     */
    public void jobEnded() {
        if (lock != null && holder != null) {
            recordHolder(LocalHold.Holder.embedded(holder.runId(), holder.pid()));
        }
    }

    private void recordJob(String jobId, String flinkRest) {
        if (holder != null) {
            recordHolder(new LocalHold.Holder(holder.runId(), holder.pid(), jobId, flinkRest));
        }
    }

    private void recordHolder(LocalHold.Holder h) {
        holder = h;
        try {
            lock.record(h.format());
        } catch (IOException e) {
            // Without its job in the lock file a later run could not see it once this driver is
            // gone: refuse to go on rather than leave the dataset unheld.
            throw new UncheckedIOException("cannot record the holder of " + lockFile(), e);
        }
    }

    private java.nio.file.Path lockFile() {
        return cfg.ledgerDir().resolve(cfg.datasetId()).resolve(".lock");
    }

    /**
     * Refuses the run (exit 2) while the previous holder of the dataset's lock — its driver gone,
     * since this process got the OS lock — has a job on a cluster that may still run: the job keeps
     * spending the dataset, and its spending is in the ledger only as far as its last checkpoint.
     * Fails closed when the JobManager cannot be asked ({@link LocalHold#verdict}).
     */
    static void requireNoOrphan(JobConfig cfg, String previousRecord) {
        LocalHold.Holder prev = LocalHold.Holder.parse(previousRecord).orElse(null);
        if (prev == null || !prev.onCluster()) {
            return;
        }
        ClusterJobStatus.Listing listing = ClusterJobStatus.jobs(prev.flinkRest());
        LocalHold.Verdict v = LocalHold.verdict(prev, listing.jobs());
        if (!v.holds()) {
            return;
        }
        String why;
        if (v == LocalHold.Verdict.RUNNING) {
            LocalHold.Job j =
                    LocalHold.runningJob(prev, listing.jobs().orElseThrow()).orElseThrow();
            why =
                    "its Flink job "
                            + j.id()
                            + " at "
                            + prev.flinkRest()
                            + " is "
                            + j.state()
                            + " and still spends the dataset's budget (its spending so far is in"
                            + " the ledger). Wait for it to end, or cancel it: curl -X PATCH '"
                            + prev.flinkRest()
                            + "/jobs/"
                            + j.id()
                            + "?mode=cancel'";
        } else {
            why =
                    "the state of its Flink job "
                            + prev.jobId()
                            + " at "
                            + prev.flinkRest()
                            + " cannot be read ("
                            + listing.error()
                            + "), so it may still spend the dataset's budget (fail closed). Start"
                            + " that cluster again so its JobManager answers, or — only if that"
                            + " job is known to have ended — delete "
                            + cfg.ledgerDir().resolve(cfg.datasetId()).resolve(".lock");
        }
        throw new DatasetInUseException(
                "dataset '"
                        + cfg.datasetId()
                        + "' is in use by run "
                        + prev.runId()
                        + ": its driver (pid "
                        + prev.pid()
                        + ") is gone, but "
                        + why
                        + " (see ./hotpate ledger show --dataset "
                        + cfg.datasetId()
                        + ")");
    }

    /** The run holding a local dataset now, and what it is doing ({@link #localHold}). */
    public record Hold(String runId, String status, boolean orphaned) {}

    /**
     * Who holds dataset {@code dataset} of the local ledger in {@code dir}, read from its lock file
     * without taking the lock ({@code ./hotpate ledger show}): a live driver, or a job on a cluster
     * whose driver is gone (orphaned) and that may still run. Empty when nothing holds it.
     */
    public static java.util.Optional<Hold> localHold(java.nio.file.Path dir, String dataset) {
        LocalHold.Holder h =
                LocalHold.Holder.parse(DatasetLock.holderRecord(dir, dataset)).orElse(null);
        if (h == null) {
            return java.util.Optional.empty();
        }
        boolean driverAlive =
                ProcessHandle.of(h.pid())
                        .filter(ProcessHandle::isAlive)
                        // a reused pid is some other program
                        .flatMap(p -> p.info().command())
                        .map(c -> c.contains("java"))
                        .orElse(false);
        String job = h.onCluster() ? "Flink job " + h.jobId() + " at " + h.flinkRest() : null;
        if (driverAlive) {
            return java.util.Optional.of(
                    new Hold(
                            h.runId(),
                            "running (driver pid "
                                    + h.pid()
                                    + (job == null ? "" : ", " + job)
                                    + ")",
                            false));
        }
        if (!h.onCluster()) {
            return java.util.Optional.empty();
        }
        ClusterJobStatus.Listing listing = ClusterJobStatus.jobs(h.flinkRest());
        LocalHold.Verdict v = LocalHold.verdict(h, listing.jobs());
        if (v == LocalHold.Verdict.ENDED) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(
                new Hold(
                        h.runId(),
                        v == LocalHold.Verdict.RUNNING
                                ? "running, driver gone (orphaned): Flink job "
                                        + LocalHold.runningJob(h, listing.jobs().orElseThrow())
                                                .map(j -> j.id() + " " + j.state())
                                                .orElseThrow()
                                        + " at "
                                        + h.flinkRest()
                                        + "; its entry is what its checkpoints wrote so far"
                                : "driver gone (orphaned), "
                                        + job
                                        + ": state unknown ("
                                        + listing.error()
                                        + "); holds the dataset (fail closed)",
                        true));
    }

    /**
     * Who holds dataset {@code dataset} of the Kafka ledger on {@code topic}, from its lease
     * markers ({@code ./hotpate ledger show}): a claim whose driver heartbeats, or a silent one
     * whose cluster job the JobManager does not report ended (orphaned). Empty when none holds it.
     */
    public static java.util.Optional<Hold> leaseHold(
            Properties client, String topic, String dataset) {
        try (LedgerMarkersIo m = new LedgerMarkersIo(client, topic, dataset)) {
            return leaseHold(m, dataset);
        } catch (RuntimeException e) {
            return java.util.Optional.of(
                    new Hold(
                            "?",
                            "unknown: the lease markers could not be read (" + e + ")",
                            false));
        }
    }

    private static java.util.Optional<Hold> leaseHold(LedgerMarkersIo m, String dataset) {
        long now = System.currentTimeMillis();
        java.util.Optional<DatasetLeases.Claim> holder =
                DatasetLeases.holder(
                        DatasetLeases.claims(m.read(dataset, -1)),
                        now,
                        LEASE_TIMEOUT.toMillis(),
                        DatasetLedger::jobMayRun);
        if (holder.isEmpty()) {
            return java.util.Optional.empty();
        }
        DatasetLeases.Claim c = holder.get();
        boolean silent = now - c.lastMs() > LEASE_TIMEOUT.toMillis();
        String beat = "last heartbeat " + Math.max(0, (now - c.lastMs()) / 1000) + " s ago";
        String job =
                DatasetLeases.remoteJob(c.tag())
                        .map(j -> "Flink job " + j[1] + " at " + j[0])
                        .orElse("");
        return java.util.Optional.of(
                new Hold(
                        c.runId(),
                        silent
                                ? "running, driver gone (orphaned): "
                                        + job
                                        + " not reported ended ("
                                        + beat
                                        + ")"
                                : "running (" + beat + (job.isEmpty() ? "" : ", " + job) + ")",
                        silent));
    }

    /**
     * Whether a silent claim's job may still run: a job on a remote cluster whose JobManager does
     * not report it ended or unknown. A JobManager that cannot be reached may still run it (a
     * partition, a REST address this machine cannot reach): the claim stays in force — fail closed
     * (issue 30 item 6).
     */
    static boolean jobMayRun(DatasetLeases.Claim c) {
        return DatasetLeases.remoteJob(c.tag())
                .map(j -> ClusterJobStatus.mayRun(j[0], j[1]))
                .orElse(false);
    }

    @Override
    public void close() {
        if (lease != null) {
            lease.release();
            lease = null;
        }
        if (lock != null) {
            try {
                lock.close();
            } catch (IOException ignored) {
                // the lock goes with the process anyway
            }
        }
    }
}
