package org.hotpate.teachers;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.hotpate.core.randomness.IndexedTeacherKeys;
import org.hotpate.core.randomness.SharedRandomness;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.Sampler;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;

/**
 * How a simulated teacher answers a generation step, in each of the four forms of the {@code
 * distributions} topic (pure: no Kafka, no Flink; the stream worker puts the answers on the wire).
 * Simulated teachers answer every step alike, so their (truncated) payloads are built once.
 */
public final class TeacherAnswers {
    /** The answer forms (the payload union of schemas/teacher_distribution.avsc). */
    public enum Form {
        SPARSE,
        TOP_K_LOGITS,
        MODEL_VOTE,
        RAW_SAMPLES
    }

    /**
     * One answer. SPARSE: tokens + probabilities; TOP_K_LOGITS: tokens + logits (log-probabilities,
     * temperature 1, log-normaliser 0 so the unsent tail abstains); MODEL_VOTE: {@code vote} (token
     * or -1) with {@code randomnessVersion}; RAW_SAMPLES: sampled tokens.
     */
    public record Answer(
            Form form,
            int[] tokens,
            double[] values,
            double temperature,
            double logNormalizer,
            int vote,
            int randomnessVersion) {}

    private static final int[] NO_TOKENS = new int[0];
    private static final double[] NO_VALUES = new double[0];

    private final SimulatedTeachers teachers;
    private final Form form;
    private final int topK;
    private final int samples;
    private final Sampler sampler;
    private final Map<Integer, Answer> cached = new HashMap<>();
    private final IndexedTeacherKeys keys = new IndexedTeacherKeys();

    /**
     * {@code topK} 0 = all tokens; {@code samples} for RAW_SAMPLES; {@code sampler} for MODEL_VOTE.
     */
    public TeacherAnswers(
            SimulatedTeachers teachers, Form form, int topK, int samples, Sampler sampler) {
        this.teachers = teachers;
        this.form = form;
        this.topK = topK;
        this.samples = samples;
        this.sampler = sampler;
    }

    public Form form() {
        return form;
    }

    /**
     * The shared randomness of the step with this public seed, tabulated only over the ids these
     * teachers can list (the same values as {@link StepRandomness#forStep}; a shifted ensemble
     * reads 1 050 of a Llama vocabulary's 128 256 entries, so drawing the rest is wasted).
     */
    public StepRandomness stepRandomness(long publicSeed, int vocabularySize) {
        int first = teachers.simulated() ? Math.min(teachers.firstToken(), vocabularySize) : 0;
        return StepRandomness.forTokens(publicSeed, first, vocabularySize);
    }

    /**
     * Teacher i's answer to the step with this public seed; {@code rnd} is the step's shared
     * randomness (needed only for MODEL_VOTE).
     */
    public Answer answer(int i, long publicSeed, StepRandomness rnd) {
        if (form == Form.MODEL_VOTE) {
            // The coordinated vote from the ranked form: the same vote, a fraction of the reads.
            int vote =
                    sampler == Samplers.coordinated()
                            ? teachers.ranked(i).coordinatedVote(rnd, keys.of(i))
                            : sampler.vote(teachers.teacher(i), rnd, keys.of(i));
            return new Answer(
                    form, NO_TOKENS, NO_VALUES, 1.0, Double.NaN, vote, SharedRandomness.VERSION);
        }
        SparseProbabilities p = teachers.teacher(i);
        switch (form) {
            case RAW_SAMPLES:
                return new Answer(
                        form,
                        sample(p, new SplittableRandom(publicSeed ^ keys.of(i))),
                        new double[0],
                        1.0,
                        Double.NaN,
                        -1,
                        0);
            default:
                return cached.computeIfAbsent(i, t -> truncated(p));
        }
    }

    /** The teacher's own sampling randomness (an LLM API would draw it privately). */
    private int[] sample(SparseProbabilities p, SplittableRandom rng) {
        int[] out = new int[samples];
        int n = 0;
        for (int k = 0; k < out.length; k++) {
            double u = rng.nextDouble();
            double acc = 0;
            for (int j = 0; j < p.size(); j++) {
                acc += p.probAt(j);
                if (u < acc) {
                    out[n++] = p.tokenAt(j);
                    break;
                }
            }
        }
        return n == 0 ? new int[] {p.tokenAt(0)} : Arrays.copyOf(out, n);
    }

    private Answer truncated(SparseProbabilities p) {
        int[] order = topK(p, topK);
        int[] tokens = new int[order.length];
        double[] values = new double[order.length];
        for (int j = 0; j < order.length; j++) {
            tokens[j] = p.tokenAt(order[j]);
            values[j] =
                    form == Form.TOP_K_LOGITS ? Math.log(p.probAt(order[j])) : p.probAt(order[j]);
        }
        return new Answer(
                form, tokens, values, 1.0, form == Form.TOP_K_LOGITS ? 0.0 : Double.NaN, -1, 0);
    }

    private static int[] topK(SparseProbabilities p, int k) {
        Integer[] idx = new Integer[p.size()];
        for (int j = 0; j < idx.length; j++) {
            idx[j] = j;
        }
        if (k <= 0 || k >= idx.length) {
            return Arrays.stream(idx)
                    .mapToInt(Integer::intValue)
                    .filter(j -> p.probAt(j) > 0)
                    .toArray();
        }
        Arrays.sort(idx, (a, b) -> Double.compare(p.probAt(b), p.probAt(a)));
        return Arrays.stream(idx, 0, k)
                .mapToInt(Integer::intValue)
                .filter(j -> p.probAt(j) > 0)
                .toArray();
    }
}
