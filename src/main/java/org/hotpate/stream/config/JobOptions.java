package org.hotpate.stream.config;

import static org.hotpate.stream.config.Option.openUnit;
import static org.hotpate.stream.config.Option.positive;
import static org.hotpate.stream.config.Option.positiveLong;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hotpate.core.mechanism.MechanismRegistry;

/**
 * Every job-spec option, declared once — key, type, default, description and validation — in
 * documentation order. The parser ({@link JobSpec}), {@code ./hotpate run --help}, the key table of
 * docs/job-spec.md (checked against these declarations by {@code JobSpecTest}) and the typed
 * configuration ({@link JobConfig#get}) all come from here; adding an option is one declaration
 * here and its line in docs/job-spec.md. Checks that concern several options are {@link
 * JobConfig}'s. The options of records runs are declared in {@link RecordsOptions} (the last
 * section of the documentation order).
 */
public final class JobOptions {
    private JobOptions() {}

    private static final List<Option<?>> DECLARED = new ArrayList<>();

    private static <T> Option<T> declare(Option<T> o) {
        DECLARED.add(o);
        return o;
    }

    private static final String ID = "[A-Za-z0-9._-]+";

    // ---- run ----

    public static final Option<String> NAME =
            declare(
                    Option.string(
                                    "name",
                                    "",
                                    "Run name; the run id is <name>-<UTC yyyyMMdd-HHmmss>-<32 hex: 128 random bits>. Default: the spec file name.")
                            .derived("the spec file name", "")
                            .check(v -> v.matches(ID), "match " + ID));

    // ---- ensemble ----

    public static final Option<String> ENSEMBLE_ID =
            declare(
                    Option.string(
                                    "ensemble.id",
                                    "ensemble-0",
                                    "Id of the teacher ensemble (carried by every step).")
                            .check(v -> v.matches(ID), "match " + ID));
    public static final Option<Integer> ENSEMBLE_TEACHERS =
            declare(
                    positive(
                            Option.integer(
                                    "ensemble.teachers",
                                    100,
                                    "Ensemble size n (public). Teacher ids are 0..n-1.")));
    public static final Option<String> ENSEMBLE_KIND =
            declare(
                    Option.choice(
                            "ensemble.kind",
                            "homogeneous",
                            "homogeneous: ensemble-level accounting only; heterogeneous: a per-teacher vote cap may apply too (budget.per-teacher-votes).",
                            List.of("homogeneous", "heterogeneous")));
    public static final Option<String> ENSEMBLE_SOURCE =
            declare(
                    Option.choice(
                            "ensemble.source",
                            "planet-z",
                            "Built-in simulated teachers (planet-z, alpha-mixture; WORKLOADS.md), external (an inference service answers the steps topic; see ./hotpate teachers), or records: teachers built in the job from private user records (docs/records.md).",
                            List.of("planet-z", "alpha-mixture", "external", "records")));
    public static final Option<Integer> ENSEMBLE_K =
            declare(
                    positive(
                            Option.integer(
                                    "ensemble.k",
                                    20,
                                    "planet-z: shared numbers k; alpha-mixture: support size m of the common part s.")));
    public static final Option<Double> ENSEMBLE_ALPHA =
            declare(
                    openUnit(
                            Option.real(
                                    "ensemble.alpha",
                                    0.5,
                                    "alpha-mixture: weight alpha of the common part, in (0,1).")));
    public static final Option<Long> ENSEMBLE_SEED =
            declare(
                    Option.longInt(
                            "ensemble.seed",
                            1L,
                            "Seed of the simulated ensemble (which teacher has which distribution)."));
    public static final Option<String> ENSEMBLE_PAYLOAD =
            declare(
                    Option.choice(
                            "ensemble.payload",
                            "sparse",
                            "What built-in teachers send: sparse probabilities, top-k logits, a model-side vote, or raw samples.",
                            List.of("sparse", "top-k-logits", "model-vote", "raw-samples")));
    public static final Option<Integer> ENSEMBLE_TOP_K =
            declare(
                    Option.integer(
                                    "ensemble.top-k",
                                    0,
                                    "Built-in teachers send only their k most likely tokens (0 = all); the rest abstains.")
                            .check(v -> v >= 0, "be >= 0"));
    public static final Option<Integer> ENSEMBLE_SAMPLES =
            declare(
                    positive(
                            Option.integer(
                                    "ensemble.samples",
                                    32,
                                    "raw-samples payload: samples per answer.")));
    public static final Option<Integer> ENSEMBLE_VOCABULARY =
            declare(
                    positive(
                            Option.integer(
                                    "ensemble.vocabulary",
                                    1050,
                                    "Vocabulary size |V| (planet-z needs >= 1050: numbers 100..999, others 1000..1049).")));

