package org.hotpate.protocol;

import org.hotpate.core.noise.KeyedNoiseSource;
import org.hotpate.core.noise.UniformSource;

/**
 * The secret-keyed DP noise of one step charged to ledger account {@code account} (the run id, or a
 * resumed fork's {@code <runId>~r<k>}; core {@link KeyedNoiseSource}): within one account a step
 * re-closed after a failure draws the same noise and so releases the same answer; two accounts (two
 * branches resumed from one snapshot, which restore the same secret) draw independent noise at the
 * same step keys (issue 30 item 1).
 */
public final class StepNoise {
    private StepNoise() {}

    public static UniformSource of(byte[] secret, String account, StepId step) {
        return KeyedNoiseSource.forStep(
                secret, account, step.runId(), step.sequenceId(), step.step(), step.attempt());
    }
}
