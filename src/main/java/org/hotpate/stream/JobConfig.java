package org.hotpate.stream;

import static org.hotpate.core.util.Preconditions.checkArgument;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.hotpate.core.accounting.IndividualPlan;
import org.hotpate.core.accounting.IndividualSchemes;
import org.hotpate.core.generation.FailPolicy;
import org.hotpate.core.mechanism.AutoPlanner;
import org.hotpate.core.mechanism.Mechanisms;
import org.hotpate.core.privacy.PrivacyBudget;
import org.hotpate.protocol.BudgetTerms;
import org.hotpate.protocol.EarlyStop;
import org.hotpate.protocol.RunShape;
import org.hotpate.protocol.SequenceProgress;
import org.hotpate.teachers.SimulatedTeachers;

/**
 * The one immutable, validated configuration of a run: the value of every option declared in {@link
 * JobOptions} ({@link #get}, {@link #find}), typed views per section ({@link #ensemble()}, {@link
 * #budget()}, …), the values derived from others ({@link #datasetId()}, {@link #minTeachers()},
 * {@link #watchdogMs()}, …) and the checks that concern several options. Built by {@link JobSpec}
 * from a spec; copies with other values through {@link #with} (validated again). Serializable:
 * operators receive the parts they need.
 */
public final class JobConfig implements Serializable {
    private static final long serialVersionUID = 2L;

    private final OptionValues values;

    /** {@code mechanism.name: auto}'s plan, computed once (a function of public options only). */
    private transient AutoPlanner.Plan plan;

    private JobConfig(OptionValues values) {
        this.values = values;
        checkMechanismName();
        checkAuto();
        checkArgument(
                name().matches("[A-Za-z0-9._-]+"),
                "name must match [A-Za-z0-9._-]+; got '" + name() + "'");
        checkArgument(
                budget().perTeacherVotes() == 0 || ensemble().heterogeneous(),
                "budget.per-teacher-votes needs ensemble.kind: heterogeneous; got "
                        + budget().perTeacherVotes()
                        + " for a homogeneous ensemble");
        checkNonPrivateMechanism(mechanism(), budget());
        checkIndividualAccounting(ensemble(), mechanism(), budget());
        checkArgument(
                budget().perTeacherDelta().isEmpty() || budget().perTeacherEpsilon() > 0,
                "budget.per-teacher-delta needs budget.per-teacher-epsilon > 0; got "
                        + budget().perTeacherDelta().orElse(0.0));
        checkArgument(
                get(JobOptions.KAFKA_EMBEDDED_PORT) == 0
                        || (kafka().embedded() && !kafka().security().sasl()),
                "kafka.embedded-port is for a plaintext embedded broker (kafka.mode: embedded,"
                        + " no SASL)");
        checkArgument(
                !ensemble().fromRecords() || !kafka().security().sasl(),
                "ensemble.source: records does not support kafka.security-protocol "
                        + kafka().security().protocol()
                        + " yet (the records loader's Kafka clients do not authenticate);"
                        + " use PLAINTEXT, e.g. on a private network");
        checkArgument(
                minTeachers() <= ensemble().teachers(),
                "generation.min-teachers must be <= ensemble.teachers ("
                        + ensemble().teachers()
                        + "); got "
                        + minTeachers());
        checkArgument(
                generation().watchdogMs().orElse(Long.MAX_VALUE) > generation().stepDeadlineMs(),
                "generation.watchdog-ms must be 0 (derived) or > generation.step-deadline-ms ("
                        + generation().stepDeadlineMs()
                        + "); got "
                        + generation().watchdogMs().orElse(0L));
        checkArgument(
                !budget().ledger().equals(Optional.of("local"))
                        || flink().embedded()
                        || flink().sharedFilesystem(),
                "budget.ledger: local needs flink.mode: embedded or flink.filesystem: shared (the"
                        + " accountant writes the ledger files from the TaskManagers); use"
                        + " budget.ledger: kafka on a cluster");
        checkArgument(
                !budget().ledger().equals(Optional.of("kafka")) || !kafka().embedded(),
                "budget.ledger: kafka needs kafka.mode: external (the embedded broker's log is"
                        + " deleted when the run ends, so the ledger would not survive it)");
        checkEnsemble(ensemble());
        checkArgument(
                kafka().embedded() || !kafka().bootstrap().isBlank(),
                "kafka.bootstrap must be set when kafka.mode is external");
        checkArgument(
                !kafka().security().sasl() || !kafka().security().username().isBlank(),
                "kafka.sasl.username must be set when kafka.security-protocol is "
                        + kafka().security().protocol());
        checkArgument(
                flink().embedded() || !flink().host().isBlank(),
                "flink.host must be set when flink.mode is remote");
        checkArgument(
                flink().maxParallelism() >= flink().parallelism(),
                "flink.max-parallelism must be >= flink.parallelism ("
                        + flink().parallelism()
                        + ") and <= 32768; got "
                        + flink().maxParallelism());
        checkRecords();
    }

