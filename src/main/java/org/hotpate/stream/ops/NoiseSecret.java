package org.hotpate.stream.ops;

import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.FunctionInitializationContext;

/**
 * The run's noise secret in the reducer's union operator state {@code noise-secret}: the secret in
 * the job graph on a fresh start, the stored one after a restore — so a job resubmitted from a
 * checkpoint or savepoint with a freshly drawn secret still re-derives the same noise, and a step
 * re-closed after a failure releases the same answer. Operator-only.
 */
final class NoiseSecret {
    private ListState<byte[]> state;
    private byte[] secret;

    /** The secret to use: {@code fresh}, unless the restored state holds one. */
    byte[] initialize(FunctionInitializationContext ctx, byte[] fresh) throws Exception {
        state =
                ctx.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "noise-secret",
                                        PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        secret = fresh;
        if (ctx.isRestored()) {
            for (byte[] s : state.get()) {
                secret = s; // every subtask stored the same secret
                break;
            }
        }
        return secret;
    }

    void snapshot() throws Exception {
        state.update(List.of(secret));
    }
}
