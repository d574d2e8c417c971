package org.hotpate.stream.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.model.BudgetRecord;
import org.hotpate.protocol.BudgetPlan;
import org.hotpate.protocol.BudgetTerms;
import org.hotpate.protocol.DatasetPrior;
import org.hotpate.protocol.RunBudget;
import org.hotpate.stream.config.JobConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link LedgerStore} keeps (docs/architecture.md "Adding a ledger store"), run against
 * each store by a subclass on a real store (a temporary directory, an in-JVM KRaft broker): the
 * driver's {@link DatasetLedger} over the store chosen by {@link LedgerStores} from the spec. Each
 * test uses a fresh dataset.
 */
abstract class LedgerStoreContract {
    private static final AtomicInteger DATASETS = new AtomicInteger();
    private static final PrivacyEvent RELEASE = new PrivacyEvent.Gaussian(4.0, Math.sqrt(2));

    /** The spec of a run on {@code dataset} whose {@code budget.ledger} is the store under test. */
    abstract JobConfig spec(String dataset);

    /** The job principal's Kafka client of the spec's run (null: none). */
    abstract Properties client();

    /** The spec's name of the store under test. */
    abstract String storeName();

    private JobConfig cfg;

    @BeforeEach
    void freshDataset() {
        cfg = spec("C" + DATASETS.incrementAndGet() + "-" + System.nanoTime());
    }

    private DatasetLedger open() {
        return DatasetLedger.open(cfg, client());
    }

    /** Run {@code account}'s entry after {@code releases} admitted releases. */
    private BudgetRecord entry(String account, long releases) {
        RunBudget b =
                new BudgetPlan(new BudgetTerms(20.0, 1e-6, Double.POSITIVE_INFINITY), RELEASE)
                        .start(DatasetPrior.empty(cfg.datasetId()));
        for (int i = 0; i < releases; i++) {
            b.admit(RELEASE);
        }
        return b.record(account, true, "gaussian", releases, 1000 + releases);
    }

    private static long releases(List<BudgetRecord> runs, String account) {
        return runs.stream()
                .filter(r -> r.runId().equals(account))
                .mapToLong(BudgetRecord::releases)
                .findFirst()
                .orElse(-1);
    }

    @Test
    void theSpecChoosesThisStore() {
        assertThat(LedgerStores.of(cfg, client()).name()).isEqualTo(storeName());
    }

    /** Every entry written is read back, one per account, each at its largest version. */
    @Test
    void entriesWrittenAreReadBackAtTheirLargestVersion() {
        try (DatasetLedger ledger = open()) {
            ledger.acquire("r-a");
            ledger.writeEntry(entry("r-a", 3));
            ledger.writeEntry(entry("r-b", 1));
            ledger.writeEntry(entry("r-a", 5));
            List<BudgetRecord> runs = ledger.records();
            assertThat(runs)
                    .extracting(BudgetRecord::runId)
                    .containsExactlyInAnyOrder("r-a", "r-b");
            assertThat(releases(runs, "r-a")).isEqualTo(5);
            assertThat(releases(runs, "r-b")).isEqualTo(1);
            assertThat(ledger.entry("r-a").releases()).isEqualTo(5);
        }
    }

    /**
     * A lower version written later (a replay from an earlier checkpoint) never lowers what the
     * store holds: a charge, once durable, stays.
     */
    @Test
    void aReplayedLowerVersionNeverLowersTheEntry() {
        try (DatasetLedger ledger = open()) {
            ledger.acquire("r-a");
            ledger.writeEntry(entry("r-a", 6));
            ledger.writeEntry(entry("r-a", 2)); // the replay of an earlier checkpoint
            assertThat(ledger.entry("r-a").releases()).isEqualTo(6);
        }
    }

    /**
     * The same entry written twice (a retried write, a replay) is charged once: the dataset's ε is
     * that of one run, not two.
     */
    @Test
    void aDuplicateWriteIsChargedOnce() {
        double once;
        try (DatasetLedger ledger = open()) {
            ledger.acquire("r-a");
            ledger.writeEntry(entry("r-a", 4));
            once = ledger.datasetEpsilon();
            ledger.writeEntry(entry("r-a", 4));
            ledger.writeEntry(entry("r-a", 4));
            assertThat(ledger.records()).hasSize(1);
            assertThat(ledger.prior(null).runs()).isEqualTo(1);
            assertThat(ledger.prior(null).releases()).isEqualTo(4);
            assertThat(ledger.datasetEpsilon()).isEqualTo(once);
        }
        assertThat(once).isPositive().isFinite();
    }

    /**
     * A restarted driver (the store opened afresh) reads the same entries, the same dataset ε, the
     * same finished marks and the same pseudonym secret.
     */
    @Test
    void aRestartReadsTheSameTotals() {
        double before;
        byte[] secret;
        try (DatasetLedger ledger = open()) {
            ledger.acquire("r-a");
            ledger.writeEntry(entry("r-a", 3));
            ledger.writeEntry(entry("r-b", 7));
            ledger.markFinished("r-a");
            before = ledger.datasetEpsilon();
            secret = ledger.pseudonymSecret();
            assertThat(secret).hasSize(32);
            assertThat(ledger.pseudonymSecret()).isEqualTo(secret); // created once
        }
        try (DatasetLedger again = open()) {
            again.acquire("r-c");
            assertThat(again.datasetEpsilon()).isEqualTo(before);
            assertThat(releases(again.records(), "r-a")).isEqualTo(3);
            assertThat(releases(again.records(), "r-b")).isEqualTo(7);
            assertThat(again.state().finished().test("r-a")).isTrue();
            assertThat(again.state().finished().test("r-b")).isFalse();
            assertThat(again.pseudonymSecret()).isEqualTo(secret);
        }
    }

    /**
     * One authority per dataset: while a run holds the dataset, a second run is refused naming the
     * holder; once the holder lets go, the next run holds it.
     */
    @Test
    void aSecondRunIsRefusedWhileOneHoldsTheDataset() {
        DatasetLedger first = open();
        try {
            first.acquire("r-first");
            assertThat(first.state().held()).isTrue();
            assertThat(first.leaseLost()).isNull();
            assertThatThrownBy(
                            () -> {
                                try (DatasetLedger second = open()) {
                                    second.acquire("r-second");
                                }
                            })
                    .isInstanceOf(DatasetInUseException.class)
                    .hasMessageContaining(cfg.datasetId());
        } finally {
            first.close();
        }
        try (DatasetLedger next = open()) {
            assertThat(next.state().held()).isFalse(); // not before its acquire
            next.acquire("r-next");
            assertThat(next.state().held()).isTrue();
        }
    }

    /** The operators' side of the store travels in the job graph. */
    @Test
    void theSinkIsSerializable() throws Exception {
        var sink = LedgerStores.of(cfg, client()).sink();
        var bytes = new java.io.ByteArrayOutputStream();
        try (var out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(sink);
        }
        try (var in =
                new java.io.ObjectInputStream(
                        new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            assertThat(in.readObject()).isEqualTo(sink);
        }
    }
}
