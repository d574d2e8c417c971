package org.hotpate.stream.driver;

import java.nio.file.Path;
import java.util.Properties;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.junit.jupiter.api.io.TempDir;

/** {@link LedgerStoreContract} on the local ledger: files in a temporary directory. */
class LocalLedgerStoreTest extends LedgerStoreContract {
    @TempDir Path dir;

    @Override
    JobConfig spec(String dataset) {
        return JobSpec.parse(
                "budget: {epsilon: 20.0, delta: 1.0e-6, dataset: %s, ledger: local, ledger-dir: '%s'}\n"
                        .formatted(dataset, dir),
                "contract");
    }

    @Override
    Properties client() {
        return null;
    }

    @Override
    String storeName() {
        return "local";
    }
}
