package org.hotpate.stream.config;

import java.io.Serializable;
import java.util.Optional;
import org.hotpate.core.generation.FailPolicy;
import org.hotpate.protocol.BudgetTerms;

/**
 * The typed views of {@link JobConfig} per section — {@code cfg.sampler()}, {@code cfg.budget()},
 * {@code cfg.generation()}, {@code cfg.kafka()}, {@code cfg.flink()}, {@code cfg.output()}: each a
 * serializable view over the option values with one accessor per option (a derived option the spec
 * left out is {@link Optional#empty()}; {@link JobConfig} derives it).
 */
public final class JobSections {
    private JobSections() {}

    /** Coordinated (Hot PATE) or independent (cold) sampling, under the public run seed. */
    public record Sampler(boolean coordinated, long seed) implements Serializable {
        public String name() {
            return coordinated ? "coordinated" : "independent";
        }
    }

    /**
     * The run's budget (ε, δ; ε = +∞ only for non-private references), the per-teacher vote cap (0
     * = none), the durable per-dataset budget — the dataset (derived: {@link
     * JobConfig#datasetId()}), its total ε over all runs (+∞ = no cap), where the ledger lives
     * (derived: {@link JobConfig#ledgerMode()}) and its local directory — and each teacher's target
     * under individual accounting (mechanism scheme-b/scheme-a; ε 0 = none).
     */
    public record Budget(OptionValues values) implements Serializable {
        public double epsilon() {
            return values.get(JobOptions.BUDGET_EPSILON);
        }

        public double delta() {
            return values.get(JobOptions.BUDGET_DELTA);
        }

        public int perTeacherVotes() {
            return values.get(JobOptions.BUDGET_PER_TEACHER_VOTES);
        }

        /** {@code budget.dataset}; empty: derived ({@link JobConfig#datasetId()}). */
        public Optional<String> dataset() {
            return values.find(JobOptions.BUDGET_DATASET);
        }

        public double datasetEpsilon() {
            return values.get(JobOptions.BUDGET_DATASET_EPSILON);
        }

        /** {@code budget.ledger}; empty: derived ({@link JobConfig#ledgerMode()}). */
        public Optional<String> ledger() {
            return values.find(JobOptions.BUDGET_LEDGER);
        }

        public String ledgerDir() {
            return values.get(JobOptions.BUDGET_LEDGER_DIR);
        }

        public double perTeacherEpsilon() {
            return values.get(JobOptions.BUDGET_PER_TEACHER_EPSILON);
        }

        /** {@code budget.per-teacher-delta}; empty: derived ({@link #targetTeacherDelta()}). */
        public Optional<Double> perTeacherDelta() {
            return values.find(JobOptions.BUDGET_PER_TEACHER_DELTA);
        }

        /** The per-teacher target δ: {@code budget.per-teacher-delta}, default {@code delta}. */
        public double targetTeacherDelta() {
            return perTeacherDelta().orElse(delta());
        }

        /** The run's ensemble budget terms: ε, δ and the dataset's ε over all runs. */
        public BudgetTerms terms() {
            return new BudgetTerms(epsilon(), delta(), datasetEpsilon());
        }
    }

    /**
     * Generation: sequences and their ⊥ policy; the quorum ({@code min-teachers}) and the sequence
     * watchdog ({@code watchdog-ms}, {@code max-reissues}) — both derived when left out ({@link
     * JobConfig#minTeachers()}, {@link JobConfig#watchdogMs()}).
     */
    public record Generation(OptionValues values) implements Serializable {
        public int sequences() {
            return values.get(JobOptions.GENERATION_SEQUENCES);
        }

        public int concurrency() {
            return values.get(JobOptions.GENERATION_CONCURRENCY);
        }

        public int maxSteps() {
            return values.get(JobOptions.GENERATION_MAX_STEPS);
        }

        public int stopToken() {
            return values.get(JobOptions.GENERATION_STOP_TOKEN);
        }