    // ---- sampler and mechanism ----

    public static final Option<String> SAMPLER_TYPE =
            declare(
                    Option.choice(
                            "sampler.type",
                            "coordinated",
                            "coordinated (Hot PATE, shared randomness) or independent (cold PATE).",
                            List.of("coordinated", "independent")));
    public static final Option<Long> SAMPLER_SEED =
            declare(
                    Option.longInt(
                            "sampler.seed",
                            42L,
                            "Public run seed; each step's seed is derived from it (never used for DP noise)."));
    public static final Option<String> MECHANISM_NAME =
            declare(
                    Option.string(
                                    "mechanism.name",
                                    MechanismRegistry.HOT_PATE,
                                    "Aggregation mechanism, a name of core MechanismRegistry (an unknown name or parameter is refused when the spec is loaded); auto: the mechanism and all its parameters chosen from public inputs only (n, |V|, ensemble kind, budget, sequences x max-steps; docs/privacy-efficiency.md), mechanism.params left out; or a per-teacher scheme: scheme-b (params sigma, threshold, sample-rate) or scheme-a (params epsilon, lower, upper, sample-rate), with budget.per-teacher-epsilon.")
                            .check(v -> !v.isBlank(), "not be empty"));
    public static final Option<Map<String, Double>> MECHANISM_PARAMS =
            declare(
                    Option.doubleMap(
                            "mechanism.params",
                            Map.of("sigma", 20.0),
                            "Numeric parameters of the mechanism, e.g. {sigma1: 20, threshold: 125, sigma2: 20}; replaces the default as a whole; checked by the mechanism when the spec is loaded."));

    // ---- budget ----