    /** A configuration of {@code values} (every check of this class applied). */
    public static JobConfig of(OptionValues values) {
        return new JobConfig(values);
    }

    /** The value of option {@code o} (a derived option the spec left out: {@link #find}). */
    public <T> T get(Option<T> o) {
        return values.get(o);
    }

    /** The value of option {@code o}, empty for a derived option the spec left out. */
    public <T> Optional<T> find(Option<T> o) {
        return values.find(o);
    }

    /** A copy with {@code o} = {@code v}, validated again. */
    public <T> JobConfig with(Option<T> o, T v) {
        return new JobConfig(values.with(o, v));
    }

    /** Every option's value. */
    public OptionValues values() {
        return values;
    }

    /** {@code name}: the run's name (the run id is {@code <name>-<UTC timestamp>-<hex>}). */
    public String name() {
        return find(JobOptions.NAME).orElse("");
    }

    public Ensemble ensemble() {
        return new Ensemble(values);
    }

    public Sampler sampler() {
        return new Sampler(
                get(JobOptions.SAMPLER_TYPE).equals("coordinated"), get(JobOptions.SAMPLER_SEED));
    }

    /**
     * The aggregation mechanism the run uses: the spec's, or for {@code mechanism.name: auto} the
     * one {@link #mechanismPlan()} chose, with its parameters.
     */
    public Mechanism mechanism() {
        return mechanismPlan()
                .map(p -> new Mechanism(p.mechanism(), p.params()))
                .orElseGet(
                        () ->
                                new Mechanism(
                                        get(JobOptions.MECHANISM_NAME),
                                        get(JobOptions.MECHANISM_PARAMS)));
    }

    /**
     * For {@code mechanism.name: auto}, the plan: the mechanism and its parameters chosen from the
     * public inputs n, |V|, the ensemble kind, the budget and sequences × max-steps ({@link
     * AutoPlanner}); empty for a named mechanism. A records run's n is its number of users, so the
     * plan is made again when the driver sets it ({@link #withTeachers}).
     */
    public Optional<AutoPlanner.Plan> mechanismPlan() {
        if (!get(JobOptions.MECHANISM_NAME).equals(AutoPlanner.NAME)) {
            return Optional.empty();
        }
        if (plan == null) {
            plan =
                    AutoPlanner.plan(
                            new AutoPlanner.Inputs(
                                    ensemble().teachers(),
                                    ensemble().effectiveVocabulary(),
                                    ensemble().heterogeneous(),
                                    new PrivacyBudget(budget().epsilon(), budget().delta()),
                                    (long) generation().sequences() * generation().maxSteps()));
        }
        return Optional.of(plan);
    }

    /** {@code mechanism.name: auto} plans every parameter under a finite budget. */
    private void checkAuto() {
        if (!get(JobOptions.MECHANISM_NAME).equals(AutoPlanner.NAME)) {
            return;
        }
        checkArgument(
                Double.isFinite(get(JobOptions.BUDGET_EPSILON)),
                "mechanism.name auto plans a differentially private run: it needs a finite"
                        + " budget.epsilon; got .inf");
        checkArgument(
                get(JobOptions.MECHANISM_PARAMS).equals(JobOptions.MECHANISM_PARAMS.defaultValue()),
                "mechanism.name auto chooses every parameter itself: leave mechanism.params out;"
                        + " got "
                        + get(JobOptions.MECHANISM_PARAMS));
    }

    public Budget budget() {
        return new Budget(values);
    }

    public Generation generation() {
        return new Generation(values);
    }

    public Kafka kafka() {
        return new Kafka(values);
    }

    public Flink flink() {
        return new Flink(values);
    }

    public Output output() {
        return new Output(values);
    }

    public RecordsConfig records() {
        return new RecordsConfig(values);
    }

