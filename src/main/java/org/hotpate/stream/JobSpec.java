package org.hotpate.stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Job spec YAML → {@link JobConfig}. Every key has a type, a default and a description ({@link
 * #KEYS}, the one source for {@code ./hotpate run --help} and docs/job-spec.md). Unknown keys and
 * bad values raise {@link SpecException} naming the key; validation happens here, before any broker
 * or cluster starts.
 *
 * <p>Shorthands: {@code kafka: embedded} means {@code kafka: {mode: embedded}}; likewise {@code
 * flink: embedded}.
 */
public final class JobSpec {
    /** A bad job spec; the message names the key. */
    public static final class SpecException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public SpecException(String message) {
            super(message);
        }
    }

    enum Type {
        STRING,
        INT,
        LONG,
        DOUBLE,
        ENUM,
        DOUBLE_MAP,
        STRING_LIST
    }

    /** One configuration key. {@code choices} for ENUM; {@code dflt} as written in YAML. */
    public record Key(
            String path, Type type, Object dflt, String description, List<String> choices) {
        static Key of(String path, Type type, Object dflt, String description) {
            return new Key(path, type, dflt, description, List.of());
        }

        static Key choice(String path, String dflt, String description, String... choices) {
            return new Key(path, Type.ENUM, dflt, description, List.of(choices));
        }

        public String typeName() {
            return type == Type.ENUM
                    ? String.join("|", choices)
                    : type.name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** Every key, in documentation order (records-run keys: {@link RecordsSpec#KEYS}). */
    public static final List<Key> KEYS =
            RecordsSpec.withRecordKeys(
                    List.of(
                            Key.of(
                                    "name",
                                    Type.STRING,
                                    "",
                                    "Run name; the run id is <name>-<UTC timestamp>. Default: the spec file name."),
                            Key.of(
                                    "ensemble.id",
                                    Type.STRING,
                                    "ensemble-0",
                                    "Id of the teacher ensemble (carried by every step)."),
                            Key.of(
                                    "ensemble.teachers",
                                    Type.INT,
                                    100,
                                    "Ensemble size n (public). Teacher ids are 0..n-1."),
                            Key.choice(
                                    "ensemble.kind",
                                    "homogeneous",
                                    "homogeneous: ensemble-level accounting only; heterogeneous: a per-teacher vote cap may apply too (budget.per-teacher-votes).",
                                    "homogeneous",
                                    "heterogeneous"),
                            Key.choice(
                                    "ensemble.source",
                                    "planet-z",
                                    "Built-in simulated teachers (planet-z, alpha-mixture; WORKLOADS.md), external (an inference service answers the steps topic; see ./hotpate teachers), or records: teachers built in the job from private user records (docs/records.md).",
                                    "planet-z",
                                    "alpha-mixture",
                                    "external",
                                    "records"),
                            Key.of(
                                    "ensemble.k",
                                    Type.INT,
                                    20,
                                    "planet-z: shared numbers k; alpha-mixture: support size m of the common part s."),
                            Key.of(
                                    "ensemble.alpha",
                                    Type.DOUBLE,
                                    0.5,
                                    "alpha-mixture: weight alpha of the common part, in (0,1)."),
                            Key.of(
                                    "ensemble.seed",
                                    Type.LONG,
                                    1L,
                                    "Seed of the simulated ensemble (which teacher has which distribution)."),
                            Key.choice(
                                    "ensemble.payload",
                                    "sparse",
                                    "What built-in teachers send: sparse probabilities, top-k logits, a model-side vote, or raw samples.",
                                    "sparse",
                                    "top-k-logits",
                                    "model-vote",
                                    "raw-samples"),
                            Key.of(
                                    "ensemble.top-k",
                                    Type.INT,
                                    0,
                                    "Built-in teachers send only their k most likely tokens (0 = all); the rest abstains."),
                            Key.of(
                                    "ensemble.samples",
                                    Type.INT,
                                    32,
                                    "raw-samples payload: samples per answer."),
                            Key.of(
                                    "ensemble.vocabulary",
                                    Type.INT,
                                    1050,
                                    "Vocabulary size |V| (planet-z needs >= 1050: numbers 100..999, others 1000..1049)."),
                            Key.choice(
                                    "sampler.type",
                                    "coordinated",
                                    "coordinated (Hot PATE, shared randomness) or independent (cold PATE).",
                                    "coordinated",
                                    "independent"),
                            Key.of(
                                    "sampler.seed",
                                    Type.LONG,
                                    42L,
                                    "Public run seed; each step's seed is derived from it (never used for DP noise)."),
                            Key.of(
                                    "mechanism.name",
                                    Type.STRING,
                                    "hot-pate",
                                    "Aggregation mechanism (core Mechanisms.create name), or a per-teacher scheme: scheme-b (params sigma, threshold, sample-rate) or scheme-a (params epsilon, lower, upper, sample-rate), with budget.per-teacher-epsilon."),
                            Key.of(
                                    "mechanism.params",
                                    Type.DOUBLE_MAP,
                                    Map.of("sigma", 20.0),
                                    "Numeric parameters of the mechanism, e.g. {sigma1: 20, threshold: 125, sigma2: 20}; replaces the default as a whole; checked by the mechanism when the spec is loaded."),
                            Key.of(
                                    "budget.epsilon",
                                    Type.DOUBLE,
                                    8.0,
                                    "Ensemble epsilon budget of the run; no release is made past it. .inf = no budget: only for the non-private references targmax/tws (the summary then says \"private\": false, \"epsilon\": null); a non-private mechanism under a finite budget is refused."),
                            Key.of(
                                    "budget.delta",
                                    Type.DOUBLE,
                                    1e-6,
                                    "Target delta of the run, in (0,1)."),
                            Key.of(
                                    "budget.dataset",
                                    Type.STRING,
                                    "",
                                    "Id of the private dataset the run reads; every run on it is composed in the durable budget ledger. Default: derived from the teachers' data source: records-<records.topic> for a records run, else ensemble.id."),
                            Key.of(
                                    "budget.dataset-epsilon",
                                    Type.DOUBLE,
                                    Double.POSITIVE_INFINITY,
                                    "Total epsilon (at budget.delta) of the dataset over all runs, this one included (RDP curves composed). A run starts only if the dataset can still fund its whole budget.epsilon (else exit 2 naming the dataset), and stops at whichever of budget.epsilon and this comes first. .inf = no dataset cap (runs are still recorded)."),
                            Key.choice(
                                    "budget.ledger",
                                    "",
                                    "Where the durable per-dataset budget ledger lives: local (files under budget.ledger-dir, written before the releases they cover are committed) or kafka (the compacted topic kafka.topics.budget-ledger, written in the same transaction as the releases). Default: local when kafka.mode is embedded, else kafka.",
                                    "local",
                                    "kafka"),
                            Key.of(
                                    "budget.ledger-dir",
                                    Type.STRING,
                                    "~/.hotpate/ledger",
                                    "Directory of the local budget ledger (one JSON file per run under <dir>/<dataset>/runs/); ~ is the user's home."),
                            Key.of(
                                    "budget.per-teacher-votes",
                                    Type.INT,
                                    0,
                                    "Heterogeneous ensembles: a cap on each teacher's token votes (0 = none); a teacher at its cap abstains for good. A vote cap, not individual privacy accounting: the run's guarantee is the ensemble one."),
                            Key.of(
                                    "budget.per-teacher-epsilon",
                                    Type.DOUBLE,
                                    0.0,
                                    "Individual (per-teacher) privacy accounting: each teacher's target epsilon over every run on the dataset (0 = none). Needs mechanism.name scheme-b (default choice: Gaussian count with the Feldman-Zrnic individual Renyi filter) or scheme-a (BetweenThresholds, DERIVED proof) and ensemble.kind heterogeneous; K or tau is planned from it (./hotpate privacy plan --scheme a|b). A teacher whose next involvement would pass it abstains for good."),
                            Key.of(
                                    "budget.per-teacher-delta",
                                    Type.DOUBLE,
                                    0.0,
                                    "The per-teacher target delta for budget.per-teacher-epsilon (0 = budget.delta)."),
                            Key.of(
                                    "generation.sequences",
                                    Type.INT,
                                    20,
                                    "Synthetic sequences to generate."),
                            Key.of(
                                    "generation.concurrency",
                                    Type.INT,
                                    20,
                                    "Sequences in flight at once (sequence j+concurrency starts when j finishes)."),
                            Key.of(
                                    "generation.max-steps",
                                    Type.INT,
                                    8,
                                    "Tokens per sequence at most."),
                            Key.of(
                                    "generation.stop-token",
                                    Type.INT,
                                    -1,
                                    "A token that ends a sequence (-1 = none)."),
                            Key.choice(
                                    "generation.on-fail",
                                    "resample",
                                    "What a FAIL (⊥) does: resample with a new seed, take a public-model token, or stop the sequence.",
                                    "resample",
                                    "fallback",
                                    "stop"),
                            Key.of(
                                    "generation.max-attempts",
                                    Type.INT,
                                    3,
                                    "Attempts per position before the sequence stops (resample policy)."),
                            Key.of(
                                    "generation.step-deadline-ms",
                                    Type.LONG,
                                    5000L,
                                    "A step closes this long after the reducer first sees it; missing teachers abstain."),
                            Key.of(
                                    "generation.min-teachers",
                                    Type.INT,
                                    0,
                                    "Quorum: a step closed with fewer answering teachers is abandoned, not aggregated (no release, no charge) and re-issued by the watchdog. 0 = ceil(n/2). Liveness is treated as public."),
                            Key.of(
                                    "generation.watchdog-ms",
                                    Type.LONG,
                                    0L,
                                    "The sequence loop re-issues a position as a new attempt when no result for the issued step arrived this long after it was issued. 0 = 2 x step-deadline-ms + 5 x flink.checkpoint-interval-ms."),
                            Key.of(
                                    "generation.max-reissues",
                                    Type.INT,
                                    5,
                                    "Consecutive watchdog re-issues of a sequence before it finishes as NO_QUORUM."),
                            Key.choice(
                                    "kafka.mode",
                                    "embedded",
                                    "embedded: a KRaft broker in this process; external: use kafka.bootstrap.",
                                    "embedded",
                                    "external"),
                            Key.of(
                                    "kafka.bootstrap",
                                    Type.STRING,
                                    "",
                                    "Bootstrap servers (external mode), e.g. kafka:9092."),
                            Key.of(
                                    "kafka.partitions",
                                    Type.INT,
                                    2,
                                    "Partitions of topics the run creates (existing topics are kept)."),
                            Key.of(
                                    "kafka.transaction-timeout-ms",
                                    Type.LONG,
                                    300000L,
                                    "Transaction timeout of the exactly-once sink; must be <= the broker's transaction.max.timeout.ms."),
                            Key.of(
                                    "kafka.topics.steps",
                                    Type.STRING,
                                    "hotpate.steps",
                                    "Topic of generation steps."),
                            Key.of(
                                    "kafka.topics.distributions",
                                    Type.STRING,
                                    "hotpate.distributions",
                                    "Topic of teacher distributions."),
                            Key.of(
                                    "kafka.topics.results",
                                    Type.STRING,
                                    "hotpate.results",
                                    "Topic of step results."),
                            Key.of(
                                    "kafka.topics.records",
                                    Type.STRING,
                                    "hotpate.records",
                                    "Topic of finished synthetic records."),
                            Key.of(
                                    "kafka.topics.ledger",
                                    Type.STRING,
                                    "hotpate.ledger",
                                    "Topic of privacy ledger events."),
                            Key.of(
                                    "kafka.topics.rejected",
                                    Type.STRING,
                                    "hotpate.rejected",
                                    "Topic of dead letters (operator-only)."),
                            Key.of(
                                    "kafka.topics.budget-ledger",
                                    Type.STRING,
                                    "hotpate.budget-ledger",
                                    "Compacted topic of the durable per-dataset budget ledger (budget.ledger: kafka; operator-only), key <dataset>/run/<run id>."),
                            Key.of(
                                    "kafka.topics.teacher-feedback",
                                    Type.STRING,
                                    "hotpate.teacher-feedback",
                                    "Topic on which the job feeds each scheme-a release's outcome back to the involved teachers' keyed state (written and read by the job only, exactly-once; operator-only), key: the teacher id."),
                            Key.choice(
                                    "kafka.security-protocol",
                                    "PLAINTEXT",
                                    "Client security protocol of the job, the driver and ./hotpate teachers. With kafka.mode embedded, SASL_PLAINTEXT starts the broker with SCRAM-SHA-512 and ACLs (docs/threat-model.md).",
                                    "PLAINTEXT",
                                    "SASL_PLAINTEXT",
                                    "SASL_SSL"),
                            Key.choice(
                                    "kafka.sasl.mechanism",
                                    "SCRAM-SHA-512",
                                    "SASL mechanism of the clients.",
                                    "SCRAM-SHA-512",
                                    "SCRAM-SHA-256",
                                    "PLAIN"),
                            Key.of(
                                    "kafka.sasl.username",
                                    Type.STRING,
                                    "",
                                    "Principal of the job and the driver (the only writer of steps, results, records, ledger, rejected, budget-ledger)."),
                            Key.of(
                                    "kafka.sasl.password-env",
                                    Type.STRING,
                                    "HOTPATE_KAFKA_PASSWORD",
                                    "Environment variable (or Java system property) holding kafka.sasl.username's password; never written to a spec."),
                            Key.of(
                                    "kafka.sasl.teacher-username",
                                    Type.STRING,
                                    "",
                                    "Principal of the teacher worker (./hotpate teachers and the built-in worker): reads steps, writes distributions."),
                            Key.of(
                                    "kafka.sasl.teacher-password-env",
                                    Type.STRING,
                                    "HOTPATE_TEACHER_PASSWORD",
                                    "Environment variable (or Java system property) holding the teacher principal's password."),
                            Key.choice(
                                    "flink.mode",
                                    "embedded",
                                    "embedded: a MiniCluster in this process; remote: submit to flink.host:flink.port.",
                                    "embedded",
                                    "remote"),
                            Key.of("flink.host", Type.STRING, "", "JobManager host (remote mode)."),
                            Key.of(
                                    "flink.port",
                                    Type.INT,
                                    8081,
                                    "JobManager REST port (remote mode)."),
                            Key.of(
                                    "flink.jar",
                                    Type.STRING,
                                    "target/hotpate-0.1.0-SNAPSHOT-all.jar",
                                    "The job jar shipped to a remote cluster."),
                            Key.of("flink.parallelism", Type.INT, 2, "Job parallelism."),
                            Key.of(
                                    "flink.checkpoint-interval-ms",
                                    Type.LONG,
                                    1000L,
                                    "Checkpoint interval; exactly-once output becomes visible at each checkpoint."),
                            Key.of(
                                    "flink.state-dir",
                                    Type.STRING,
                                    "",
                                    "Checkpoint directory URI (default: <output dir>/<run id>/checkpoints; remote clusters need a shared path)."),
                            Key.of(
                                    "flink.max-parallelism",
                                    Type.INT,
                                    128,
                                    "Max parallelism (key groups) of the job: the largest parallelism a checkpoint or savepoint of it can be restored at."),
                            Key.of(
                                    "flink.metrics-port",
                                    Type.INT,
                                    0,
                                    "Prometheus reporter port of the embedded MiniCluster (0 = off); on a cluster the cluster's reporter configuration applies."),
                            Key.of(
                                    "output.dir",
                                    Type.STRING,
                                    "out",
                                    "Outputs go to <output.dir>/<run id>/."),
                            Key.of(
                                    "output.timeout-s",
                                    Type.LONG,
                                    900L,
                                    "Give up (exit 1) if the run has not finished after this long.")));

    private static final Map<String, Key> BY_PATH =
            KEYS.stream()
                    .collect(Collectors.toMap(Key::path, k -> k, (a, b) -> a, LinkedHashMap::new));
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private JobSpec() {}

    /** Parses and validates a spec file. */
    public static JobConfig load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new SpecException("cannot read job spec " + file + ": " + e.getMessage());
        }
        String base = file.getFileName().toString().replaceAll("\\.ya?ml$", "");
        return parse(text, base);
    }

    /** Parses and validates spec text; {@code defaultName} is used when {@code name} is absent. */
    public static JobConfig parse(String yaml, String defaultName) {
        JsonNode root;
        try {
            root = YAML.readTree(quoteInfinity(yaml));
        } catch (JsonProcessingException e) {
            throw new SpecException("job spec is not valid YAML: " + e.getOriginalMessage());
        }
        Map<String, JsonNode> flat = new TreeMap<>();
        if (root != null && !root.isNull() && !root.isMissingNode()) {
            if (!root.isObject()) {
                throw new SpecException("job spec must be a mapping of keys");
            }
            flatten("", root, flat);
        }
        RecordsSpec.applyRecordsDefaults(flat);
        Values v = new Values(flat);
        String name = v.str("name");
        try {
            return RecordsSpec.check(
                    new JobConfig(
                            name.isEmpty() ? defaultName : name,
                            new JobConfig.Ensemble(
                                    v.str("ensemble.id"),
                                    v.i("ensemble.teachers"),
                                    v.str("ensemble.kind").equals("heterogeneous"),
                                    JobConfig.TeacherSource.valueOf(
                                            enumName(v.str("ensemble.source"))),
                                    v.i("ensemble.k"),
                                    v.d("ensemble.alpha"),
                                    v.l("ensemble.seed"),
                                    JobConfig.Payload.valueOf(enumName(v.str("ensemble.payload"))),
                                    v.i("ensemble.top-k"),
                                    v.i("ensemble.samples"),
                                    v.i("ensemble.vocabulary")),
                            new JobConfig.Sampler(
                                    v.str("sampler.type").equals("coordinated"),
                                    v.l("sampler.seed")),
                            new JobConfig.Mechanism(
                                    v.str("mechanism.name"), v.map("mechanism.params")),
                            new JobConfig.Budget(
                                    v.d("budget.epsilon"),
                                    v.d("budget.delta"),
                                    v.i("budget.per-teacher-votes"),
                                    v.str("budget.dataset"),
                                    v.d("budget.dataset-epsilon"),
                                    v.str("budget.ledger"),
                                    v.str("budget.ledger-dir"),
                                    v.d("budget.per-teacher-epsilon"),
                                    v.d("budget.per-teacher-delta")),
                            new JobConfig.Generation(
                                    v.i("generation.sequences"),
                                    v.i("generation.concurrency"),
                                    v.i("generation.max-steps"),
                                    v.i("generation.stop-token"),
                                    org.hotpate.core.generation.FailPolicy.valueOf(
                                            enumName(v.str("generation.on-fail"))),
                                    v.i("generation.max-attempts"),
                                    v.l("generation.step-deadline-ms"),
                                    v.i("generation.min-teachers"),
                                    v.l("generation.watchdog-ms"),
                                    v.i("generation.max-reissues")),
                            new JobConfig.Kafka(
                                    v.str("kafka.mode").equals("embedded"),
                                    v.str("kafka.bootstrap"),
                                    v.i("kafka.partitions"),
                                    topics(v),
                                    v.l("kafka.transaction-timeout-ms"),
                                    new JobConfig.Security(
                                            v.str("kafka.security-protocol"),
                                            v.str("kafka.sasl.mechanism"),
                                            v.str("kafka.sasl.username"),
                                            v.str("kafka.sasl.password-env"),
                                            v.str("kafka.sasl.teacher-username"),
                                            v.str("kafka.sasl.teacher-password-env"))),
                            new JobConfig.Flink(
                                    v.str("flink.mode").equals("embedded"),
                                    v.str("flink.host"),
                                    v.i("flink.port"),
                                    v.str("flink.jar"),
                                    v.i("flink.parallelism"),
                                    v.l("flink.checkpoint-interval-ms"),
                                    v.str("flink.state-dir"),
                                    v.i("flink.max-parallelism"),
                                    v.i("flink.metrics-port")),
                            new JobConfig.Output(v.str("output.dir"), v.l("output.timeout-s")),
                            RecordsSpec.records(v)));
        } catch (IllegalArgumentException e) {
            throw new SpecException(e.getMessage());
        }
    }

    private static JobConfig.Topics topics(Values v) {
        Map<String, String> names = new TreeMap<>();
        for (Topic<?> t : Topic.ALL) {
            names.put(t.id(), v.str(t.optionKey()));
        }
        return new JobConfig.Topics(names);
    }

    /** Keys that accept YAML's {@code .inf} (no limit). */
    private static final java.util.Set<String> INFINITY_KEYS =
            java.util.Set.of("budget.epsilon", "budget.dataset-epsilon");

    /** Keys that were renamed: reading one stops the run with this message. */
    private static final Map<String, String> RENAMED =
            Map.of(
                    "budget.per-teacher",
                    "budget.per-teacher was a cap on each teacher's token votes and is now"
                            + " budget.per-teacher-votes; individual (per-teacher) privacy accounting"
                            + " is budget.per-teacher-epsilon (with budget.per-teacher-delta) and"
                            + " mechanism.name scheme-b or scheme-a");

    /**
     * Jackson's YAML parser cannot read the YAML float {@code .inf}; an unquoted {@code .inf}
     * scalar is quoted here and read back as +∞ by the keys in {@link #INFINITY_KEYS}.
     */
    private static final java.util.regex.Pattern UNQUOTED_INF =
            java.util.regex.Pattern.compile(
                    "([:\\[,]\\s*)\\+?\\.(?:inf|Inf|INF)(?=\\s*(?:[,}\\]#]|$))",
                    java.util.regex.Pattern.MULTILINE);

    static String quoteInfinity(String yaml) {
        return UNQUOTED_INF.matcher(yaml).replaceAll("$1\".inf\"");
    }

    /** The key list as help text (one block per key). */
    public static String describeKeys() {
        StringBuilder sb = new StringBuilder();
        for (Key k : KEYS) {
            sb.append(
                    String.format(
                            "  %-34s %s (default: %s)%n      %s%n",
                            k.path(), k.typeName(), render(k.dflt()), k.description()));
        }
        return sb.toString();
    }

    static String render(Object dflt) {
        if (dflt instanceof List<?> l) {
            return l.stream()
                    .map(x -> "\"" + String.valueOf(x).replace("\n", "\\n") + "\"")
                    .collect(Collectors.joining(", ", "[", "]"));
        }
        if (dflt instanceof Map<?, ?> m && m.isEmpty()) {
            return "{}";
        }
        if (dflt instanceof String s && s.isEmpty()) {
            return "\"\"";
        }
        if (dflt instanceof Double d && d.isInfinite()) {
            return ".inf";
        }
        return String.valueOf(dflt);
    }

    private static String enumName(String s) {
        return s.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    private static void flatten(String prefix, JsonNode node, Map<String, JsonNode> out) {
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String path = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
            JsonNode value = e.getValue();
            Key key = BY_PATH.get(path);
            if (RENAMED.containsKey(path)) {
                throw new SpecException(RENAMED.get(path));
            }
            if (key != null) {
                out.put(path, value);
            } else if (value.isObject() && isSection(path)) {
                flatten(path, value, out);
            } else if (value.isTextual() && BY_PATH.containsKey(path + ".mode")) {
                out.put(path + ".mode", value); // kafka: embedded
            } else {
                throw new SpecException("unknown key '" + path + "'" + suggestion(path));
            }
        }
    }

    private static boolean isSection(String path) {
        return KEYS.stream().anyMatch(k -> k.path().startsWith(path + "."));
    }

    private static String suggestion(String path) {
        String leaf = path.substring(path.lastIndexOf('.') + 1);
        return KEYS.stream()
                .map(Key::path)
                .filter(p -> p.endsWith("." + leaf) || p.equals(leaf))
                .findFirst()
                .map(p -> " (did you mean '" + p + "'?)")
                .orElse(" (see ./hotpate run --help)");
    }

    /** Typed access with defaults; a wrong type raises SpecException naming the key. */
    record Values(Map<String, JsonNode> flat) {
        boolean has(String path) {
            JsonNode n = flat.get(path);
            return n != null && !n.isNull();
        }

        List<String> list(String path) {
            JsonNode n = node(path);
            if (n == null || n.isNull()) {
                @SuppressWarnings("unchecked")
                List<String> dflt = (List<String>) BY_PATH.get(path).dflt();
                return dflt;
            }
            if (n.isTextual()) {
                return List.of(n.asText());
            }
            if (!n.isArray()) {
                throw new SpecException(path + " must be a list of strings; got " + n);
            }
            List<String> out = new java.util.ArrayList<>();
            for (JsonNode e : n) {
                if (!e.isTextual()) {
                    throw new SpecException(path + " must be a list of strings; got " + n);
                }
                out.add(e.asText());
            }
            return List.copyOf(out);
        }

        private JsonNode node(String path) {
            return flat.get(path);
        }

        String str(String path) {
            Key k = BY_PATH.get(path);
            JsonNode n = node(path);
            if (n == null || n.isNull()) {
                return (String) k.dflt();
            }
            if (!n.isValueNode() || n.isBinary()) {
                throw new SpecException(
                        path
                                + " must be a "
                                + (k.type() == Type.ENUM ? "one of " + k.choices() : "string")
                                + "; got "
                                + n);
            }
            String s = n.asText();
            if (k.type() == Type.ENUM && !k.choices().contains(s)) {
                throw new SpecException(
                        path
                                + " must be one of "
                                + String.join(", ", k.choices())
                                + "; got '"
                                + s
                                + "'");
            }
            return s;
        }

        long l(String path) {
            JsonNode n = node(path);
            Key k = BY_PATH.get(path);
            if (n == null || n.isNull()) {
                return ((Number) k.dflt()).longValue();
            }
            if (n.isIntegralNumber() && n.canConvertToLong()) {
                return n.longValue();
            }
            throw new SpecException(path + " must be an integer; got " + n);
        }

        int i(String path) {
            long v = l(path);
            if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                throw new SpecException(path + " is out of range; got " + v);
            }
            return (int) v;
        }

        double d(String path) {
            JsonNode n = node(path);
            if (n == null || n.isNull()) {
                return ((Number) BY_PATH.get(path).dflt()).doubleValue();
            }
            if (n.isNumber()) {
                return n.doubleValue();
            }
            if (INFINITY_KEYS.contains(path)
                    && n.isTextual()
                    && n.asText().toLowerCase(Locale.ROOT).matches("\\+?\\.?inf(inity)?")) {
                return Double.POSITIVE_INFINITY;
            }
            throw new SpecException(
                    path
                            + " must be a number"
                            + (INFINITY_KEYS.contains(path) ? " or .inf" : "")
                            + "; got "
                            + n);
        }

        Map<String, Double> map(String path) {
            JsonNode n = node(path);
            Map<String, Double> m = new TreeMap<>();
            if (n == null || n.isNull()) {
                @SuppressWarnings("unchecked")
                Map<String, Double> dflt = (Map<String, Double>) BY_PATH.get(path).dflt();
                m.putAll(dflt);
                return m;
            }
            if (!n.isObject()) {
                throw new SpecException(path + " must be a mapping of names to numbers; got " + n);
            }
            Iterator<Map.Entry<String, JsonNode>> it = ((ObjectNode) n).fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!e.getValue().isNumber() || !Double.isFinite(e.getValue().doubleValue())) {
                    throw new SpecException(
                            path
                                    + "."
                                    + e.getKey()
                                    + " must be a finite number; got "
                                    + e.getValue());
                }
                m.put(e.getKey(), e.getValue().doubleValue());
            }
            return m;
        }
    }

    /** For tests and docs: the paths of all keys. */
    public static List<String> paths() {
        return Arrays.asList(KEYS.stream().map(Key::path).toArray(String[]::new));
    }
}