    public static final Option<Double> BUDGET_EPSILON =
            declare(
                    Option.real(
                                    "budget.epsilon",
                                    8.0,
                                    "Ensemble epsilon budget of the run; no release is made past it. .inf = no budget: only for the non-private references targmax/tws (the summary then says \"private\": false, \"epsilon\": null); a non-private mechanism under a finite budget is refused.")
                            .orInfinity()
                            .check(v -> v > 0, "be > 0 (or .inf, for a non-private run)"));
    public static final Option<Double> BUDGET_DELTA =
            declare(
                    openUnit(
                            Option.real(
                                    "budget.delta", 1e-6, "Target delta of the run, in (0,1).")));
    public static final Option<String> BUDGET_DATASET =
            declare(
                    Option.string(
                                    "budget.dataset",
                                    "",
                                    "Id of the private dataset the run reads; every run on it is composed in the durable budget ledger. Default: derived from the teachers' data source: records-<records.topic> for a records run, else ensemble.id.")
                            .derived(
                                    "records-<records.topic> for a records run, else ensemble.id",
                                    "")
                            .check(v -> v.matches(ID), "match " + ID));
    public static final Option<Double> BUDGET_DATASET_EPSILON =
            declare(
                    Option.real(
                                    "budget.dataset-epsilon",
                                    Double.POSITIVE_INFINITY,
                                    "Total epsilon (at budget.delta) of the dataset over all runs, this one included (RDP curves composed). A run starts only if the dataset can still fund its whole budget.epsilon (else exit 2 naming the dataset), and stops at whichever of budget.epsilon and this comes first. .inf = no dataset cap (runs are still recorded). The cap is fixed by the dataset's first run: a later run cannot lift it (.inf) or change it, and a dataset first used without a cap cannot get one (exit 2).")
                            .orInfinity()
                            .check(v -> v > 0, "be > 0 (or .inf: no dataset cap)"));
    public static final Option<String> BUDGET_LEDGER =
            declare(
                    Option.choice(
                                    "budget.ledger",
                                    "",
                                    "Where the durable per-dataset budget ledger lives: local (files under budget.ledger-dir, written before the releases they cover are committed) or kafka (the compacted topic kafka.topics.budget-ledger, written in the same transaction as the releases). Default: local when kafka.mode is embedded, else kafka — the same with ./hotpate run --cluster D (a spec without a Kafka keeps the local directory, which the local cluster's TaskManagers share; a spec that names an external Kafka keeps that Kafka and its topic). One ledger per dataset: a run that would open a dataset in the other store (a kafka-ledger run on a dataset with entries in the local budget.ledger-dir, a local-ledger run on a dataset with entries on its Kafka's budget-ledger topic) exits 2 naming the first.",
                                    List.of("local", "kafka"))
                            .derived("local when kafka.mode is embedded, else kafka", ""));
    public static final Option<String> BUDGET_LEDGER_DIR =
            declare(
                    Option.string(
                                    "budget.ledger-dir",
                                    "~/.hotpate/ledger",
                                    "Directory of the local budget ledger (one JSON file per run under <dir>/<dataset>/runs/); ~ is the user's home.")
                            .check(v -> !v.isBlank(), "not be empty"));
    public static final Option<Integer> BUDGET_PER_TEACHER_VOTES =
            declare(
                    Option.integer(
                                    "budget.per-teacher-votes",
                                    0,
                                    "Heterogeneous ensembles: a cap on each teacher's token votes (0 = none); a teacher at its cap abstains for good. A vote cap, not individual privacy accounting: the run's guarantee is the ensemble one.")
                            .check(v -> v >= 0, "be >= 0"));
    public static final Option<Double> BUDGET_PER_TEACHER_EPSILON =
            declare(
                    Option.real(
                                    "budget.per-teacher-epsilon",
                                    0.0,
                                    "Individual (per-teacher) privacy accounting: each teacher's target epsilon over every run on the dataset (0 = none). Needs mechanism.name scheme-b (default choice: Gaussian count with the Feldman-Zrnic individual Renyi filter) or scheme-a (BetweenThresholds, DERIVED proof) and ensemble.kind heterogeneous; K or tau is planned from it (./hotpate privacy plan --scheme a|b). A teacher whose next involvement would pass it abstains for good.")
                            .check(
                                    v -> v >= 0 && Double.isFinite(v),
                                    "be >= 0 and finite (0 = no individual accounting)"));
    public static final Option<Double> BUDGET_PER_TEACHER_DELTA =
            declare(
                    Option.real(
                                    "budget.per-teacher-delta",
                                    0.0,
                                    "The per-teacher target delta for budget.per-teacher-epsilon (0 = budget.delta).")
                            .derived("budget.delta", 0.0)
                            .check(v -> v > 0 && v < 1, "be in (0, 1) (0 = budget.delta)"));

    // ---- generation ----

