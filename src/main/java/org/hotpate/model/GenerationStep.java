package org.hotpate.model;

/**
 * One generation step (see schemas/generation_step.avsc): the public question the teachers answer.
 * Flink serializes it as a POJO (record); arrays are primitive so no Kryo fallback is needed.
 * {@code prompt} holds the token ids of the sequence's public prompt (apart from the generated
 * {@code prefix}); {@code label} is the sequence's public label ({@code ""} = none).
 */
public record GenerationStep(
        String runId,
        String ensembleId,
        long sequenceId,
        int step,
        int attempt,
        int[] prefix,
        long publicSeed,
        int randomnessVersion,
        int vocabularySize,
        long issuedAtMs,
        long deadlineMs,
        int[] prompt,
        String label)
        implements StepRef {

    /** A step without prompt or label (simulated ensembles). */
    public GenerationStep(
            String runId,
            String ensembleId,
            long sequenceId,
            int step,
            int attempt,
            int[] prefix,
            long publicSeed,
            int randomnessVersion,
            int vocabularySize,
            long issuedAtMs,
            long deadlineMs) {
        this(
                runId,
                ensembleId,
                sequenceId,
                step,
                attempt,
                prefix,
                publicSeed,
                randomnessVersion,
                vocabularySize,
                issuedAtMs,
                deadlineMs,
                new int[0],
                "");
    }

    /** What the teachers condition on: prompt ++ prefix. */
    public int[] history() {
        int[] h = new int[prompt.length + prefix.length];
        System.arraycopy(prompt, 0, h, 0, prompt.length);
        System.arraycopy(prefix, 0, h, prompt.length, prefix.length);
        return h;
    }
}
