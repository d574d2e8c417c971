package org.hotpate.stream.driver;

import java.util.Map;
import java.util.Properties;
import java.util.function.BiFunction;
import org.hotpate.stream.config.JobConfig;

/**
 * The ledger stores by their spec name ({@code budget.ledger}): the one place that turns the spec's
 * choice into a {@link LedgerStore}. A new store is a class and one line here (docs/architecture.md
 * "Adding a ledger store").
 */
public final class LedgerStores {
    private static final Map<String, BiFunction<JobConfig, Properties, LedgerStore>> STORES =
            Map.of(
                    "local", LocalLedgerStore::of,
                    "kafka", KafkaLedgerStore::of);

    private LedgerStores() {}

    /**
     * The store of {@code cfg}'s ledger; {@code client}: the job principal's Kafka client
     * properties (null before the run's broker is known; a store {@link LedgerStore#onRunBroker}
     * then opens nothing).
     */
    public static LedgerStore of(JobConfig cfg, Properties client) {
        String name = cfg.ledgerMode().label();
        BiFunction<JobConfig, Properties, LedgerStore> store = STORES.get(name);
        if (store == null) {
            throw new IllegalArgumentException(
                    "budget.ledger: no ledger store named '" + name + "'");
        }
        return store.apply(cfg, client);
    }
}