    public static final Option<Integer> GENERATION_SEQUENCES =
            declare(
                    positive(
                            Option.integer(
                                    "generation.sequences",
                                    20,
                                    "Synthetic sequences to generate.")));
    public static final Option<Integer> GENERATION_CONCURRENCY =
            declare(
                    positive(
                            Option.integer(
                                    "generation.concurrency",
                                    20,
                                    "Sequences in flight at once (sequence j+concurrency starts when j finishes).")));
    public static final Option<Integer> GENERATION_MAX_STEPS =
            declare(
                    positive(
                            Option.integer(
                                    "generation.max-steps", 8, "Tokens per sequence at most.")));
    public static final Option<Integer> GENERATION_STOP_TOKEN =
            declare(
                    Option.integer(
                                    "generation.stop-token",
                                    -1,
                                    "A token that ends a sequence (-1 = none).")
                            .check(v -> v >= -1, "be >= -1"));
    public static final Option<String> GENERATION_ON_FAIL =
            declare(
                    Option.choice(
                            "generation.on-fail",
                            "resample",
                            "What a FAIL (⊥) does: resample with a new seed, take a public-model token, or stop the sequence.",
                            List.of("resample", "fallback", "stop")));
    public static final Option<Integer> GENERATION_MAX_ATTEMPTS =
            declare(
                    positive(
                            Option.integer(
                                    "generation.max-attempts",
                                    3,
                                    "Attempts per position before the sequence stops (resample policy).")));
    public static final Option<Integer> GENERATION_FIRST_ATTEMPTS =
            declare(
                    Option.integer(
                                    "generation.first-attempts",
                                    0,
                                    "Attempts at a sequence's first position (resample policy), where a diverse ensemble agrees least; a FAIL there costs only the mechanism's threshold step. 0 = generation.max-attempts.")
                            .derived("generation.max-attempts", 0)
                            .check(v -> v > 0, "be > 0 (0 = generation.max-attempts)"));
    public static final Option<Integer> GENERATION_MIN_TOKENS =
            declare(
                    Option.integer(
                                    "generation.min-tokens",
                                    1,
                                    "A record has at least this many tokens: before it, a teacher's vote for the end-of-text token or a token holding a stop string abstains, and a released one counts as a FAIL (a public rule; 0 = off).")
                            .check(v -> v >= 0, "be >= 0"));
    public static final Option<Long> GENERATION_STEP_DEADLINE_MS =
            declare(
                    positiveLong(
                            Option.longInt(
                                    "generation.step-deadline-ms",
                                    5000L,
                                    "A step closes this long after the reducer first sees it; missing teachers abstain.")));
    public static final Option<Integer> GENERATION_MIN_TEACHERS =
            declare(
                    Option.integer(
                                    "generation.min-teachers",
                                    0,
                                    "Quorum: a step closed with fewer answering teachers is abandoned, not aggregated (no release, no charge) and re-issued by the watchdog. 0 = ceil(n/2). Liveness is treated as public.")
                            .derived("ceil(n/2)", 0)
                            .check(v -> v > 0, "be > 0 (0 = ceil(n/2))"));
    public static final Option<Long> GENERATION_WATCHDOG_MS =
            declare(
                    Option.longInt(
                                    "generation.watchdog-ms",
                                    0L,
                                    "The sequence loop re-issues a position as a new attempt when no result for the issued step arrived this long after it was issued. 0 = 2 x step-deadline-ms + 5 x flink.checkpoint-interval-ms (10 x step-deadline-ms + ... for records runs' ngram teachers, whose steps wait while the teachers are busy).")
                            .derived(
                                    "2 (ngram records: 10) x step-deadline-ms + 5 x flink.checkpoint-interval-ms",
                                    0L)
                            .check(v -> v > 0, "be > 0 (0 = derived)"));
    public static final Option<Integer> GENERATION_MAX_REISSUES =
            declare(
                    Option.integer(
                                    "generation.max-reissues",
                                    5,
                                    "Consecutive watchdog re-issues of a sequence before it finishes as NO_QUORUM.")
                            .check(v -> v >= 0, "be >= 0"));

    // ---- kafka ----

    public static final Option<String> KAFKA_MODE =
            declare(
                    Option.choice(
                            "kafka.mode",
                            "embedded",
                            "embedded: a KRaft broker in this process; external: use kafka.bootstrap.",
                            List.of("embedded", "external")));
    public static final Option<String> KAFKA_BOOTSTRAP =
            declare(
                    Option.string(
                            "kafka.bootstrap",
                            "",
                            "Bootstrap servers (external mode), e.g. kafka:9092."));
    public static final Option<Integer> KAFKA_EMBEDDED_PORT =
            declare(
                    Option.integer(
                                    "kafka.embedded-port",
                                    0,
                                    "Port of the embedded broker (plaintext only; 0 = any free port): set it so that external teachers, e.g. the Python LLM worker, can connect to the run's broker.")
                            .check(v -> v >= 0 && v <= 65535, "be in [0, 65535]"));
    public static final Option<Integer> KAFKA_PARTITIONS =
            declare(
                    positive(
                            Option.integer(
                                    "kafka.partitions",
                                    2,
                                    "Partitions of topics the run creates (existing topics are kept).")));
    public static final Option<Long> KAFKA_TRANSACTION_TIMEOUT_MS =
            declare(
                    positiveLong(
                            Option.longInt(
                                    "kafka.transaction-timeout-ms",
                                    300000L,
                                    "Transaction timeout of the exactly-once sink; must be <= the broker's transaction.max.timeout.ms.")));

