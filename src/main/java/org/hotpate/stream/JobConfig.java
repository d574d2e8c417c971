package org.hotpate.stream;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkOpenUnit;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;
import org.hotpate.teachers.SimulatedTeachers;

/**
 * The one immutable, validated configuration of a run, built from a job spec by {@link JobSpec}
 * (every key, its type, default and description are listed there and in docs/job-spec.md).
 * Serializable: operators receive the parts they need.
 */
public record JobConfig(
        String name,
        Ensemble ensemble,
        Sampler sampler,
        Mechanism mechanism,
        Budget budget,
        Generation generation,
        Kafka kafka,
        Flink flink,
        Output output)
        implements Serializable {

    public JobConfig {
        checkNotNull("name", name);
        checkArgument(
                name.matches("[A-Za-z0-9._-]+"),
                "name must match [A-Za-z0-9._-]+; got '" + name + "'");
        checkArgument(
                budget.perTeacher() == 0 || ensemble.heterogeneous(),
                "budget.per-teacher needs ensemble.kind: heterogeneous; got "
                        + budget.perTeacher()
                        + " for a homogeneous ensemble");
    }

    public enum TeacherSource {
        PLANET_Z,
        ALPHA_MIXTURE,
        EXTERNAL
    }

    public enum Payload {
        SPARSE,
        TOP_K_LOGITS,
        MODEL_VOTE,
        RAW_SAMPLES
    }

    public enum FailPolicy {
        RESAMPLE,
        FALLBACK,
        STOP
    }

    /**
     * The teacher ensemble. {@code k} = shared numbers (planet-z) or support of s (alpha-mixture).
     */
    public record Ensemble(
            String id,
            int teachers,
            boolean heterogeneous,
            TeacherSource source,
            int k,
            double alpha,
            long seed,
            Payload payload,
            int topK,
            int samples,
            int vocabularySize)
            implements Serializable {
        public Ensemble {
            checkArgument(
                    id.matches("[A-Za-z0-9._-]+"),
                    "ensemble.id must match [A-Za-z0-9._-]+; got '" + id + "'");
            checkPositive("ensemble.teachers", teachers);
            checkPositive("ensemble.k", k);
            checkOpenUnit("ensemble.alpha", alpha);
            checkArgument(topK >= 0, "ensemble.top-k must be >= 0; got " + topK);
            checkPositive("ensemble.samples", samples);
            checkPositive("ensemble.vocabulary", vocabularySize);
            if (source == TeacherSource.PLANET_Z) {
                checkArgument(k >= 1, "ensemble.k must be >= 1; got " + k);
                checkArgument(
                        vocabularySize >= 1050,
                        "ensemble.vocabulary must be >= 1050 for planet-z; got " + vocabularySize);
                checkArgument(k <= 900, "ensemble.k must be <= 900 for planet-z; got " + k);
            }
        }

        /** The built-in teachers (or, for external ensembles, just the public model). */
        public SimulatedTeachers simulated() {
            switch (source) {
                case PLANET_Z:
                    return SimulatedTeachers.planetZ(seed, k, teachers);
                case ALPHA_MIXTURE:
                    return SimulatedTeachers.alphaMixture(alpha, k, teachers);
                default:
                    return SimulatedTeachers.external(vocabularySize);
            }
        }

        /**
         * The vocabulary size steps announce: the configured one, or the α-mixture's m + n if
         * larger.
         */
        public int effectiveVocabulary() {
            return source == TeacherSource.ALPHA_MIXTURE
                    ? Math.max(vocabularySize, k + teachers)
                    : vocabularySize;
        }
    }

    /** Extra methods of Ensemble are below: see {@link Ensemble#simulated()}. */

    /** Coordinated (Hot PATE) or independent (cold) sampling, under the public run seed. */
    public record Sampler(boolean coordinated, long seed) implements Serializable {
        public String name() {
            return coordinated ? "coordinated" : "independent";
        }
    }

    /** An aggregation mechanism by name with its numeric parameters (checked by core). */
    public record Mechanism(String name, Map<String, Double> params) implements Serializable {
        public Mechanism {
            checkArgument(name != null && !name.isBlank(), "mechanism.name must not be empty");
            params = new TreeMap<>(params);
        }
    }

    /** The ensemble budget (ε, δ) and the per-teacher budget (0 = no per-teacher charging). */
    public record Budget(double epsilon, double delta, double perTeacher) implements Serializable {
        public Budget {
            checkPositive("budget.epsilon", epsilon);
            checkOpenUnit("budget.delta", delta);
            checkArgument(
                    perTeacher >= 0 && Double.isFinite(perTeacher),
                    "budget.per-teacher must be >= 0 and finite; got " + perTeacher);
        }
    }

    public record Generation(
            int sequences,
            int concurrency,
            int maxSteps,
            int stopToken,
            FailPolicy onFail,
            int maxAttempts,
            long stepDeadlineMs)
            implements Serializable {
        public Generation {
            checkPositive("generation.sequences", sequences);
            checkPositive("generation.concurrency", concurrency);
            checkPositive("generation.max-steps", maxSteps);
            checkArgument(stopToken >= -1, "generation.stop-token must be >= -1; got " + stopToken);
            checkPositive("generation.max-attempts", maxAttempts);
            checkPositive("generation.step-deadline-ms", stepDeadlineMs);
        }
    }

    /** Topic names used by the job and the teacher workers. */
    public record Topics(
            String steps,
            String distributions,
            String results,
            String records,
            String ledger,
            String rejected)
            implements Serializable {}

    public record Kafka(
            boolean embedded,
            String bootstrap,
            int partitions,
            Topics topics,
            long transactionTimeoutMs)
            implements Serializable {
        public Kafka {
            checkArgument(
                    embedded || (bootstrap != null && !bootstrap.isBlank()),
                    "kafka.bootstrap must be set when kafka.mode is external");
            checkPositive("kafka.partitions", partitions);
            checkPositive("kafka.transaction-timeout-ms", transactionTimeoutMs);
        }
    }

    /**
     * Where and how the job runs. {@code maxParallelism} is the job's number of key groups (the
     * largest parallelism it can be rescaled to from a checkpoint); {@code metricsPort} opens the
     * Prometheus reporter on the embedded MiniCluster (0: off).
     */
    public record Flink(
            boolean embedded,
            String host,
            int port,
            String jar,
            int parallelism,
            long checkpointIntervalMs,
            String stateDir,
            int maxParallelism,
            int metricsPort)
            implements Serializable {
        /** The defaults of the keys added for clusters: max parallelism 128, no metrics port. */
        public static final int DEFAULT_MAX_PARALLELISM = 128;

        public Flink {
            checkArgument(
                    embedded || (host != null && !host.isBlank()),
                    "flink.host must be set when flink.mode is remote");
            checkPositive("flink.port", port);
            checkPositive("flink.parallelism", parallelism);
            checkPositive("flink.checkpoint-interval-ms", checkpointIntervalMs);
            checkArgument(
                    maxParallelism >= parallelism && maxParallelism <= 32768,
                    "flink.max-parallelism must be >= flink.parallelism ("
                            + parallelism
                            + ") and <= 32768; got "
                            + maxParallelism);
            checkArgument(
                    metricsPort >= 0 && metricsPort <= 65535,
                    "flink.metrics-port must be in [0, 65535]; got " + metricsPort);
        }

        /** As the canonical constructor with the default max parallelism and no metrics port. */
        public Flink(
                boolean embedded,
                String host,
                int port,
                String jar,
                int parallelism,
                long checkpointIntervalMs,
                String stateDir) {
            this(
                    embedded,
                    host,
                    port,
                    jar,
                    parallelism,
                    checkpointIntervalMs,
                    stateDir,
                    Math.max(DEFAULT_MAX_PARALLELISM, parallelism),
                    0);
        }
    }

    public record Output(String dir, long timeoutSeconds) implements Serializable {
        public Output {
            checkPositive("output.timeout-s", timeoutSeconds);
        }
    }
}
