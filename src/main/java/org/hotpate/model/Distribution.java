package org.hotpate.model;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalDouble;
import org.hotpate.core.sampling.TeacherDistribution;

/**
 * A teacher's answer to a step, flattened so Flink serializes it as a POJO: {@code kind} says which
 * of {@code tokens}/{@code values}/{@code temperature}/{@code logNormalizer}/{@code voteToken} are
 * meaningful. Structural validation happens in {@link #toCore()} (core TeacherDistribution
 * constructors) so the vote operator can reject with the core message.
 *
 * @param values probabilities (SPARSE) or logits (TOP_K_LOGITS); empty otherwise
 * @param logNormalizer NaN when absent
 * @param voteToken MODEL_VOTE only: the token or -1 (abstain)
 * @param randomnessVersion MODEL_VOTE only: the PRF version the teacher used
 */
public record Distribution(
        String runId,
        long sequenceId,
        int step,
        int attempt,
        long teacherId,
        PayloadKind kind,
        int[] tokens,
        double[] values,
        double temperature,
        double logNormalizer,
        int voteToken,
        int randomnessVersion,
        long sentAtMs)
        implements StepRef {

    /** A sparse-probabilities answer. */
    public static Distribution sparse(
            String runId,
            long sequenceId,
            int step,
            int attempt,
            long teacherId,
            int[] tokens,
            double[] probs) {
        return new Distribution(
                runId,
                sequenceId,
                step,
                attempt,
                teacherId,
                PayloadKind.SPARSE,
                tokens,
                probs,
                1.0,
                Double.NaN,
                -1,
                0,
                System.currentTimeMillis());
    }

    /** A model-side vote. */
    public static Distribution modelVote(
            String runId,
            long sequenceId,
            int step,
            int attempt,
            long teacherId,
            int token,
            int randomnessVersion) {
        return modelVote(
                runId,
                sequenceId,
                step,
                attempt,
                teacherId,
                token,
                randomnessVersion,
                System.currentTimeMillis());
    }

    /** A model-side vote sent at {@code sentAtMs}. */
    public static Distribution modelVote(
            String runId,
            long sequenceId,
            int step,
            int attempt,
            long teacherId,
            int token,
            int randomnessVersion,
            long sentAtMs) {
        return new Distribution(
                runId,
                sequenceId,
                step,
                attempt,
                teacherId,
                PayloadKind.MODEL_VOTE,
                new int[0],
                new double[0],
                1.0,
                Double.NaN,
                token,
                randomnessVersion,
                sentAtMs);
    }

    /**
     * The core distribution this answer stands for (not for MODEL_VOTE). Throws
     * IllegalArgumentException with the core validation message when the payload is invalid.
     */
    public TeacherDistribution toCore() {
        switch (kind) {
            case SPARSE:
                return new TeacherDistribution.SparseProbabilities(tokens, values);
            case TOP_K_LOGITS:
                return new TeacherDistribution.TopKLogits(
                        tokens,
                        values,
                        temperature,
                        Double.isNaN(logNormalizer)
                                ? OptionalDouble.empty()
                                : OptionalDouble.of(logNormalizer));
            case RAW_SAMPLES:
                return empirical(tokens);
            default:
                throw new IllegalArgumentException("a " + kind + " answer carries no distribution");
        }
    }

    private static TeacherDistribution empirical(int[] samples) {
        if (samples == null || samples.length == 0) {
            throw new IllegalArgumentException("raw samples must not be empty");
        }
        Map<Integer, Integer> counts = new HashMap<>();
        for (int t : samples) {
            counts.merge(t, 1, Integer::sum);
        }
        int[] ts = new int[counts.size()];
        double[] ps = new double[counts.size()];
        int i = 0;
        for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
            ts[i] = e.getKey();
            ps[i++] = e.getValue() / (double) samples.length;
        }
        return new TeacherDistribution.SparseProbabilities(ts, ps);
    }
}