    /** {@code kafka.topics.<id>} of every topic of the registry ({@link Topic#ALL}). */
    public static final Map<String, Option<String>> TOPICS = topics();

    private static Map<String, Option<String>> topics() {
        Map<String, Option<String>> m = new LinkedHashMap<>();
        for (Topic<?> t : Topic.ALL) {
            m.put(
                    t.id(),
                    declare(
                            Option.string(t.optionKey(), t.defaultName(), t.description())
                                    .check(v -> !v.isBlank(), "not be empty")));
        }
        return Map.copyOf(m);
    }

    /** The option naming {@code topic}. */
    public static Option<String> topic(Topic<?> topic) {
        return TOPICS.get(topic.id());
    }

    public static final Option<String> KAFKA_SECURITY_PROTOCOL =
            declare(
                    Option.choice(
                            "kafka.security-protocol",
                            "PLAINTEXT",
                            "Client security protocol of the job, the driver and ./hotpate teachers. With kafka.mode embedded, SASL_PLAINTEXT starts the broker with SCRAM-SHA-512 and ACLs (docs/threat-model.md).",
                            List.of("PLAINTEXT", "SASL_PLAINTEXT", "SASL_SSL")));
    public static final Option<String> KAFKA_SASL_MECHANISM =
            declare(
                    Option.choice(
                            "kafka.sasl.mechanism",
                            "SCRAM-SHA-512",
                            "SASL mechanism of the clients.",
                            List.of("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN")));
    public static final Option<String> KAFKA_SASL_USERNAME =
            declare(
                    Option.string(
                            "kafka.sasl.username",
                            "",
                            "Principal of the job and the driver (the only writer of steps, results, records, ledger, rejected, budget-ledger)."));
    public static final Option<String> KAFKA_SASL_PASSWORD_ENV =
            declare(
                    Option.string(
                            "kafka.sasl.password-env",
                            "HOTPATE_KAFKA_PASSWORD",
                            "Environment variable (or Java system property) holding kafka.sasl.username's password; never written to a spec."));
    public static final Option<String> KAFKA_SASL_TEACHER_USERNAME =
            declare(
                    Option.string(
                            "kafka.sasl.teacher-username",
                            "",
                            "Principal of the teacher worker (./hotpate teachers and the built-in worker): reads steps, writes distributions."));
    public static final Option<String> KAFKA_SASL_TEACHER_PASSWORD_ENV =
            declare(
                    Option.string(
                            "kafka.sasl.teacher-password-env",
                            "HOTPATE_TEACHER_PASSWORD",
                            "Environment variable (or Java system property) holding the teacher principal's password."));

    // ---- flink ----

