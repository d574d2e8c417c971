package org.hotpate.stream;

import java.io.Serializable;
import org.hotpate.core.noise.KeyedNoiseSource;
import org.hotpate.protocol.DatasetPrior;

/**
 * What the driver hands a run's job besides its config: the secret that keys the run's DP noise (32
 * bytes from SecureRandom, drawn once per run) and the composition of every earlier run on the
 * run's dataset (from the durable budget ledger). Both travel in the job graph; the secret is also
 * kept in the reducer's operator state. Job graph and checkpoints are therefore operator-only
 * (docs/threat-model.md). {@link #toString()} never prints the secret.
 */
public record RunContext(
        byte[] noiseSecret,
        DatasetPrior prior,
        java.util.Map<Long, Long> teacherCharges,
        java.util.Map<Long, Long> teacherVersions,
        org.hotpate.protocol.TeacherIds teacherIds,
        String ledgerAccount)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    public RunContext {
        if (noiseSecret == null || noiseSecret.length != KeyedNoiseSource.SECRET_BYTES) {
            throw new IllegalArgumentException("the noise secret must be 32 bytes");
        }
        teacherCharges = new java.util.HashMap<>(teacherCharges);
        teacherVersions = new java.util.HashMap<>(teacherVersions);
        teacherIds = teacherIds == null ? org.hotpate.protocol.TeacherIds.IDENTITY : teacherIds;
    }

    /**
     * A fresh secret, the dataset's earlier runs and each teacher's charges on the dataset from
     * earlier runs (per-teacher schemes; the durable ledger's {@code <dataset>/teacher/<id>}:
     * charges + pending), its entry versions unknown (0).
     */
    public static RunContext of(DatasetPrior prior, java.util.Map<Long, Long> teacherCharges) {
        return new RunContext(
                KeyedNoiseSource.newSecret(),
                prior,
                teacherCharges,
                java.util.Map.of(),
                null,
                null);
    }

    @Override
    public String toString() {
        return "RunContext[dataset=" + prior.dataset() + ", earlierRuns=" + prior.runs() + "]";
    }
}
