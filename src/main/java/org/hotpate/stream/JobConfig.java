package org.hotpate.stream;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkOpenUnit;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;
import org.hotpate.core.accounting.IndividualPlan;
import org.hotpate.core.accounting.IndividualSchemes;
import org.hotpate.core.generation.FailPolicy;
import org.hotpate.core.mechanism.Mechanisms;
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
        Output output,
        RecordsConfig records)
        implements Serializable {

    /** A config without a records section (simulated and external ensembles). */
    public JobConfig(
            String name,
            Ensemble ensemble,
            Sampler sampler,
            Mechanism mechanism,
            Budget budget,
            Generation generation,
            Kafka kafka,
            Flink flink,
            Output output) {
        this(
                name,
                ensemble,
                sampler,
                mechanism,
                budget,
                generation,
                kafka,
                flink,
                output,
                RecordsConfig.NONE);
    }

    public JobConfig {
        checkNotNull("name", name);
        checkArgument(
                name.matches("[A-Za-z0-9._-]+"),
                "name must match [A-Za-z0-9._-]+; got '" + name + "'");
        checkArgument(
                budget.perTeacherVotes() == 0 || ensemble.heterogeneous(),
                "budget.per-teacher-votes needs ensemble.kind: heterogeneous; got "
                        + budget.perTeacherVotes()
                        + " for a homogeneous ensemble");
        checkNonPrivateMechanism(mechanism, budget);
        checkIndividualAccounting(ensemble, mechanism, budget);
        checkArgument(
                ensemble.source() != TeacherSource.RECORDS || !kafka.security().sasl(),
                "ensemble.source: records does not support kafka.security-protocol "
                        + kafka.security().protocol()
                        + " yet (the records loader's Kafka clients do not authenticate);"
                        + " use PLAINTEXT, e.g. on a private network");
        checkArgument(
                generation.minTeachers() <= ensemble.teachers(),
                "generation.min-teachers must be <= ensemble.teachers ("
                        + ensemble.teachers()
                        + "); got "
                        + generation.minTeachers());
        checkArgument(
                !budget.ledger().equals("local") || flink.embedded(),
                "budget.ledger: local needs flink.mode: embedded (the accountant writes the ledger"
                        + " files from the TaskManager); use budget.ledger: kafka on a cluster");
        checkArgument(
                !budget.ledger().equals("kafka") || !kafka.embedded(),
                "budget.ledger: kafka needs kafka.mode: external (the embedded broker's log is"
                        + " deleted when the run ends, so the ledger would not survive it)");
    }

    /**
     * TARGMAX/TWS are not differentially private: they run only with {@code budget.epsilon: .inf},
     * so no finite ε is ever printed for them (DESIGN.md: every ε hotpate prints is delivered).
     */
    private static void checkNonPrivateMechanism(Mechanism mechanism, Budget budget) {
        boolean dp;
        if (IndividualSchemes.isIndividual(mechanism.name())) {
            return; // both schemes are DP
        }
        try {
            dp = Mechanisms.isDifferentiallyPrivate(mechanism.name());
        } catch (IllegalArgumentException unknownName) {
            return; // reported with the mechanism's parameters when the spec is loaded
        }
        checkArgument(
                dp || Double.isInfinite(budget.datasetEpsilon()),
                "mechanism.name '"
                        + mechanism.name()
                        + "' is not differentially private and cannot run on a dataset with a"
                        + " finite budget.dataset-epsilon (it would spend the dataset's whole"
                        + " guarantee); got budget.dataset-epsilon "
                        + budget.datasetEpsilon());
        checkArgument(
                dp || Double.isInfinite(budget.epsilon()),
                "mechanism.name '"
                        + mechanism.name()
                        + "' is not differentially private: it runs only with budget.epsilon: .inf"
                        + " (no privacy guarantee; the summary then says \"private\": false); got"
                        + " budget.epsilon "
                        + budget.epsilon());
    }

    /**
     * Per-teacher ("individual") accounting (issue 11): {@code mechanism.name} scheme-b or scheme-a
     * needs a heterogeneous ensemble and {@code budget.per-teacher-epsilon > 0}, and {@code
     * budget.per-teacher-epsilon} needs one of them; the plan (K or τ) must admit a charge.
     */
    private static void checkIndividualAccounting(
            Ensemble ensemble, Mechanism mechanism, Budget budget) {
        boolean individual = IndividualSchemes.isIndividual(mechanism.name());
        if (!individual) {
            checkArgument(
                    budget.perTeacherEpsilon() == 0,
                    "budget.per-teacher-epsilon needs mechanism.name scheme-b (Gaussian count with"
                            + " the individual Renyi filter; the default for per-teacher"
                            + " accounting) or scheme-a; got mechanism.name '"
                            + mechanism.name()
                            + "'");
            return;
        }
        checkArgument(
                ensemble.heterogeneous(),
                "mechanism.name "
                        + mechanism.name()
                        + " (per-teacher accounting) needs ensemble.kind: heterogeneous (one user"
                        + " per teacher)");
        checkArgument(
                budget.perTeacherEpsilon() > 0,
                "mechanism.name "
                        + mechanism.name()
                        + " needs budget.per-teacher-epsilon > 0 (each teacher's target epsilon;"
                        + " with budget.per-teacher-delta, default budget.delta)");
        checkArgument(
                budget.perTeacherVotes() == 0,
                "budget.per-teacher-votes (a vote cap) and mechanism.name "
                        + mechanism.name()
                        + " (per-teacher epsilon) exclude each other; got budget.per-teacher-votes "
                        + budget.perTeacherVotes());
        IndividualPlan plan =
                IndividualSchemes.plan(
                        mechanism.name(),
                        mechanism.params(),
                        budget.perTeacherEpsilon(),
                        budget.targetTeacherDelta());
        checkArgument(
                plan.limit() >= 1,
                "budget.per-teacher-epsilon "
                        + budget.perTeacherEpsilon()
                        + " is too small for mechanism "
                        + mechanism.name()
                        + " "
                        + mechanism.params()
                        + ": no teacher could be charged even once (plan with ./hotpate privacy"
                        + " plan --scheme "
                        + (mechanism.name().equals("scheme-a") ? "a" : "b")
                        + ")");
    }

    /** The per-teacher plan of a scheme-a/scheme-b run; null for other mechanisms. */
    public IndividualPlan individualPlan() {
        if (!IndividualSchemes.isIndividual(mechanism.name())) {
            return null;
        }
        return IndividualSchemes.plan(
                mechanism.name(),
                mechanism.params(),
                budget.perTeacherEpsilon(),
                budget.targetTeacherDelta());
    }

    /** Whether the run's releases are differentially private (false for targmax/tws). */
    public boolean isPrivate() {
        if (IndividualSchemes.isIndividual(mechanism.name())) {
            return true;
        }
        try {
            return Mechanisms.isDifferentiallyPrivate(mechanism.name());
        } catch (IllegalArgumentException unknownName) {
            return false;
        }
    }

    /**
     * The dataset whose durable budget this run spends: {@code budget.dataset}, else derived from
     * the teachers' data source — for a records run the topic the job reads its private records
     * from ({@code records-<topic>}: every file produced into one topic shares one budget, which
     * over-counts rather than under-counts), otherwise {@code ensemble.id}.
     */
    public String datasetId() {
        if (!budget.dataset().isEmpty()) {
            return budget.dataset();
        }
        return ensemble.source() == TeacherSource.RECORDS
                ? "records-" + records.topic()
                : ensemble.id();
    }

    /** Where the durable budget ledger lives. */
    public enum LedgerMode {
        LOCAL,
        KAFKA
    }

    /** {@code budget.ledger}, defaulting to local with an embedded broker and kafka otherwise. */
    public LedgerMode ledgerMode() {
        if (budget.ledger().isEmpty()) {
            return kafka.embedded() ? LedgerMode.LOCAL : LedgerMode.KAFKA;
        }
        return budget.ledger().equals("local") ? LedgerMode.LOCAL : LedgerMode.KAFKA;
    }

    /** {@code budget.ledger-dir} with a leading {@code ~} expanded to the user's home. */
    public java.nio.file.Path ledgerDir() {
        String d = budget.ledgerDir();
        if (d.equals("~") || d.startsWith("~/")) {
            d = System.getProperty("user.home") + d.substring(1);
        }
        return java.nio.file.Path.of(d).toAbsolutePath();
    }

    /**
     * The public shape of run {@code runId} of this spec: ensemble, run seed, vocabulary, step
     * deadline and the bounds of its steps (attempts per position count the watchdog's re-issues).
     */
    public org.hotpate.protocol.RunShape runShape(String runId) {
        return new org.hotpate.protocol.RunShape(
                runId,
                ensemble.id(),
                sampler.seed(),
                ensemble.effectiveVocabulary(),
                generation.stepDeadlineMs(),
                generation.sequences(),
                generation.maxSteps(),
                generation.maxAttempts() * (generation.maxReissues() + 1));
    }

    /** The run's sequence policy: the ⊥ policy, attempts, length, re-issues, concurrency. */
    public org.hotpate.protocol.SequenceProgress.Policy sequencePolicy() {
        return new org.hotpate.protocol.SequenceProgress.Policy(
                generation.onFail(),
                generation.maxAttempts(),
                generation.maxSteps(),
                generation.maxReissues(),
                generation.concurrency(),
                generation.sequences());
    }

    /** {@code generation.min-teachers}, default ceil(n/2). */
    public int minTeachers() {
        int n = ensemble.teachers();
        return generation.minTeachers() > 0 ? generation.minTeachers() : (n + 1) / 2;
    }

    /** {@code generation.watchdog-ms}, default 2 × step deadline + 5 × checkpoint interval. */
    public long watchdogMs() {
        return generation.watchdogMs() > 0
                ? generation.watchdogMs()
                : 2 * generation.stepDeadlineMs() + 5 * flink.checkpointIntervalMs();
    }

    public enum TeacherSource {
        PLANET_Z,
        ALPHA_MIXTURE,
        EXTERNAL,
        RECORDS
    }

    public enum Payload {
        SPARSE,
        TOP_K_LOGITS,
        MODEL_VOTE,
        RAW_SAMPLES
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

        /** Teachers built in the job from private records (ensemble.source: records). */
        public boolean fromRecords() {
            return source == TeacherSource.RECORDS;
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

    /**
     * The run's budget (ε, δ; ε = +∞ only for non-private references), the per-teacher vote cap (0
     * = none), and the durable per-dataset budget: the dataset id ({@code ""} = derived, see {@link
     * JobConfig#datasetId()}), its total ε over all runs (+∞ = no cap), where the ledger lives
     * ({@code ""} = derived, see {@link JobConfig#ledgerMode()}) and its local directory. {@code
     * perTeacherEpsilon}/{@code perTeacherDelta} are each teacher's target under individual
     * accounting (mechanism scheme-b/scheme-a; 0 = none, δ 0 = {@code delta}).
     */
    public record Budget(
            double epsilon,
            double delta,
            int perTeacherVotes,
            String dataset,
            double datasetEpsilon,
            String ledger,
            String ledgerDir,
            double perTeacherEpsilon,
            double perTeacherDelta)
            implements Serializable {
        public Budget {
            checkArgument(
                    epsilon > 0,
                    "budget.epsilon must be > 0 (or .inf, for a non-private run); got " + epsilon);
            checkOpenUnit("budget.delta", delta);
            checkArgument(
                    perTeacherVotes >= 0,
                    "budget.per-teacher-votes must be >= 0; got " + perTeacherVotes);
            checkNotNull("budget.dataset", dataset);
            checkArgument(
                    dataset.isEmpty() || dataset.matches("[A-Za-z0-9._-]+"),
                    "budget.dataset must match [A-Za-z0-9._-]+; got '" + dataset + "'");
            checkArgument(
                    datasetEpsilon > 0,
                    "budget.dataset-epsilon must be > 0 (or .inf: no dataset cap); got "
                            + datasetEpsilon);
            checkArgument(
                    ledger.isEmpty() || ledger.equals("local") || ledger.equals("kafka"),
                    "budget.ledger must be one of local, kafka; got '" + ledger + "'");
            checkArgument(!ledgerDir.isBlank(), "budget.ledger-dir must not be empty");
            checkArgument(
                    perTeacherEpsilon >= 0 && Double.isFinite(perTeacherEpsilon),
                    "budget.per-teacher-epsilon must be >= 0 and finite (0 = no individual"
                            + " accounting); got "
                            + perTeacherEpsilon);
            checkArgument(
                    perTeacherDelta == 0 || (perTeacherDelta > 0 && perTeacherDelta < 1),
                    "budget.per-teacher-delta must be in (0, 1) (0 = budget.delta); got "
                            + perTeacherDelta);
            checkArgument(
                    perTeacherDelta == 0 || perTeacherEpsilon > 0,
                    "budget.per-teacher-delta needs budget.per-teacher-epsilon > 0; got "
                            + perTeacherDelta);
        }

        /** The run's ensemble budget terms: ε, δ and the dataset's ε over all runs. */
        public org.hotpate.protocol.BudgetTerms terms() {
            return new org.hotpate.protocol.BudgetTerms(epsilon, delta, datasetEpsilon);
        }

        /** The per-teacher target δ: {@code budget.per-teacher-delta}, default {@code delta}. */
        public double targetTeacherDelta() {
            return perTeacherDelta > 0 ? perTeacherDelta : delta;
        }

        /** (ε, δ) with a per-teacher vote cap; no dataset cap, ledger where the mode puts it. */
        public Budget(double epsilon, double delta, int perTeacherVotes) {
            this(
                    epsilon,
                    delta,
                    perTeacherVotes,
                    "",
                    Double.POSITIVE_INFINITY,
                    "",
                    "~/.hotpate/ledger",
                    0,
                    0);
        }
    }

    /**
     * Generation: sequences and their ⊥ policy; {@code minTeachers} (0 = ceil(n/2)), {@code
     * watchdogMs} (0 = derived, see {@link JobConfig#watchdogMs()}) and {@code maxReissues} drive
     * the quorum and the sequence watchdog.
     */
    public record Generation(
            int sequences,
            int concurrency,
            int maxSteps,
            int stopToken,
            FailPolicy onFail,
            int maxAttempts,
            long stepDeadlineMs,
            int minTeachers,
            long watchdogMs,
            int maxReissues)
            implements Serializable {
        public Generation {
            checkPositive("generation.sequences", sequences);
            checkPositive("generation.concurrency", concurrency);
            checkPositive("generation.max-steps", maxSteps);
            checkArgument(stopToken >= -1, "generation.stop-token must be >= -1; got " + stopToken);
            checkPositive("generation.max-attempts", maxAttempts);
            checkPositive("generation.step-deadline-ms", stepDeadlineMs);
            checkArgument(
                    minTeachers >= 0, "generation.min-teachers must be >= 0; got " + minTeachers);
            checkArgument(
                    watchdogMs == 0 || watchdogMs > stepDeadlineMs,
                    "generation.watchdog-ms must be 0 (derived) or > generation.step-deadline-ms ("
                            + stepDeadlineMs
                            + "); got "
                            + watchdogMs);
            checkArgument(
                    maxReissues >= 0, "generation.max-reissues must be >= 0; got " + maxReissues);
        }

        /** Without quorum/watchdog settings: their defaults. */
        public Generation(
                int sequences,
                int concurrency,
                int maxSteps,
                int stopToken,
                FailPolicy onFail,
                int maxAttempts,
                long stepDeadlineMs) {
            this(
                    sequences,
                    concurrency,
                    maxSteps,
                    stopToken,
                    onFail,
                    maxAttempts,
                    stepDeadlineMs,
                    0,
                    0,
                    5);
        }
    }

    /**
     * The topic names of a run, by {@link Topic} id ({@code kafka.topics.<id>}; every id of {@link
     * Topic#ALL} has one). Public: results, records (and steps, distributions as inputs);
     * operator-only: the others (threat model).
     */
    public record Topics(Map<String, String> names) implements Serializable {
        public Topics {
            names = Map.copyOf(names);
            for (Topic<?> t : Topic.ALL) {
                checkArgument(
                        names.containsKey(t.id()) && !names.get(t.id()).isBlank(),
                        t.optionKey() + " must not be empty");
            }
        }

        /** Every topic under its default name {@code hotpate.<id>}. */
        public static Topics defaults() {
            Map<String, String> m = new TreeMap<>();
            Topic.ALL.forEach(t -> m.put(t.id(), t.defaultName()));
            return new Topics(m);
        }

        /** The name of {@code topic} in this run. */
        public String name(Topic<?> topic) {
            return names.get(topic.id());
        }

        /** The names of {@code topics} in this run. */
        public java.util.List<String> names(java.util.List<Topic<?>> topics) {
            return topics.stream().map(this::name).toList();
        }
    }

    /**
     * Kafka client security of the job, the driver and the teacher worker. Passwords are never in
     * the spec: {@code passwordEnv}/{@code teacherPasswordEnv} name an environment variable (or a
     * Java system property) that holds them.
     */
    public record Security(
            String protocol,
            String saslMechanism,
            String username,
            String passwordEnv,
            String teacherUsername,
            String teacherPasswordEnv)
            implements Serializable {
        public Security {
            checkArgument(
                    protocol.equals("PLAINTEXT")
                            || protocol.equals("SASL_PLAINTEXT")
                            || protocol.equals("SASL_SSL"),
                    "kafka.security-protocol must be one of PLAINTEXT, SASL_PLAINTEXT, SASL_SSL; got "
                            + protocol);
            checkArgument(
                    !protocol.startsWith("SASL_") || !username.isBlank(),
                    "kafka.sasl.username must be set when kafka.security-protocol is " + protocol);
        }

        public static Security plaintext() {
            return new Security(
                    "PLAINTEXT",
                    "SCRAM-SHA-512",
                    "",
                    "HOTPATE_KAFKA_PASSWORD",
                    "",
                    "HOTPATE_TEACHER_PASSWORD");
        }

        public boolean sasl() {
            return protocol.startsWith("SASL_");
        }
    }

    public record Kafka(
            boolean embedded,
            String bootstrap,
            int partitions,
            Topics topics,
            long transactionTimeoutMs,
            Security security)
            implements Serializable {
        public Kafka {
            checkArgument(
                    embedded || (bootstrap != null && !bootstrap.isBlank()),
                    "kafka.bootstrap must be set when kafka.mode is external");
            checkPositive("kafka.partitions", partitions);
            checkPositive("kafka.transaction-timeout-ms", transactionTimeoutMs);
            checkNotNull("kafka security", security);
        }

        /** Without client security (PLAINTEXT). */
        public Kafka(
                boolean embedded,
                String bootstrap,
                int partitions,
                Topics topics,
                long transactionTimeoutMs) {
            this(
                    embedded,
                    bootstrap,
                    partitions,
                    topics,
                    transactionTimeoutMs,
                    Security.plaintext());
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

    /** A copy with the ensemble size n (records runs: the driver counts the users). */
    public JobConfig withTeachers(int n) {
        Ensemble e = ensemble;
        return new JobConfig(
                name,
                new Ensemble(
                        e.id(),
                        n,
                        e.heterogeneous(),
                        e.source(),
                        e.k(),
                        e.alpha(),
                        e.seed(),
                        e.payload(),
                        e.topK(),
                        e.samples(),
                        e.vocabularySize()),
                sampler,
                mechanism,
                budget,
                generation,
                kafka,
                flink,
                output,
                records);
    }

    /** A copy writing its outputs to {@code output}. */
    public JobConfig withOutput(Output output) {
        return new JobConfig(
                name,
                ensemble,
                sampler,
                mechanism,
                budget,
                generation,
                kafka,
                flink,
                output,
                records);
    }

    public record Output(String dir, long timeoutSeconds) implements Serializable {
        public Output {
            checkPositive("output.timeout-s", timeoutSeconds);
        }
    }
}
