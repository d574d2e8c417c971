package org.hotpate.stream;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hotpate.teachers.text.Tokenizer;

/**
 * Every job-spec option, declared once — key, type, default, description and validation — in
 * documentation order. The parser ({@link JobSpec}), {@code ./hotpate run --help}, the key table of
 * docs/job-spec.md (checked against these declarations by {@code JobSpecTest}) and the typed
 * configuration ({@link JobConfig#get}) all come from here; adding an option is one declaration
 * here and its line in docs/job-spec.md. Checks that concern several options are {@link
 * JobConfig}'s.
 */
public final class JobOptions {
    private JobOptions() {}

    private static final List<Option<?>> DECLARED = new ArrayList<>();

    private static <T> Option<T> declare(Option<T> o) {
        DECLARED.add(o);
        return o;
    }

    private static final String ID = "[A-Za-z0-9._-]+";

    private static Option<Integer> positive(Option<Integer> o) {
        return o.check(v -> v > 0, "be > 0");
    }

    private static Option<Long> positiveLong(Option<Long> o) {
        return o.check(v -> v > 0, "be > 0");
    }

    private static Option<Double> openUnit(Option<Double> o) {
        return o.check(v -> v > 0 && v < 1, "be in (0, 1)");
    }

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
                                    "hot-pate",
                                    "Aggregation mechanism (core Mechanisms.create name); auto: the mechanism and all its parameters chosen from public inputs only (n, |V|, ensemble kind, budget, sequences x max-steps; docs/privacy-efficiency.md), mechanism.params left out; or a per-teacher scheme: scheme-b (params sigma, threshold, sample-rate) or scheme-a (params epsilon, lower, upper, sample-rate), with budget.per-teacher-epsilon.")
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
                                    "The sequence loop re-issues a position as a new attempt when no result for the issued step arrived this long after it was issued. 0 = 2 x step-deadline-ms + 5 x flink.checkpoint-interval-ms.")
                            .derived("2 x step-deadline-ms + 5 x flink.checkpoint-interval-ms", 0L)
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
                                    "Stall detector: give up (exit 1, naming the sequences without a record) when the run has released nothing new — no result, record or ledger entry — for this many checkpoint intervals (flink.checkpoint-interval-ms) since its last progress, counted from its first result; before the first result (teachers still being built) ten times as long.")));

    // ---- records runs (docs/records.md) ----

    public static final Option<String> RECORDS_FILE =
            declare(
                    Option.string(
                            "records.file",
                            "",
                            "JSONL or JSONL.gz file of private records (one JSON object per line); the driver produces it into the private-records topic once (a re-run of the same file does not duplicate it) and the job reads only that file's records."));
    public static final Option<String> RECORDS_TOPIC =
            declare(
                    Option.string(
                                    "records.topic",
                                    "",
                                    "Topic the job reads records from (default: kafka.topics.private-records). Without records.file the job reads everything it holds up to its end offsets at start (a bounded batch).")
                            .derived("kafka.topics.private-records", ""));
    public static final Option<String> RECORDS_USER_FIELD =
            declare(
                    Option.string(
                            "records.user-field",
                            "user",
                            "JSON field of the user id (the privacy unit); a scalar. A dotted path (meta.user) is followed when no top-level key has that exact name."));
    public static final Option<String> RECORDS_TEXT_FIELD =
            declare(
                    Option.string(
                            "records.text-field",
                            "text",
                            "JSON field of the record text (a non-empty string)."));
    public static final Option<String> RECORDS_LABEL_FIELD =
            declare(
                    Option.string(
                            "records.label-field",
                            "",
                            "Optional JSON field of a label: teachers keep one model per label and answer a labelled sequence from that label's records."));
    public static final Option<String> RECORDS_TIME_FIELD =
            declare(
                    Option.string(
                            "records.time-field",
                            "",
                            "Optional JSON field of an event time (epoch ms or ISO-8601); informational."));
    public static final Option<Integer> RECORDS_MAX_PER_USER =
            declare(
                    positive(
                            Option.integer(
                                    "records.max-per-user",
                                    1000,
                                    "Contribution bound: records of a user past this many are dropped before any teacher sees them.")));
    public static final Option<Integer> RECORDS_MAX_TEXT_BYTES =
            declare(
                    positive(
                            Option.integer(
                                    "records.max-text-bytes",
                                    65536,
                                    "Records whose text has more UTF-8 bytes go to the rejected topic (TEXT_TOO_LONG).")));
    public static final Option<String> TEACHER_MODEL =
            declare(
                    Option.choice(
                            "teacher.model",
                            "ngram",
                            "ngram: a Witten-Bell token n-gram model per teacher, in RocksDB keyed state; http: an OpenAI-compatible /v1/completions endpoint prompted with the teacher's records.",
                            List.of("ngram", "http")));
    public static final Option<Integer> TEACHER_ORDER =
            declare(
                    Option.integer("teacher.order", 3, "n-gram order (3 = trigrams).")
                            .check(v -> v >= 1 && v <= 8, "be in [1, 8]"));
    public static final Option<Integer> TEACHER_TOP_K =
            declare(
                    Option.integer(
                                    "teacher.top-k",
                                    64,
                                    "A teacher lists its k most likely next tokens (the http teacher asks for k logprobs); the rest of its mass abstains.")
                            .check(v -> v >= 1, "be >= 1"));
    public static final Option<String> TEACHER_PUBLIC_FILE =
            declare(
                    Option.string(
                            "teacher.public-file",
                            "",
                            "Public text (JSONL(.gz) with records.text-field, or plain text, one document per line) for the public backoff model of every teacher; never private records."));
    public static final Option<Integer> TEACHER_PUBLIC_ORDER =
            declare(
                    Option.integer(
                                    "teacher.public-order",
                                    0,
                                    "n-gram order of the public backoff model (ngram teachers). 0 = min(teacher.order, 2): a bigram keeps the public model's fluency without letting the teachers agree on copying public sentences verbatim.")
                            .derived("min(teacher.order, 2)", 0)
                            .check(v -> v >= 1 && v <= 8, "be in [1, 8] (0 = derived)"));
    public static final Option<Double> TEACHER_PUBLIC_WEIGHT =
            declare(
                    Option.real(
                                    "teacher.public-weight",
                                    org.hotpate.teachers.ngram.NgramModel.DEFAULT_PUBLIC_WEIGHT,
                                    "Weight in (0, 1] of the public backoff in an ngram teacher's distribution: the mass Witten-Bell would hand to the public model is scaled by it and the rest abstains (it never coordinates), so the teachers' own records weigh more in the vote. 1 = plain Witten-Bell.")
                            .check(v -> v > 0 && v <= 1, "be in (0, 1]"));
    public static final Option<String> TEACHER_PRIOR =
            declare(
                    Option.choice(
                            "teacher.prior",
                            "none",
                            "ngram teachers of a records run: dp-ngram releases a population prior before the run — the n-grams many users share, by user-level DP n-gram extraction (Kim et al. 2021), charged once to this run's budget (teacher.prior-share of it) — and every teacher backs off to it instead of teacher.public-file, so the public file never votes. none: back off to teacher.public-file.",
                            List.of("none", "dp-ngram")));
    public static final Option<Double> TEACHER_PRIOR_SHARE =
            declare(
                    Option.real(
                                    "teacher.prior-share",
                                    0.25,
                                    "teacher.prior dp-ngram: the share, in (0, 1), of the run's Renyi budget (at the run filter's order) that the prior's release spends.")
                            .check(v -> v > 0 && v < 1, "be in (0, 1)"));
    public static final Option<Integer> TEACHER_PRIOR_PER_USER =
            declare(
                    positive(
                            Option.integer(
                                    "teacher.prior-per-user",
                                    16,
                                    "teacher.prior dp-ngram: the most distinct n-grams of each length a user contributes (the contribution bound k; its L2 sensitivity is sqrt(2k) per length under replace-one).")));
    public static final Option<String> TEACHER_PRIOR_FILE =
            declare(
                    Option.string(
                            "teacher.prior-file",
                            "",
                            "A released population prior (prior.jsonl) that every ngram teacher backs off to instead of teacher.public-file. Public once released: with teacher.prior dp-ngram the driver releases one into <output.dir>/<run-id>/prior.jsonl and sets this; a prior.jsonl of an earlier run may be reused at no further cost."));
    public static final Option<String> TEACHER_URL =
            declare(
                    Option.string(
                            "teacher.url",
                            "",
                            "http: base URL of the OpenAI-compatible server (POST <url>/v1/completions)."));
    public static final Option<String> TEACHER_MODEL_NAME =
            declare(Option.string("teacher.model-name", "", "http: the request's model field."));
    public static final Option<String> TEACHER_API_KEY_ENV =
            declare(
                    Option.string(
                            "teacher.api-key-env",
                            "",
                            "http: name of an environment variable holding the API key (sent as Authorization: Bearer)."));

    /** The http teacher's default prompt. */
    public static final String DEFAULT_PROMPT_TEMPLATE =
            "Examples:\n{records}\n\nWrite one more in the same style.\n{prompt}";

    public static final Option<String> TEACHER_PROMPT_TEMPLATE =
            declare(
                    Option.string(
                                    "teacher.prompt-template",
                                    DEFAULT_PROMPT_TEMPLATE,
                                    "http: the teacher's prompt; {records} = the teacher's records (one per line), {label} = the sequence's label, {prompt} = the public prompt and the text generated so far.")
                            .check(v -> v.contains("{records}"), "contain {records}"));
    public static final Option<Integer> TEACHER_MAX_RECORDS =
            declare(
                    Option.integer(
                                    "teacher.max-records",
                                    8,
                                    "http: at most this many of a teacher's records go into its prompt (the first ones it received).")
                            .check(v -> v >= 1, "be >= 1"));
    public static final Option<Integer> TEACHER_MAX_PROMPT_CHARS =
            declare(
                    Option.integer(
                                    "teacher.max-prompt-chars",
                                    4000,
                                    "http: the {records} part of a prompt is cut to this many characters.")
                            .check(v -> v >= 1, "be >= 1"));
    public static final Option<Long> TEACHER_TIMEOUT_MS =
            declare(
                    Option.longInt("teacher.timeout-ms", 10000L, "http: timeout of one request.")
                            .check(v -> v >= 1, "be >= 1"));
    public static final Option<Integer> TEACHER_RETRIES =
            declare(
                    Option.integer(
                                    "teacher.retries",
                                    2,
                                    "http: retries after a failed request (exponential backoff from 100 ms), never past the step deadline; then the teacher abstains.")
                            .check(v -> v >= 0, "be >= 0"));
    public static final Option<Integer> TEACHER_CONCURRENCY =
            declare(
                    Option.integer(
                                    "teacher.concurrency",
                                    8,
                                    "http: requests in flight per job subtask (Flink async I/O capacity).")
                            .check(v -> v >= 1, "be >= 1"));
    public static final Option<Boolean> TEACHER_TOKEN_IDS =
            declare(
                    Option.bool(
                            "teacher.token-ids",
                            false,
                            "http: send prompts as token ids of the run's tokenizer (the generated prefix as released, never re-tokenized) and ask for return_tokens_as_token_ids (vLLM: answers as \"token_id:N\", no mass lost to string mapping; strings are still accepted and mapped through the tokenizer)."));
    public static final Option<Integer> TEACHER_BATCH =
            declare(
                    Option.integer(
                                    "teacher.batch",
                                    1,
                                    "http: prompts per request (a list in the completions prompt field, answered by choices[i].index); the prompts of one step are batched together.")
                            .check(v -> v >= 1 && v <= 4096, "be in [1, 4096]"));
    public static final Option<String> TEACHER_VOTE =
            declare(
                    Option.choice(
                            "teacher.vote",
                            "distribution",
                            "http: distribution = the top-k log-probabilities become a sparse distribution (the unlisted mass abstains) and the job draws the coordinated vote; server-seeded = the server samples one token per teacher with seed = the step's public seed (max_tokens 1, n 1): a coordinated draw only on vLLM's V1 sampler (docs/llm-teachers.md), refused for other servers.",
                            List.of("distribution", "server-seeded")));
    public static final Option<String> TEACHER_SERVER =
            declare(
                    Option.choice(
                            "teacher.server",
                            "vllm",
                            "http: what serves teacher.url — vllm (V1 engine: a per-request generator, an exponential race), vllm-v2 (model runner V2: noise keyed by seed and position; needs teacher.pad-tokens for server-seeded votes), llama.cpp, openai (logprobs capped at 20), other. Decides what teacher.vote and teacher.top-k may be.",
                            List.of("vllm", "vllm-v2", "llama.cpp", "openai", "other")));
    public static final Option<Integer> TEACHER_PAD_TOKENS =
            declare(
                    Option.integer(
                                    "teacher.pad-tokens",
                                    0,
                                    "http with teacher.token-ids: the private part of every prompt (the template before {prompt}) is cut or left-padded with the end-of-text token to exactly this many tokens, so all teachers' prompts of a step have one length (vllm-v2 keys its noise by position). 0 = no padding.")
                            .check(v -> v >= 0, "be >= 0"));
    public static final Option<String> TOKENIZER =
            declare(
                    Option.choice(
                            "tokenizer",
                            "cl100k_base",
                            "BPE tokenizer of records runs (jtokkit); the vocabulary size comes from it. `tokenizer: {file: PATH}` sets tokenizer.file instead.",
                            List.copyOf(Tokenizer.NAMES)));
    public static final Option<String> TOKENIZER_FILE =
            declare(
                    Option.string(
                            "tokenizer.file",
                            "",
                            "A model's own Hugging Face tokenizer.json (`tokenizer: {file: PATH}`; replaces `tokenizer`): vocabulary size, special and end-of-text tokens (eos_token of a tokenizer_config.json beside it), encoding and decoding. Must be readable where the job's teachers run."));
    public static final Option<String> GENERATION_PROMPT =
            declare(
                    Option.string(
                            "generation.prompt",
                            "",
                            "Public prompt: every sequence starts after it (not part of the output text)."));
    public static final Option<String> GENERATION_PROMPTS_FILE =
            declare(
                    Option.string(
                            "generation.prompts-file",
                            "",
                            "JSONL file of public prompts {prompt, label?}: sequence j uses line j mod lines."));
    public static final Option<List<String>> GENERATION_STOP =
            declare(
                    Option.stringList(
                                    "generation.stop",
                                    List.of("\n"),
                                    "Records runs: a sequence ends (STOP_TOKEN) when its text reaches one of these strings (cut before it), or at the end-of-text token.")
                            .check(
                                    v -> v.stream().noneMatch(String::isEmpty),
                                    "not contain an empty string"));

    /** Every option, in documentation order. */
    public static final List<Option<?>> ALL = List.copyOf(DECLARED);
}
