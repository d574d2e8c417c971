package org.hotpate.stream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.core.util.Decimals;
import org.hotpate.io.BudgetLedgerIo;
import org.hotpate.io.KafkaIo;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.TeacherSpend;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.IndividualScheme;
import org.hotpate.protocol.RunBudget;
import org.hotpate.protocol.TeacherIds;

/**
 * The driver's view of the durable per-dataset budget ledger ({@code budget.ledger}): it reads
 * every earlier run's curve on the run's dataset, composes them into the {@link DatasetPrior} the
 * job starts from, refuses a run that starts with no room left, and reads the ledger again at the
 * end for the summary's {@code dataset_epsilon}.
 *
 * <p>Local mode holds an exclusive lock on the dataset's directory for the life of the run, so two
 * runs on one machine cannot compose with the same prior concurrently. Kafka mode creates the
 * compacted topic when missing; concurrent runs on one dataset in Kafka mode are not serialized
 * (docs/privacy-accounting.md, "Durable budget ledger").
 */
public final class DatasetLedger implements AutoCloseable {
    /** A run that cannot start because its dataset's budget is spent. */
    public static final class NoBudgetLeftException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public NoBudgetLeftException(String message) {
            super(message);
        }
    }

    /**
     * A fresh run whose run id the dataset's ledger already holds (only a resume may reuse one).
     */
    public static final class RunIdInUseException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public RunIdInUseException(String message) {
            super(message);
        }
    }

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private final JobConfig cfg;
    private final Properties client; // null in local mode
    private final BudgetLedgerIo.DatasetLock lock; // null in kafka mode

    private DatasetLedger(JobConfig cfg, Properties client, BudgetLedgerIo.DatasetLock lock) {
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
            try {
                return new DatasetLedger(
                        cfg, null, BudgetLedgerIo.lockLocal(cfg.ledgerDir(), cfg.datasetId()));
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "cannot open the budget ledger in " + cfg.ledgerDir(), e);
            }
        }
        String topic = cfg.kafka().topics().name(Topic.BUDGET_LEDGER);
        KafkaIo.createTopics(
                client,
                List.of(topic),
                cfg.kafka().partitions(),
                Map.of(topic, Map.of("cleanup.policy", "compact")));
        return new DatasetLedger(cfg, client, null);
    }

    /** Every run entry of the dataset (the largest version of each). */
    public List<BudgetRecord> records() {
        List<BudgetRecord> all;
        if (client == null) {
            try {
                all = BudgetLedgerIo.readLocal(cfg.ledgerDir(), cfg.datasetId());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            all =
                    BudgetLedgerIo.readTopic(
                            client, cfg.kafka().topics().name(Topic.BUDGET_LEDGER), READ_TIMEOUT);
        }
        return all.stream().filter(r -> r.dataset().equals(cfg.datasetId())).toList();
    }

    /** Every teacher entry of the dataset (per-teacher schemes; the largest version of each). */
    public List<TeacherSpend> teacherSpends() {
        List<TeacherSpend> all;
        if (client == null) {
            try {
                all = BudgetLedgerIo.readTeachersLocal(cfg.ledgerDir(), cfg.datasetId());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            all =
                    BudgetLedgerIo.readTeachersTopic(
                            client, cfg.kafka().topics().name(Topic.BUDGET_LEDGER), READ_TIMEOUT);
        }
        return all.stream().filter(t -> t.dataset().equals(cfg.datasetId())).toList();
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
                return BudgetLedgerIo.pseudonymSecretLocal(cfg.ledgerDir(), cfg.datasetId());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return BudgetLedgerIo.pseudonymSecretTopic(
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
     * The composition of the dataset's runs other than {@code runId}. A {@code fresh} run (not a
     * resume) whose run id the ledger already holds is refused with {@link RunIdInUseException}:
     * its curve would merge with the earlier run's entry and the earlier run would drop out of the
     * prior ({@link DatasetPrior#usesRunId}).
     */
    public DatasetPrior prior(String runId, boolean fresh) {
        List<BudgetRecord> records = records();
        if (fresh && DatasetPrior.usesRunId(cfg.datasetId(), records, runId)) {
            throw new RunIdInUseException(
                    "run id '"
                            + runId
                            + "' is already in the budget ledger of dataset '"
                            + cfg.datasetId()
                            + "'; a fresh run cannot reuse it (only --from-savepoint continues a"
                            + " run under its id; see ./hotpate ledger show --dataset "
                            + cfg.datasetId()
                            + ")");
        }
        return DatasetPrior.compose(cfg.datasetId(), records, runId);
    }

    /**
     * Throws {@link NoBudgetLeftException}, naming the dataset, when {@code prior} leaves no room
     * for this run: the earlier runs composed with this run spending its whole budget on worst-case
     * releases would pass {@code budget.dataset-epsilon} ({@link RunBudget#hasRoom}).
     */
    public void requireRoom(DatasetPrior prior) {
        if (Double.isInfinite(cfg.budget().datasetEpsilon())) {
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

    @Override
    public void close() {
        if (lock != null) {
            try {
                lock.close();
            } catch (IOException ignored) {
                // the lock goes with the process anyway
            }
        }
    }
}