    public static final Option<String> FLINK_MODE =
            declare(
                    Option.choice(
                            "flink.mode",
                            "embedded",
                            "embedded: a MiniCluster in this process; remote: submit to flink.host:flink.port.",
                            List.of("embedded", "remote")));
    public static final Option<String> FLINK_FILESYSTEM =
            declare(
                    Option.choice(
                            "flink.filesystem",
                            "separate",
                            "Whether the TaskManagers write the driver's filesystem: shared lets budget.ledger: local run on a remote cluster (./hotpate run --cluster D sets it: the local cluster's TaskManagers run on this machine as this user); separate (default) requires budget.ledger: kafka there.",
                            List.of("separate", "shared")));
    public static final Option<String> FLINK_HOST =
            declare(Option.string("flink.host", "", "JobManager host (remote mode)."));
    public static final Option<Integer> FLINK_PORT =
            declare(
                    positive(
                            Option.integer(
                                    "flink.port", 8081, "JobManager REST port (remote mode).")));
    public static final Option<String> FLINK_JAR =
            declare(
                    Option.string(
                            "flink.jar",
                            "target/hotpate-0.1.0-SNAPSHOT-all.jar",
                            "The job jar shipped to a remote cluster."));
    public static final Option<Integer> FLINK_PARALLELISM =
            declare(positive(Option.integer("flink.parallelism", 2, "Job parallelism.")));
    public static final Option<Long> FLINK_CHECKPOINT_INTERVAL_MS =
            declare(
                    positiveLong(
                            Option.longInt(
                                    "flink.checkpoint-interval-ms",
                                    1000L,
                                    "Checkpoint interval; exactly-once output becomes visible at each checkpoint.")));
    public static final Option<Integer> FLINK_MANAGED_MEMORY_MB =
            declare(
                    positive(
                            Option.integer(
                                    "flink.managed-memory-mb",
                                    1024,
                                    "Managed (off-heap) memory of the embedded MiniCluster's task executor, in MiB: RocksDB's block cache and write buffers, shared by the operators of each slot. Flink's local default (128) makes RocksDB read its SST files for every teacher table once the records teachers' state outgrows it (10^5 users). On a cluster the cluster's taskmanager.memory settings apply.")));
    public static final Option<String> FLINK_STATE_DIR =
            declare(
                    Option.string(
                                    "flink.state-dir",
                                    "",
                                    "Checkpoint directory URI (default: <output dir>/<run id>/checkpoints; remote clusters need a shared path).")
                            .derived("<output dir>/<run id>/checkpoints", ""));
    public static final Option<Integer> FLINK_MAX_PARALLELISM =
            declare(
                    Option.integer(
                                    "flink.max-parallelism",
                                    128,
                                    "Max parallelism (key groups) of the job: the largest parallelism a checkpoint or savepoint of it can be restored at.")
                            .check(v -> v <= 32768, "be <= 32768"));
    public static final Option<Integer> FLINK_METRICS_PORT =
            declare(
                    Option.integer(
                                    "flink.metrics-port",
                                    0,
                                    "Prometheus reporter port of the embedded MiniCluster (0 = off); on a cluster the cluster's reporter configuration applies.")
                            .check(v -> v >= 0 && v <= 65535, "be in [0, 65535]"));
    public static final Option<String> FLINK_METRICS_HOST =
            declare(
                    Option.string(
                                    "flink.metrics-host",
                                    "127.0.0.1",
                                    "Address the embedded MiniCluster's Prometheus reporter binds (with flink.metrics-port): loopback by default, since the metrics are operator-only; 0.0.0.0 = every interface.")
                            .check(v -> !v.isBlank(), "not be empty"));

    // ---- output ----

    public static final Option<String> OUTPUT_DIR =
            declare(Option.string("output.dir", "out", "Outputs go to <output.dir>/<run id>/."));
    public static final Option<Long> OUTPUT_TIMEOUT_S =
            declare(
                    Option.longInt(
                                    "output.timeout-s",
                                    0L,
                                    "A wall-clock limit: give up (exit 1) if the run has not finished after this many seconds. 0 = none: a budget-limited batch runs until its budget or its sequences end; output.stall-checkpoints catches a run that stopped moving.")
                            .check(v -> v >= 0, "be >= 0 (0 = no limit)"));
    public static final Option<Integer> OUTPUT_STALL_CHECKPOINTS =
            declare(
                    positive(
                            Option.integer(
                                    "output.stall-checkpoints",
                                    240,
                                    "Stall detector: give up (exit 1, naming the sequences without a record) when the run has released nothing new — no result, record or ledger entry — for this many checkpoint intervals (flink.checkpoint-interval-ms) since its last progress, counted from its first result (for records runs' ngram teachers at least generation.watchdog-ms: they answer the steps in flight in rounds that take minutes at 10^4 users); before the first result (teachers still being built) ten times this many intervals.")));

    /** Every option, in documentation order. */
    public static final List<Option<?>> ALL =
            java.util.stream.Stream.concat(DECLARED.stream(), RecordsOptions.declared().stream())
                    .toList();
}
