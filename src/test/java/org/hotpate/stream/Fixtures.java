package org.hotpate.stream;

import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.PayloadKind;
import org.hotpate.model.Vote;
import org.hotpate.protocol.PublicModel;
import org.hotpate.protocol.RunShape;

/** Small builders shared by the stream tests. */
public final class Fixtures {
    private Fixtures() {}

    public static final String RUN = "run-1";
    public static final int VOCAB = 10;

    /** The shape of the fixtures' run: seed 42, 10 tokens, 1 s deadline, wide bounds. */
    public static final RunShape SHAPE =
            new RunShape(
                    RUN,
                    "ens",
                    42,
                    VOCAB,
                    1000,
                    100,
                    100,
                    100,
                    org.hotpate.protocol.EarlyStop.NONE);

    /** The public model of an external ensemble over the fixtures' vocabulary. */
    public static final PublicModel PUBLIC_MODEL =
            () -> org.hotpate.teachers.SimulatedTeachers.external(VOCAB).publicModel();

    /** Teacher {@code teacher}'s vote {@code token} at a step of the fixtures' run. */
    public static Vote vote(long teacher, long seq, int step, int attempt, int token) {
        return new Vote(RUN, seq, step, attempt, teacher, token);
    }

    public static GenerationStep step(long seq, int step, int attempt) {
        return step(seq, step, attempt, 0);
    }

    public static GenerationStep step(long seq, int step, int attempt, long issuedAt) {
        return new GenerationStep(
                RUN,
                "ens",
                seq,
                step,
                attempt,
                new int[0],
                SHAPE.seed(seq, step, attempt),
                RunShape.RANDOMNESS_VERSION,
                VOCAB,
                issuedAt,
                issuedAt + 1000);
    }

    /** A teacher that puts all its mass on one token (its vote is that token under any sampler). */
    public static Distribution certain(long teacher, long seq, int step, int attempt, int token) {
        return sparse(teacher, seq, step, attempt, new int[] {token}, new double[] {1.0});
    }

    public static Distribution sparse(
            long teacher, long seq, int step, int attempt, int[] tokens, double[] probs) {
        return new Distribution(
                RUN,
                seq,
                step,
                attempt,
                teacher,
                PayloadKind.SPARSE,
                tokens,
                probs,
                1.0,
                Double.NaN,
                -1,
                0,
                0);
    }

    public static Distribution modelVote(
            long teacher, long seq, int step, int attempt, int token, int version) {
        return new Distribution(
                RUN,
                seq,
                step,
                attempt,
                teacher,
                PayloadKind.MODEL_VOTE,
                new int[0],
                new double[0],
                1.0,
                Double.NaN,
                token,
                version,
                0);
    }
}
