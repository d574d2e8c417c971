package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.core.randomness.SharedRandomness;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.StepRef;

/**
 * The public shape of a run: its id, ensemble, public run seed, vocabulary, step deadline and the
 * bounds of its steps (sequences, positions, attempts) — and the rules that follow from it alone:
 * the one derivation of a step's public seed ({@link #seed}), whether a step or an answer lies
 * within the run ({@link #contains}), and whether a step on the steps topic is one this run issued
 * ({@link #problem}).
 *
 * <p>Every step the run issues carries exactly {@link #seed} and {@link #RANDOMNESS_VERSION}, so an
 * answer's vote can be computed wherever it lands (at the source) without the step record, and a
 * step with any other seed, version, vocabulary or ensemble is not the run's own.
 *
 * @param attempts attempts per position: the ⊥ policy's attempts times (re-issues + 1)
 * @param earlyStop {@code generation.min-tokens} and the public stop tokens ({@link EarlyStop})
 */
public record RunShape(
        String runId,
        String ensembleId,
        long runSeed,
        int vocabularySize,
        long stepDeadlineMs,
        int sequences,
        int maxSteps,
        int attempts,
        EarlyStop earlyStop)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The version of the public-randomness PRF every step of this version carries. */
    public static final int RANDOMNESS_VERSION = SharedRandomness.VERSION;

    public RunShape {
        checkNotNull("runId", runId);
        checkNotNull("ensembleId", ensembleId);
        checkPositive("vocabularySize", vocabularySize);
        checkPositive("stepDeadlineMs", stepDeadlineMs);
        checkPositive("sequences", sequences);
        checkPositive("maxSteps", maxSteps);
        checkPositive("attempts", attempts);
        checkNotNull("earlyStop", earlyStop);
    }

    /**
     * The public seed of a step of this run: {@code SeedDerivation.stepSeed(runSeed,
     * "<runId>/<sequence>", position, attempt)} (docs/shared-randomness.md §4). The run id makes a
     * re-run of the same spec draw fresh shared randomness. Never used for DP noise.
     */
    public long seed(long sequenceId, int step, int attempt) {
        return SeedDerivation.stepSeed(runSeed, SequenceId.keyOf(runId, sequenceId), step, attempt);
    }

    /** The public seed of the step {@code s} belongs to. */
    public long seed(StepRef s) {
        return seed(s.sequenceId(), s.step(), s.attempt());
    }

    /** Whether {@code s} names a step within the run's bounds (sequence, position, attempt). */
    public boolean contains(StepRef s) {
        return s.sequenceId() >= 0
                && s.sequenceId() < sequences
                && s.step() >= 0
                && s.step() < maxSteps
                && s.attempt() >= 0
                && s.attempt() < attempts;
    }

    /**
     * The step this run issues at (sequence, position, attempt): its prefix, the sequence's public
     * prompt and label, the derived seed and version, and its deadline from {@code nowMs}.
     */
    public GenerationStep issue(
            long sequenceId,
            int step,
            int attempt,
            int[] prefix,
            int[] prompt,
            String label,
            long nowMs) {
        checkArgument(prefix.length == step, "prefix length must equal the position " + step);
        return new GenerationStep(
                runId,
                ensembleId,
                sequenceId,
                step,
                attempt,
                prefix,
                seed(sequenceId, step, attempt),
                RANDOMNESS_VERSION,
                vocabularySize,
                nowMs,
                nowMs + stepDeadlineMs,
                prompt,
                label);
    }

    /**
     * Why {@code s} (a step of this run id) is not a step this run issued, or null: another
     * ensemble, randomness version or vocabulary size, a sequence, position or attempt out of
     * range, a prefix that does not fit the position or the vocabulary, or a public seed other than
     * the one the run derives.
     */
    public String problem(GenerationStep s) {
        if (!ensembleId.equals(s.ensembleId())) {
            return "ensemble " + s.ensembleId() + " is not the run's ensemble " + ensembleId;
        }
        if (s.randomnessVersion() != RANDOMNESS_VERSION) {
            return "randomness version "
                    + s.randomnessVersion()
                    + " is not the run's "
                    + RANDOMNESS_VERSION;
        }
        if (s.vocabularySize() != vocabularySize) {
            return "vocabulary size " + s.vocabularySize() + " is not the run's " + vocabularySize;
        }
        if (s.sequenceId() < 0 || s.sequenceId() >= sequences) {
            return "sequence " + s.sequenceId() + " is not in 0.." + (sequences - 1);
        }
        if (s.step() < 0 || s.step() >= maxSteps) {
            return "position " + s.step() + " is not in 0.." + (maxSteps - 1);
        }
        if (s.attempt() < 0 || s.attempt() >= attempts) {
            return "attempt " + s.attempt() + " is not in 0.." + (attempts - 1);
        }
        if (s.prefix() == null || s.prefix().length != s.step()) {
            return "prefix length "
                    + (s.prefix() == null ? -1 : s.prefix().length)
                    + " != position";
        }
        for (int t : s.prefix()) {
            if (t < 0 || t >= vocabularySize) {
                return "prefix token " + t + " is outside the vocabulary";
            }
        }
        long expected = seed(s);
        if (s.publicSeed() != expected) {
            return "public seed "
                    + Long.toHexString(s.publicSeed())
                    + " is not the one the run derives ("
                    + Long.toHexString(expected)
                    + ")";
        }
        return null;
    }
}