    /**
     * An unknown {@code mechanism.name} is a spec error at load, whatever the entry point, and the
     * refusal lists every name a spec may use: {@code auto}, the ensemble mechanisms and the
     * per-teacher schemes.
     */
    private void checkMechanismName() {
        String name = get(JobOptions.MECHANISM_NAME);
        java.util.Set<String> known = new java.util.LinkedHashSet<>();
        known.add(AutoPlanner.NAME);
        known.addAll(Mechanisms.names());
        known.addAll(new java.util.TreeSet<>(IndividualSchemes.names()));
        checkArgument(
                known.contains(name),
                "mechanism.name: unknown mechanism '"
                        + name
                        + "'; known: "
                        + String.join(", ", known));
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
        if (!IndividualSchemes.isIndividual(mechanism().name())) {
            return null;
        }
        return IndividualSchemes.plan(
                mechanism().name(),
                mechanism().params(),
                budget().perTeacherEpsilon(),
                budget().targetTeacherDelta());
    }

    /** Whether the run's releases are differentially private (false for targmax/tws). */
    public boolean isPrivate() {
        if (IndividualSchemes.isIndividual(mechanism().name())) {
            return true;
        }
        try {
            return Mechanisms.isDifferentiallyPrivate(mechanism().name());
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
    /**
     * Whether the run's tokens are text of a tokenizer (decoded records, prompts, stop strings):
     * records runs, and external-teacher runs with {@code tokenizer.file} (a language model's
     * vocabulary, e.g. the Python teacher worker's).
     */
    public boolean decodesText() {
        return ensemble().fromRecords()
                || (ensemble().source() == TeacherSource.EXTERNAL
                        && !get(JobOptions.TOKENIZER_FILE).isEmpty());
    }

    public String datasetId() {
        return budget().dataset()
                .orElseGet(
                        () ->
                                ensemble().fromRecords()
                                        ? "records-" + records().topic()
                                        : ensemble().id());
    }

    /** Where the durable budget ledger lives. */
    public enum LedgerMode {
        LOCAL,
        KAFKA;

        /** The spec's spelling ({@code budget.ledger}). */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** {@code budget.ledger}, derived: local with an embedded broker and kafka otherwise. */
    public LedgerMode ledgerMode() {
        return budget().ledger()
                .map(l -> l.equals("local") ? LedgerMode.LOCAL : LedgerMode.KAFKA)
                .orElse(kafka().embedded() ? LedgerMode.LOCAL : LedgerMode.KAFKA);
    }

    /** {@code budget.ledger-dir} with a leading {@code ~} expanded to the user's home. */
    public Path ledgerDir() {
        return expandHome(budget().ledgerDir());
    }

    /** {@code dir} as an absolute path, a leading {@code ~} expanded to the user's home. */
    public static Path expandHome(String dir) {
        String d = dir;
        if (d.equals("~") || d.startsWith("~/")) {
            d = System.getProperty("user.home") + d.substring(1);
        }
        return Path.of(d).toAbsolutePath();
    }

    /** {@code generation.min-teachers}, derived: ceil(n/2). */
    public int minTeachers() {
        return generation().minTeachers().orElse((ensemble().teachers() + 1) / 2);
    }

    /** {@code generation.watchdog-ms}, derived: 2 × step deadline + 5 × checkpoint interval. */
    public long watchdogMs() {
        return generation()
                .watchdogMs()
                .orElse(2 * generation().stepDeadlineMs() + 5 * flink().checkpointIntervalMs());
    }

    /**
     * The public shape of run {@code runId} of this spec: ensemble, run seed, vocabulary, step
     * deadline and the bounds of its steps (attempts per position count the watchdog's re-issues).
     */
    public RunShape runShape(String runId) {
        Generation g = generation();
        return new RunShape(
                runId,
                ensemble().id(),
                sampler().seed(),
                ensemble().effectiveVocabulary(),
                g.stepDeadlineMs(),
                g.sequences(),
                g.maxSteps(),
                Math.max(g.maxAttempts(), firstAttempts()) * (g.maxReissues() + 1),
                earlyStop());
    }

    /**
     * {@code generation.min-tokens} and the run's public stop tokens: the configured stop token,
     * and in records runs end-of-text and every token whose text holds a stop string.
     */
    public EarlyStop earlyStop() {
        int min = get(JobOptions.GENERATION_MIN_TOKENS);
        if (min == 0) {
            return EarlyStop.NONE;
        }
        return new EarlyStop(min, SequenceText.of(this).stopTokens(generation().stopToken()));
    }

    /** The run's sequence policy: the ⊥ policy, attempts, length, re-issues, concurrency. */
    public SequenceProgress.Policy sequencePolicy() {
        Generation g = generation();
        return new SequenceProgress.Policy(
                g.onFail(),
                g.maxAttempts(),
                g.maxSteps(),
                g.maxReissues(),
                g.concurrency(),
                g.sequences(),
                get(JobOptions.GENERATION_MIN_TOKENS),
                firstAttempts());
    }

    /** {@code generation.first-attempts}, derived: {@code generation.max-attempts}. */
    public int firstAttempts() {
        return find(JobOptions.GENERATION_FIRST_ATTEMPTS).orElse(generation().maxAttempts());
    }

    /** A copy with the ensemble size n (records runs: the driver counts the users). */
    public JobConfig withTeachers(int n) {
        return with(JobOptions.ENSEMBLE_TEACHERS, n);
    }

    /** Planet-Z needs its vocabulary and at most 900 shared numbers. */
    private static void checkEnsemble(Ensemble e) {
        if (e.source() == TeacherSource.PLANET_Z) {
            checkArgument(
                    e.vocabularySize() >= 1050,
                    "ensemble.vocabulary must be >= 1050 for planet-z; got " + e.vocabularySize());
            checkArgument(e.k() <= 900, "ensemble.k must be <= 900 for planet-z; got " + e.k());
        }
    }

    /**
     * What the server behind an http teacher can do (docs/llm-teachers.md): a server-seeded vote is
     * a coordinated draw only where one seed gives every request of a step the same exponential
     * race — vLLM's V1 sampler, or its model runner V2 when every prompt has one token length.
     */
    private static void checkHttpTeacher(RecordsConfig.Teacher t) {
        String server = t.server();
        if (t.serverSeeded()) {
            checkArgument(
                    t.model() == RecordsConfig.Model.HTTP,
                    "teacher.vote: server-seeded needs teacher.model: http");
            checkArgument(
                    server.equals("vllm") || server.equals("vllm-v2"),
                    "teacher.vote: server-seeded is a coordinated draw only on vLLM's V1 sampler"
                            + " (teacher.server: vllm, or vllm-v2 with teacher.pad-tokens); "
                            + server
                            + "'s seed is not an exponential race shared by all requests"
                            + " (llama.cpp: an inverse-CDF draw; openai: best-effort), so it is"
                            + " refused; use teacher.vote: distribution");
            checkArgument(
                    !server.equals("vllm-v2") || (t.tokenIds() && t.padTokens() > 0),
                    "teacher.server: vllm-v2 keys its noise by position: a server-seeded vote"
                            + " needs teacher.token-ids: true and teacher.pad-tokens > 0 so that"
                            + " every prompt of a step has one token length");
        }
        checkArgument(
                !server.equals("openai") || t.topK() <= 20,
                "teacher.server: openai returns at most 20 log-probabilities; teacher.top-k must"
                        + " be <= 20; got "
                        + t.topK());
        checkArgument(
                t.padTokens() == 0 || t.tokenIds(),
                "teacher.pad-tokens needs teacher.token-ids: true (padding is counted in tokens)");
    }

    /** What a records run needs: one prompt source, an http teacher's URL, no public fallback. */
    private void checkRecords() {
        RecordsConfig r = records();
        checkArgument(
                r.prompt().isEmpty() || r.promptsFile().isEmpty(),
                "set generation.prompt or generation.prompts-file, not both");
        checkArgument(
                r.teacher().model() != RecordsConfig.Model.HTTP || !r.teacher().url().isBlank(),
                "teacher.url must be set when teacher.model is http");
        checkHttpTeacher(r.teacher());
        checkArgument(
                !ensemble().fromRecords() || generation().onFail() != FailPolicy.FALLBACK,
                "generation.on-fail: fallback needs a simulated ensemble's public model; records"
                        + " runs use resample or stop");
        checkArgument(
                ensemble().source() != TeacherSource.EXTERNAL
                        || generation().onFail() != FailPolicy.FALLBACK,
                "generation.on-fail: fallback needs a public model, and a run with external"
                        + " teachers has only a flat one (it would pad the text with uniformly random"
                        + " tokens); use resample or stop");
        checkPrior(r);
    }

    /**
     * {@code teacher.prior: dp-ngram}: the driver releases the prior from the records file, and the
     * run's filter charges it first — so it needs ngram teachers of a records file, a finite run
     * budget with a DP ensemble mechanism, and no dataset cap (the dataset's δ share is planned
     * without the prior's δ term).
     */
    private void checkPrior(RecordsConfig r) {
        if (!r.teacher().dpPrior()) {
            return;
        }
        String why = "teacher.prior: dp-ngram needs ";
        checkArgument(
                ensemble().fromRecords() && r.teacher().model() == RecordsConfig.Model.NGRAM,
                why + "ensemble.source: records with teacher.model: ngram");
        checkArgument(
                !r.file().isEmpty(), why + "records.file (the driver reads the users' records)");
        checkArgument(
                Double.isFinite(budget().epsilon()) && isPrivate(),
                why + "a finite budget.epsilon and a DP mechanism (its release is charged to it)");
        checkArgument(
                individualPlan() == null,
                why + "an ensemble mechanism (the per-teacher schemes do not charge it)");
        checkArgument(
                !Double.isFinite(budget().datasetEpsilon()),
                why
                        + "no budget.dataset-epsilon (the dataset filter's delta share is planned"
                        + " without the prior's delta term)");
    }

    private static String enumName(String s) {
        return s.toUpperCase(Locale.ROOT).replace('-', '_');
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
    public record Ensemble(OptionValues values) implements Serializable {
        public String id() {
            return values.get(JobOptions.ENSEMBLE_ID);
        }

        public int teachers() {
            return values.get(JobOptions.ENSEMBLE_TEACHERS);
        }

        public boolean heterogeneous() {
            return values.get(JobOptions.ENSEMBLE_KIND).equals("heterogeneous");
        }

        public TeacherSource source() {
            return TeacherSource.valueOf(enumName(values.get(JobOptions.ENSEMBLE_SOURCE)));
        }

        public int k() {
            return values.get(JobOptions.ENSEMBLE_K);
        }

        public double alpha() {
            return values.get(JobOptions.ENSEMBLE_ALPHA);
        }

        public long seed() {
            return values.get(JobOptions.ENSEMBLE_SEED);
        }

        public Payload payload() {
            return Payload.valueOf(enumName(values.get(JobOptions.ENSEMBLE_PAYLOAD)));
        }

        public int topK() {
            return values.get(JobOptions.ENSEMBLE_TOP_K);
        }

        public int samples() {
            return values.get(JobOptions.ENSEMBLE_SAMPLES);
        }

        public int vocabularySize() {
            return values.get(JobOptions.ENSEMBLE_VOCABULARY);
        }

        /** Teachers built in the job from private records (ensemble.source: records). */
        public boolean fromRecords() {
            return source() == TeacherSource.RECORDS;
        }

        /** The built-in teachers (or, for external ensembles, just the public model). */
        public SimulatedTeachers simulated() {
            switch (source()) {
                case PLANET_Z:
                    return SimulatedTeachers.planetZ(seed(), k(), teachers());
                case ALPHA_MIXTURE:
                    return SimulatedTeachers.alphaMixture(alpha(), k(), teachers());
                default:
                    return SimulatedTeachers.external(vocabularySize());
            }
        }

        /**
         * The vocabulary size steps announce: the configured one, or the α-mixture's m + n if
         * larger.
         */
        public int effectiveVocabulary() {
            return source() == TeacherSource.ALPHA_MIXTURE
                    ? Math.max(vocabularySize(), k() + teachers())
                    : vocabularySize();
        }
    }

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
            return FailPolicy.valueOf(enumName(values.get(JobOptions.GENERATION_ON_FAIL)));
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

    /**
     * The topic names of a run, by {@link Topic} ({@code kafka.topics.<id>}). Public: results,
     * records (and steps, distributions as inputs); operator-only: the others (threat model).
     */
    public record Topics(OptionValues values) implements Serializable {
        /** The name of {@code topic} in this run. */
        public String name(Topic<?> topic) {
            return values.get(JobOptions.topic(topic));
        }

        /** The names of {@code topics} in this run. */
        public List<String> names(List<Topic<?>> topics) {
            return topics.stream().map(this::name).toList();
        }
    }

    /**
     * Kafka client security of the job, the driver and the teacher worker. Passwords are never in
     * the spec: {@code passwordEnv}/{@code teacherPasswordEnv} name an environment variable (or a
     * Java system property) that holds them.
     */
    public record Security(OptionValues values) implements Serializable {
        public String protocol() {
            return values.get(JobOptions.KAFKA_SECURITY_PROTOCOL);
        }

        public String saslMechanism() {
            return values.get(JobOptions.KAFKA_SASL_MECHANISM);
        }

        public String username() {
            return values.get(JobOptions.KAFKA_SASL_USERNAME);
        }

        public String passwordEnv() {
            return values.get(JobOptions.KAFKA_SASL_PASSWORD_ENV);
        }

        public String teacherUsername() {
            return values.get(JobOptions.KAFKA_SASL_TEACHER_USERNAME);
        }

        public String teacherPasswordEnv() {
            return values.get(JobOptions.KAFKA_SASL_TEACHER_PASSWORD_ENV);
        }

        public boolean sasl() {
            return protocol().startsWith("SASL_");
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

        public Topics topics() {
            return new Topics(values);
        }

        public long transactionTimeoutMs() {
            return values.get(JobOptions.KAFKA_TRANSACTION_TIMEOUT_MS);
        }

        public Security security() {
            return new Security(values);
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
