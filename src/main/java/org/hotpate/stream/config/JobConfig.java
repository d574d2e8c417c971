package org.hotpate.stream.config;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.hotpate.core.mechanism.AutoPlanner;
import org.hotpate.core.mechanism.ConfiguredMechanism;
import org.hotpate.core.mechanism.MechanismRegistry;
import org.hotpate.protocol.RunPlan;
import org.hotpate.protocol.SequenceProgress;
import org.hotpate.teachers.SimulatedTeachers;

/**
 * The one immutable, validated configuration of a run: the value of every option declared in {@link
 * JobOptions} ({@link #get}, {@link #find}), typed views per section ({@link #ensemble()}, {@link
 * #budget()}, …), the values derived from others ({@link #datasetId()}, {@link #minTeachers()},
 * {@link #watchdogMs()}, …). Every configuration is checked when it is built: the mechanism choice
 * by {@link MechanismChoice} against core's {@link MechanismRegistry}, the checks that concern
 * several options by {@link JobChecks}; the section views are {@link JobSections}'. Built by {@link
 * JobSpec} from a spec; copies with other values through {@link #with} (validated again).
 * Serializable: operators receive the parts they need.
 */
public final class JobConfig implements Serializable {
    private static final long serialVersionUID = 2L;

    private final OptionValues values;

    /** {@code mechanism.name: auto}'s plan, computed once (a function of public options only). */
    private transient AutoPlanner.Plan plan;

    /** The run resolved once, at load ({@link #plan}); rebuilt after deserialisation. */
    private transient RunPlan runPlan;

    private JobConfig(OptionValues values) {
        this.values = values;
        MechanismChoice.check(this);
        MechanismChoice.Resolved mechanism = MechanismChoice.resolve(this);
        JobChecks.check(this);
        this.runPlan = CoreBindings.plan(this, mechanism);
    }

    /**
     * The run resolved once (issue 33, 40): what releases a step, the budget plan (terms, worst
     * case, run filter), the accounting mode and the prior's plan. Built when the configuration is
     * (every entry point), so the driver, the ledger, the topology and the report read one value.
     */
    public RunPlan plan() {
        if (runPlan == null) {
            runPlan = CoreBindings.plan(this, MechanismChoice.resolve(this));
        }
        return runPlan;
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

    public JobSections.Sampler sampler() {
        return new JobSections.Sampler(
                get(JobOptions.SAMPLER_TYPE).equals("coordinated"), get(JobOptions.SAMPLER_SEED));
    }

    /**
     * The aggregation mechanism the run uses: the spec's, or for {@code mechanism.name: auto} the
     * one {@link #mechanismPlan()} chose, with its parameters.
     */
    public ConfiguredMechanism mechanism() {
        return mechanismPlan()
                .map(p -> new ConfiguredMechanism(p.mechanism(), p.params()))
                .orElseGet(
                        () ->
                                new ConfiguredMechanism(
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
        if (plan == null) {
            plan = MechanismChoice.plan(this).orElse(null);
        }
        return Optional.ofNullable(plan);
    }

    public JobSections.Budget budget() {
        return new JobSections.Budget(values);
    }

    public JobSections.Generation generation() {
        return new JobSections.Generation(values);
    }

    public JobSections.Kafka kafka() {
        return new JobSections.Kafka(values);
    }

    public JobSections.Flink flink() {
        return new JobSections.Flink(values);
    }

    public JobSections.Output output() {
        return new JobSections.Output(values);
    }

    public RecordsConfig records() {
        return new RecordsConfig(values);
    }

    /**
     * Whether the run's tokens are text of a tokenizer (decoded records, prompts, stop strings):
     * records runs, and external-teacher runs with {@code tokenizer.file} (a language model's
     * vocabulary, e.g. the Python teacher worker's).
     */
    public boolean decodesText() {
        return ensemble().fromRecords()
                || (ensemble().source() == TeacherSource.EXTERNAL
                        && !get(RecordsOptions.TOKENIZER_FILE).isEmpty());
    }

    /**
     * The dataset whose durable budget this run spends: {@code budget.dataset}, else derived from
     * the teachers' data source — for a records run the topic the job reads its private records
     * from ({@code records-<topic>}: every file produced into one topic shares one budget, which
     * over-counts rather than under-counts), otherwise {@code ensemble.id}.
     */
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

    /** Whether the teachers are a records run's teachers answering inside the job (n-gram). */
    public boolean inJobNgramTeachers() {
        return ensemble().fromRecords() && records().teacher().kind().answersInJob();
    }

    /** {@code generation.min-teachers}, derived: ceil(n/2). */
    public int minTeachers() {
        return generation().minTeachers().orElse((ensemble().teachers() + 1) / 2);
    }

    /**
     * {@code generation.watchdog-ms}, derived: 2 × step deadline + 5 × checkpoint interval; 10 ×
     * the step deadline + 5 × checkpoint interval for records runs' n-gram teachers, whose steps
     * wait in the reducer while the teachers are busy (StepReducer#teachersBusy) — a re-issue there
     * would only queue a second query behind the first.
     */
    public long watchdogMs() {
        boolean inJob = inJobNgramTeachers();
        return generation()
                .watchdogMs()
                .orElse(
                        (inJob ? 10 : 2) * generation().stepDeadlineMs()
                                + 5 * flink().checkpointIntervalMs());
    }

    /**
     * The stall detector's window after the first result: {@code output.stall-checkpoints} ×
     * checkpoint interval, and for records runs' n-gram teachers at least {@link #watchdogMs()}.
     * Those teachers answer the steps in flight in one round, and nothing they answer becomes
     * visible before the round ends and a checkpoint commits it: at 10⁴ users a round of 24 steps
     * took over 120 s on 2 shared cores (an 11,583-user run, thread dump in docs/performance.md),
     * and the reducers wait for busy teachers as long as the watchdog, so a shorter detector would
     * end a run that is working.
     */
    public long stallWindowMs() {
        long window = (long) output().stallCheckpoints() * flink().checkpointIntervalMs();
        return inJobNgramTeachers() ? Math.max(window, watchdogMs()) : window;
    }

    /** The run's sequence policy: the ⊥ policy, attempts, length, re-issues, concurrency. */
    public SequenceProgress.Policy sequencePolicy() {
        JobSections.Generation g = generation();
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

    static String enumName(String s) {
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
}
