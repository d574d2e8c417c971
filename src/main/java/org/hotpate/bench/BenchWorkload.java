package org.hotpate.bench;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.io.AvroWire;
import org.hotpate.model.GenerationStep;
import org.hotpate.stream.OperatorValues;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;
import org.hotpate.stream.driver.TeacherWorker;
import org.hotpate.teachers.PlanetZEnsemble;
import org.hotpate.teachers.SimulatedTeachers;
import org.hotpate.teachers.TeacherAnswers;

/**
 * What {@code ./hotpate bench pipeline} sends: Planet-Z teachers (WORKLOADS.md, k = 20) seen
 * through a Llama-3 vocabulary of 128 256 tokens (ids offset so the 1 050 Planet-Z tokens are the
 * top ids, 3-byte varints on the wire), answering as
 *
 * <ul>
 *   <li>{@code sparse-1kb}: their 80 most likely (token, probability) pairs — ~1 KB
 *       single-object-encoded {@code TeacherDistribution};
 *   <li>{@code sparse-8kb}: their 740 most likely pairs — ~8 KB;
 *   <li>{@code model-vote}: the coordinated vote each teacher computes itself from its full
 *       distribution with the step's shared randomness ({@code ModelVote}, ~60 bytes).
 * </ul>
 *
 * The job spec is the public interface the benchmark drives: an external ensemble (the benchmark
 * runs the {@link TeacherWorker} itself), GNMax with σ = 40 and an ε budget of 10⁶ (a DP mechanism
 * whose budget no benchmark window can exhaust, and which never releases ⊥, so every step advances
 * a position), step deadlines far beyond any queueing delay (steps close when all n answered).
 */
public enum BenchWorkload {
    SPARSE_1KB("sparse-1kb", JobConfig.Payload.SPARSE, 80),
    SPARSE_8KB("sparse-8kb", JobConfig.Payload.SPARSE, 740),
    MODEL_VOTE("model-vote", JobConfig.Payload.MODEL_VOTE, 0);

    /** Llama-3's vocabulary size. */
    public static final int VOCABULARY = 128_256;

    /** Distinct simulated teachers; teacher i answers as teacher i mod this (memory bound). */
    static final int DISTINCT_TEACHERS = 10_000;

    static final long STEP_DEADLINE_MS = 600_000;

    private final String cliName;
    private final JobConfig.Payload payload;
    private final int topK;

    BenchWorkload(String cliName, JobConfig.Payload payload, int topK) {
        this.cliName = cliName;
        this.payload = payload;
        this.topK = topK;
    }

    public String cliName() {
        return cliName;
    }

    /** The workload named on the command line ({@code sparse-1kb|sparse-8kb|model-vote}). */
    public static BenchWorkload byName(String name) {
        for (BenchWorkload w : values()) {
            if (w.cliName.equals(name)) {
                return w;
            }
        }
        throw new IllegalArgumentException(
                "payload must be one of sparse-1kb, sparse-8kb, model-vote, records; got '"
                        + name
                        + "'");
    }

    /** The shape of one benchmark job. */
    public record Shape(
            int teachers, int concurrency, long checkpointMs, int parallelism, int partitions) {}

    /** The job spec (YAML) of one benchmark run; topics are prefixed with {@code tag}. */
    public String jobSpec(String tag, Shape s, String outputDir) {
        return String.format(
                        Locale.ROOT,
                        """
                        name: bench-%s
                        ensemble: {id: bench, teachers: %d, kind: homogeneous, source: external,
                                   payload: %s, top-k: %d, vocabulary: %d}
                        """,
                        tag,
                        s.teachers(),
                        payload.name().toLowerCase(Locale.ROOT).replace('_', '-'),
                        topK,
                        VOCABULARY)
                + sharedSpec(tag, s, outputDir);
    }

    /**
     * What every benchmark spec shares, the records workload's too: coordinated sampling, GNMax σ
     * 40 with a budget no window exhausts, the step deadline, embedded Kafka with topics prefixed
     * by {@code tag}, the shape's Flink settings, the output dir.
     */
    static String sharedSpec(String tag, Shape s, String outputDir) {
        String topics =
                Topic.JOB_TOPICS.stream()
                        .map(t -> t.id() + ": bench-" + tag + "." + t.id())
                        .collect(java.util.stream.Collectors.joining(", "));
        return String.format(
                Locale.ROOT,
                """
                sampler: {type: coordinated, seed: 42}
                mechanism: {name: gnmax, params: {sigma: 40}}
                budget: {epsilon: 1.0e6, delta: 1.0e-6}
                generation: {sequences: 2000000000, concurrency: %d, max-steps: 64,
                             on-fail: resample, max-attempts: 3, step-deadline-ms: %d}
                kafka: {mode: embedded, partitions: %d, topics: {%s}}
                flink: {mode: embedded, parallelism: %d, checkpoint-interval-ms: %d}
                output: {dir: '%s', timeout-s: 86400}
                """,
                s.concurrency(),
                STEP_DEADLINE_MS,
                s.partitions(),
                topics,
                s.parallelism(),
                s.checkpointMs(),
                outputDir.replace("'", "''"));
    }

    /** The validated config of that spec (through the job's own spec parser). */
    public JobConfig config(String tag, Shape s, String outputDir) {
        return JobSpec.parse(jobSpec(tag, s, outputDir), "bench-" + tag);
    }

    /** How the benchmark's teachers answer. */
    public TeacherAnswers answers() {
        SimulatedTeachers planetZ =
                SimulatedTeachers.planetZ(1, 20, DISTINCT_TEACHERS)
                        .shifted(VOCABULARY - PlanetZEnsemble.VOCABULARY_SIZE, DISTINCT_TEACHERS);
        return new TeacherAnswers(
                planetZ,
                TeacherAnswers.Form.valueOf(payload.name()),
                topK,
                32,
                Samplers.coordinated());
    }

    /**
     * {@code count} encoded answers of teachers 0..count-1 to one step of the run {@code runId} of
     * {@code cfg} — the exact bytes the worker sends (for the Kafka ceiling). Element 0 of each
     * pair is the key, element 1 the value.
     */
    public byte[][][] encodedAnswers(JobConfig cfg, String runId, int count) {
        TeacherAnswers answers = answers();
        TeacherWorker encoder =
                new TeacherWorker(
                        new TeacherWorker.Settings("", "", "", "bench", runId, 0, count), answers);
        GenerationStep step =
                OperatorValues.stepFactory(cfg, runId)
                        .step(7, 3, 0, new int[] {1, 2, 3}, System.currentTimeMillis());
        StepRandomness rnd = answers.stepRandomness(step.publicSeed(), step.vocabularySize());
        byte[][][] out = new byte[count][][];
        for (int i = 0; i < count; i++) {
            out[i] =
                    new byte[][] {
                        Integer.toString(i).getBytes(StandardCharsets.UTF_8),
                        AvroWire.encode(encoder.distribution(step, i, rnd))
                    };
        }
        return out;
    }
}