        public FailPolicy onFail() {
            return FailPolicy.valueOf(
                    JobConfig.enumName(values.get(JobOptions.GENERATION_ON_FAIL)));
        }

        public int maxAttempts() {
            return values.get(JobOptions.GENERATION_MAX_ATTEMPTS);
        }

        public long stepDeadlineMs() {
            return values.get(JobOptions.GENERATION_STEP_DEADLINE_MS);
        }

        public Optional<Integer> minTeachers() {
            return values.find(JobOptions.GENERATION_MIN_TEACHERS);
        }

        public Optional<Long> watchdogMs() {
            return values.find(JobOptions.GENERATION_WATCHDOG_MS);
        }

        public int maxReissues() {
            return values.get(JobOptions.GENERATION_MAX_REISSUES);
        }
    }

    /** The broker (embedded or external), partitions, topics, transactions, client security. */
    public record Kafka(OptionValues values) implements Serializable {
        public boolean embedded() {
            return values.get(JobOptions.KAFKA_MODE).equals("embedded");
        }

        public String bootstrap() {
            return values.get(JobOptions.KAFKA_BOOTSTRAP);
        }

        public int partitions() {
            return values.get(JobOptions.KAFKA_PARTITIONS);
        }

        public JobConfig.Topics topics() {
            return new JobConfig.Topics(values);
        }

        public long transactionTimeoutMs() {
            return values.get(JobOptions.KAFKA_TRANSACTION_TIMEOUT_MS);
        }

        public JobConfig.Security security() {
            return new JobConfig.Security(values);
        }
    }

    /**
     * Where and how the job runs. {@code maxParallelism} is the job's number of key groups (the
     * largest parallelism it can be rescaled to from a checkpoint); {@code metricsPort} opens the
     * Prometheus reporter on the embedded MiniCluster (0: off).
     */
    public record Flink(OptionValues values) implements Serializable {
        public boolean embedded() {
            return values.get(JobOptions.FLINK_MODE).equals("embedded");
        }

        /** {@code flink.filesystem: shared}: the TaskManagers write the driver's filesystem. */
        public boolean sharedFilesystem() {
            return values.get(JobOptions.FLINK_FILESYSTEM).equals("shared");
        }

        public String host() {
            return values.get(JobOptions.FLINK_HOST);
        }

        public int port() {
            return values.get(JobOptions.FLINK_PORT);
        }

        public String jar() {
            return values.get(JobOptions.FLINK_JAR);
        }

        public int parallelism() {
            return values.get(JobOptions.FLINK_PARALLELISM);
        }

        public long checkpointIntervalMs() {
            return values.get(JobOptions.FLINK_CHECKPOINT_INTERVAL_MS);
        }

        /** {@code flink.state-dir}; empty: {@code <output dir>/<run id>/checkpoints}. */
        public Optional<String> stateDir() {
            return values.find(JobOptions.FLINK_STATE_DIR);
        }

        public int maxParallelism() {
            return values.get(JobOptions.FLINK_MAX_PARALLELISM);
        }

        /** {@code flink.managed-memory-mb}: the embedded MiniCluster's managed memory. */
        public int managedMemoryMb() {
            return values.get(JobOptions.FLINK_MANAGED_MEMORY_MB);
        }

        public int metricsPort() {
            return values.get(JobOptions.FLINK_METRICS_PORT);
        }

        public String metricsHost() {
            return values.get(JobOptions.FLINK_METRICS_HOST);
        }
    }

    /** Where the run's outputs go, and how long the driver waits for it. */
    public record Output(OptionValues values) implements Serializable {
        public String dir() {
            return values.get(JobOptions.OUTPUT_DIR);
        }

        /** {@code output.stall-checkpoints}. */
        public int stallCheckpoints() {
            return values.get(JobOptions.OUTPUT_STALL_CHECKPOINTS);
        }

        /** {@code output.timeout-s}; 0 = no wall-clock limit. */
        public long timeoutSeconds() {
            return values.get(JobOptions.OUTPUT_TIMEOUT_S);
        }
    }
}
