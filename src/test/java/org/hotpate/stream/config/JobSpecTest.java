package org.hotpate.stream.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.hotpate.stream.OperatorValues;
import org.hotpate.stream.driver.ClusterJob;
import org.junit.jupiter.api.Test;

class JobSpecTest {
    @Test
    void emptySpecGivesTheDocumentedDefaults() {
        JobConfig c = JobSpec.parse("", "x");
        assertThat(c.name()).isEqualTo("x");
        assertThat(c.ensemble().teachers()).isEqualTo(100);
        assertThat(c.kafka().embedded()).isTrue();
        assertThat(c.flink().embedded()).isTrue();
        assertThat(c.kafka().topics().name(Topic.STEPS)).isEqualTo("hotpate.steps");
        assertThat(c.generation().onFail())
                .isEqualTo(org.hotpate.core.generation.FailPolicy.RESAMPLE);
    }

    @Test
    void shorthandsAndNestedKeysParse() {
        JobConfig c =
                JobSpec.parse(
                        """
                kafka: {mode: external, bootstrap: "k:9092", topics: {steps: s1}}
                flink: {mode: remote, host: jm, port: 8081}
                mechanism: {name: gnmax, params: {sigma: 40}}
                generation: {on-fail: fallback, max-steps: 3}
                ensemble: {source: alpha-mixture, alpha: 0.7, payload: model-vote}
                """,
                        "x");
        assertThat(c.kafka().bootstrap()).isEqualTo("k:9092");
        assertThat(c.kafka().topics().name(Topic.STEPS)).isEqualTo("s1");
        assertThat(c.flink().host()).isEqualTo("jm");
        assertThat(c.mechanism().params()).containsEntry("sigma", 40.0);
        assertThat(c.generation().onFail())
                .isEqualTo(org.hotpate.core.generation.FailPolicy.FALLBACK);
        assertThat(c.ensemble().payload()).isEqualTo(JobConfig.Payload.MODEL_VOTE);
    }

    /**
     * mechanism auto: the plan's mechanism and parameters, a function of public options only (n
     * included: a records run plans again for its number of users); refused without a finite budget
     * or with hand-set parameters.
     */
    @Test
    void mechanismAuto_isPlannedFromPublicInputs() {
        JobConfig c =
                JobSpec.parse(
                        """
                ensemble: {teachers: 2000, kind: heterogeneous, source: planet-z}
                mechanism: {name: auto}
                budget: {epsilon: 4.0, delta: 1.0e-6}
                generation: {sequences: 24, max-steps: 12}
                """,
                        "x");
        assertThat(c.mechanism().name()).isEqualTo("checked-gnmax");
        assertThat(c.mechanism().params())
                .containsKeys("sigma1", "threshold", "sigma2", "sigma3", "check-threshold");
        org.hotpate.core.mechanism.AutoPlanner.Plan p = c.mechanismPlan().orElseThrow();
        assertThat(p)
                .isEqualTo(
                        org.hotpate.core.mechanism.AutoPlanner.plan(
                                new org.hotpate.core.mechanism.AutoPlanner.Inputs(
                                        2000,
                                        c.ensemble().effectiveVocabulary(),
                                        true,
                                        new org.hotpate.core.privacy.PrivacyBudget(4.0, 1e-6),
                                        24 * 12)));
        assertThat(c.plan().isPrivate()).isTrue();
        JobConfig budgetLimited =
                c.with(JobOptions.GENERATION_SEQUENCES, 2000); // the cap (5·√n) binds
        assertThat(budgetLimited.mechanismPlan().orElseThrow().budgetLimited()).isTrue();
        assertThat(budgetLimited.withTeachers(4000).mechanism().params().get("threshold"))
                .as("planned again for the new n")
                .isEqualTo(org.hotpate.core.mechanism.AutoPlanner.maxThreshold(4000, true))
                .isGreaterThan(budgetLimited.mechanism().params().get("threshold"));
        assertThat(
                        JobSpec.parse("mechanism: {name: gnmax, params: {sigma: 40}}", "x")
                                .mechanismPlan())
                .isEmpty();
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        "mechanism: {name: auto}\nbudget: {epsilon: .inf}", "x"))
                .hasMessageContaining("finite budget.epsilon");
        assertThatThrownBy(() -> JobSpec.parse("mechanism: {name: auto, params: {sigma: 40}}", "x"))
                .hasMessageContaining("leave mechanism.params out");
    }

    @Test
    void minTokensAndTheTeachersPublicBackoffOptions() {
        JobConfig c = JobSpec.parse("ensemble: {source: records}\nteacher: {order: 4}", "x");
        assertThat(c.get(JobOptions.GENERATION_MIN_TOKENS)).isEqualTo(1);
        assertThat(c.records().teacher().publicOrder()).as("derived: min(order, 2)").isEqualTo(2);
        assertThat(c.records().teacher().publicWeight()).isEqualTo(1.0);
        assertThat(OperatorValues.runShape(c, "r").earlyStop().minTokens()).isEqualTo(1);
        assertThat(c.sequencePolicy().minTokens()).isEqualTo(1);
        JobConfig set =
                JobSpec.parse(
                        "ensemble: {source: records}\nteacher: {public-order: 3, public-weight:"
                                + " 0.5}\ngeneration: {min-tokens: 0}",
                        "x");
        assertThat(set.records().teacher().publicOrder()).isEqualTo(3);
        assertThat(set.records().teacher().publicWeight()).isEqualTo(0.5);
        assertThat(OperatorValues.runShape(set, "r").earlyStop())
                .isEqualTo(org.hotpate.protocol.EarlyStop.NONE);
        assertThatThrownBy(() -> JobSpec.parse("teacher: {public-weight: 0}", "x"))
                .hasMessageContaining("teacher.public-weight");
        assertThatThrownBy(() -> JobSpec.parse("generation: {min-tokens: -1}", "x"))
                .hasMessageContaining("generation.min-tokens");
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        "ensemble: {source: external}\ngeneration: {on-fail:"
                                                + " fallback}",
                                        "x"))
                .hasMessageContaining("uniformly random");
    }

    @Test
    void aPopulationPriorNeedsWhatItIsChargedTo() {
        String records =
                "records: {file: data/spamassassin/private.jsonl.gz, user-field: user,"
                        + " text-field: subject}\nensemble: {source: records}\n";
        JobConfig ok =
                JobSpec.parse(
                        records
                                + "teacher: {prior: dp-ngram, prior-per-user: 4}\nbudget:"
                                + " {epsilon: 4.0}",
                        "x");
        assertThat(ok.records().teacher().dpPrior()).isTrue();
        assertThat(ok.records().teacher().priorPerUser()).isEqualTo(4);
        assertThat(ok.records().teacher().priorShare()).isEqualTo(0.25);
        assertThat(CoreBindings.preCharge(ok)).as("not released yet: nothing to charge").isNull();
        assertThat(
                        CoreBindings.preCharge(
                                ok.with(RecordsOptions.TEACHER_PRIOR_FILE, "prior.jsonl")))
                .isNotNull();
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        records
                                                + "teacher: {prior: dp-ngram}\nbudget: {epsilon:"
                                                + " 4.0, dataset-epsilon: 8.0}",
                                        "x"))
                .hasMessageContaining("no budget.dataset-epsilon");
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        "ensemble: {source: planet-z}\nteacher: {prior: dp-ngram}",
                                        "x"))
                .hasMessageContaining("ensemble.source: records");
        assertThatThrownBy(() -> JobSpec.parse(records + "teacher: {prior-share: 1.0}", "x"))
                .hasMessageContaining("teacher.prior-share");
        assertThatThrownBy(() -> JobSpec.parse(records + "teacher: {prior: laplace}", "x"))
                .hasMessageContaining("teacher.prior");
    }

    @Test
    void aMisspeltMechanismIsRefusedAtLoadListingEveryName() {
        assertThatThrownBy(() -> JobSpec.parse("mechanism: {name: gnmaxx}", "x"))
                .hasMessageContaining("unknown mechanism 'gnmaxx'")
                .hasMessageContaining("auto")
                .hasMessageContaining("checked-gnmax")
                .hasMessageContaining("scheme-a")
                .hasMessageContaining("scheme-b");
    }

    @Test
    void anUnknownMechanismParameterIsRefusedAtLoadListingTheMechanismsParameters(
            @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path spec = dir.resolve("m.yaml");
        java.nio.file.Files.writeString(
                spec, "mechanism: {name: confident-gnmax, params: {sigma1: 20, sigma2: 20, t: 9}}");
        assertThatThrownBy(() -> JobSpec.load(spec))
                .isInstanceOf(JobSpec.SpecException.class)
                .hasMessageContaining("unknown parameter 't' for mechanism confident-gnmax")
                .hasMessageContaining("accepted: sigma1, sigma2, threshold");
        java.nio.file.Files.writeString(spec, "mechanism: {name: gnmaxx, params: {sigma: 3}}");
        assertThatThrownBy(() -> JobSpec.load(spec))
                .isInstanceOf(JobSpec.SpecException.class)
                .hasMessageContaining("unknown mechanism 'gnmaxx'")
                .hasMessageContaining("auto")
                .hasMessageContaining("scheme-a")
                .hasMessageContaining("scheme-b");
        // the cluster job's entry point refuses it when it loads the spec, before any client
        assertThatThrownBy(() -> ClusterJob.main(new String[] {spec.toString()}))
                .isInstanceOf(JobSpec.SpecException.class)
                .hasMessageContaining("unknown mechanism 'gnmaxx'")
                .hasMessageContaining("scheme-b");
        // a missing parameter and a bad value are refused at load too, not when the job starts
        assertThatThrownBy(() -> JobSpec.parse("mechanism: {name: gnmax, params: {}}", "x"))
                .isInstanceOf(JobSpec.SpecException.class)
                .hasMessageContaining("needs parameter 'sigma'");
        assertThatThrownBy(
                        () -> JobSpec.parse("mechanism: {name: gnmax, params: {sigma: -1}}", "x"))
                .isInstanceOf(JobSpec.SpecException.class)
                .hasMessageContaining("mechanism.params")
                .hasMessageContaining("sigma must be > 0");
    }

    @Test
    void aConfigurationBuiltWithoutTheParserIsCheckedToo() {
        JobConfig cfg = JobSpec.parse("mechanism: {name: gnmax, params: {sigma: 30}}", "x");
        assertThatThrownBy(() -> cfg.with(JobOptions.MECHANISM_NAME, "gnmx"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown mechanism 'gnmx'")
                .hasMessageContaining("scheme-b");
        assertThatThrownBy(
                        () -> cfg.with(JobOptions.MECHANISM_PARAMS, java.util.Map.of("scale", 3.0)))
                .hasMessageContaining("unknown parameter 'scale' for mechanism gnmax");
        assertThat(cfg.mechanism().kind())
                .isEqualTo(org.hotpate.core.mechanism.MechanismRegistry.Kind.ENSEMBLE);
    }

    @Test
    void unknownKeysAreNamed() {
        assertThatThrownBy(() -> JobSpec.parse("ensemble: {teacher: 5}", "x"))
                .isInstanceOf(JobSpec.SpecException.class)
                .hasMessageContaining("ensemble.teacher");
        assertThatThrownBy(() -> JobSpec.parse("colour: blue", "x"))
                .hasMessageContaining("'colour'");
    }

    @Test
    void badValuesAreNamed() {
        assertThatThrownBy(() -> JobSpec.parse("ensemble: {teachers: many}", "x"))
                .hasMessageContaining("ensemble.teachers");
        assertThatThrownBy(() -> JobSpec.parse("ensemble: {teachers: 0}", "x"))
                .hasMessageContaining("ensemble.teachers");
        assertThatThrownBy(() -> JobSpec.parse("budget: {epsilon: -1}", "x"))
                .hasMessageContaining("budget.epsilon");
        assertThatThrownBy(() -> JobSpec.parse("budget: {delta: 2}", "x"))
                .hasMessageContaining("budget.delta");
        assertThatThrownBy(() -> JobSpec.parse("sampler: {type: hot}", "x"))
                .hasMessageContaining("sampler.type");
        assertThatThrownBy(() -> JobSpec.parse("generation: {on-fail: retry}", "x"))
                .hasMessageContaining("generation.on-fail");
        assertThatThrownBy(() -> JobSpec.parse("kafka: {mode: external}", "x"))
                .hasMessageContaining("kafka.bootstrap");
        assertThatThrownBy(() -> JobSpec.parse("mechanism: {params: {sigma: x}}", "x"))
                .hasMessageContaining("mechanism.params.sigma");
        assertThatThrownBy(() -> JobSpec.parse("- a\n- b", "x")).hasMessageContaining("mapping");
        assertThatThrownBy(() -> JobSpec.parse("budget: {per-teacher: 5}", "x"))
                .hasMessageContaining("budget.per-teacher");
    }

    @Test
    void everyShippedSpecIsValid() throws Exception {
        try (Stream<Path> specs = Files.list(Path.of("jobs"))) {
            specs.filter(p -> p.toString().endsWith(".yaml"))
                    .forEach(p -> assertThat(JobSpec.load(p)).isNotNull());
        }
    }

    /**
     * The key table of docs/job-spec.md is the declarations' (JobOptions): one row per option with
     * its type, default and description, in declaration order. A new or changed option fails here
     * until its row is in the docs; the expected rows are printed.
     */
    @Test
    void everyOptionIsInTheHelpAndItsDeclaredRowInTheDocs() throws Exception {
        String help = JobSpec.describeKeys();
        for (String k : JobSpec.paths()) {
            assertThat(help).contains(k);
        }
        List<String> docs = Files.readAllLines(Path.of("docs/job-spec.md"));
        int table = docs.indexOf("| key | type | default | description |");
        assertThat(table).as("docs/job-spec.md has the key table").isPositive();
        List<String> documented =
                docs.subList(table + 2, docs.size()).stream()
                        .takeWhile(l -> l.startsWith("| `"))
                        .toList();
        assertThat(documented)
                .as(
                        "docs/job-spec.md's key table (expected rows:%n%s%n)",
                        String.join("\n", JobSpec.markdownRows()))
                .containsExactlyElementsOf(JobSpec.markdownRows());
    }

    /**
     * Fails on the code before the check: targmax/tws ran under a finite budget and reported ε = 0.
     */
    @Test
    void nonPrivateMechanismsRunOnlyWithAnInfiniteBudget() {
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        "mechanism: {name: targmax, params: {threshold: 3}}\n"
                                                + "budget: {epsilon: 2.0}",
                                        "x"))
                .isInstanceOf(JobSpec.SpecException.class)
                .hasMessageContaining("mechanism.name")
                .hasMessageContaining("targmax")
                .hasMessageContaining("not differentially private");
        assertThatThrownBy(
                        () -> JobSpec.parse("mechanism: {name: tws, params: {threshold: 3}}", "x"))
                .hasMessageContaining("not differentially private");
        JobConfig c =
                JobSpec.parse(
                        "mechanism: {name: targmax, params: {threshold: 3}}\n"
                                + "budget: {epsilon: .inf}",
                        "x");
        assertThat(c.budget().epsilon()).isInfinite();
        assertThat(c.plan().isPrivate()).isFalse();
        assertThat(JobSpec.parse("", "x").plan().isPrivate()).isTrue();
        // A non-private run cannot be capped by a dataset budget either.
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        "mechanism: {name: targmax, params: {threshold: 3}}\n"
                                                + "budget: {epsilon: .inf, dataset-epsilon: 3}",
                                        "x"))
                .hasMessageContaining("budget.dataset-epsilon");
    }

    @Test
    void infinityIsAcceptedOnlyWhereItMeansNoLimit() {
        assertThat(JobSpec.parse("budget:\n  dataset-epsilon: .inf\n", "x").budget())
                .satisfies(b -> assertThat(b.datasetEpsilon()).isInfinite());
        assertThat(JobSpec.parse("budget: {dataset-epsilon: .Inf, epsilon: 3}", "x").budget())
                .satisfies(b -> assertThat(b.datasetEpsilon()).isInfinite());
        assertThatThrownBy(() -> JobSpec.parse("budget: {delta: .inf}", "x"))
                .hasMessageContaining("budget.delta");
        assertThatThrownBy(() -> JobSpec.parse("generation: {sequences: .inf}", "x"))
                .hasMessageContaining("generation.sequences");
        assertThat(JobSpec.parse("name: x.inf", "y").name()).isEqualTo("x.inf");
    }

    /**
     * Fails on the code before the rename: budget.per-teacher was accepted (and called Scheme B).
     */
    @Test
    void theOldPerTeacherKeyNamesItsReplacements() {
        assertThatThrownBy(() -> JobSpec.parse("budget: {per-teacher: 25}", "x"))
                .isInstanceOf(JobSpec.SpecException.class)
                .hasMessageContaining("budget.per-teacher-votes")
                .hasMessageContaining("budget.per-teacher-epsilon");
        assertThat(
                        JobSpec.parse(
                                        "ensemble: {kind: heterogeneous}\n"
                                                + "budget: {per-teacher-votes: 25}",
                                        "x")
                                .budget()
                                .perTeacherVotes())
                .isEqualTo(25);
        assertThatThrownBy(() -> JobSpec.parse("budget: {per-teacher-votes: 25}", "x"))
                .hasMessageContaining("budget.per-teacher-votes needs ensemble.kind");
        assertThatThrownBy(() -> JobSpec.parse("budget: {per-teacher-epsilon: 1}", "x"))
                .hasMessageContaining("budget.per-teacher-epsilon needs mechanism.name scheme-b");
    }

    private static final String SCHEME_B =
            "ensemble: {teachers: 300, kind: heterogeneous}\n"
                    + "mechanism: {name: scheme-b, params: {sigma: 12, threshold: 30,"
                    + " sample-rate: 0.5}}\n";

    /** Issue 11: the per-teacher schemes are validated when the spec loads. */
    @Test
    void perTeacherSchemesAreValidatedWhenTheSpecLoads() {
        JobConfig c =
                JobSpec.parse(SCHEME_B + "budget: {delta: 1.0e-6, per-teacher-epsilon: 1}", "x");
        // σ = 12 at (1, 1e-6): K = 2 under replace-one (5 under add/remove)
        assertThat(c.plan().perTeacherPlan().limit()).isEqualTo(2);
        assertThat(c.budget().targetTeacherDelta()).isEqualTo(1e-6); // default: budget.delta
        assertThat(c.plan().isPrivate()).isTrue();
        assertThat(
                        JobSpec.parse(
                                        SCHEME_B
                                                + "budget: {per-teacher-epsilon: 1,"
                                                + " per-teacher-delta: 1.0e-8}",
                                        "x")
                                .budget()
                                .targetTeacherDelta())
                .isEqualTo(1e-8);
        assertThatThrownBy(() -> JobSpec.parse(SCHEME_B, "x"))
                .isInstanceOf(JobSpec.SpecException.class)
                .hasMessageContaining("needs budget.per-teacher-epsilon > 0");
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        SCHEME_B.replace("kind: heterogeneous", "kind: homogeneous")
                                                + "budget: {per-teacher-epsilon: 1}",
                                        "x"))
                .hasMessageContaining("needs ensemble.kind: heterogeneous");
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        SCHEME_B.replace("sample-rate", "rate")
                                                + "budget: {per-teacher-epsilon: 1}",
                                        "x"))
                .hasMessageContaining("unknown parameter 'rate' for mechanism scheme-b");
        assertThatThrownBy(
                        () -> JobSpec.parse(SCHEME_B + "budget: {per-teacher-epsilon: 0.01}", "x"))
                .hasMessageContaining("no teacher could be charged even once");
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        "ensemble: {kind: heterogeneous}\nmechanism: {name:"
                                                + " scheme-a, params: {epsilon: 0.1, lower: 20,"
                                                + " upper: 40, sample-rate: 0.5}}\n"
                                                + "budget: {per-teacher-epsilon: 1}",
                                        "x"))
                .hasMessageContaining("no teacher could be charged even once")
                .hasMessageContaining("--scheme a");
        // scheme-a runs in the stream (its outcome feedback exists): tau planned from the target
        JobConfig a =
                JobSpec.parse(
                        "ensemble: {kind: heterogeneous}\nmechanism: {name:"
                                + " scheme-a, params: {epsilon: 0.1, lower: 10,"
                                + " upper: 30, sample-rate: 0.5}}\n"
                                + "budget: {per-teacher-epsilon: 4}",
                        "x");
        assertThat(a.plan().perTeacherPlan().scheme()).isEqualTo("scheme-a");
        assertThat(a.plan().perTeacherPlan().limit()).isEqualTo(2); // 5 under add/remove
        assertThat(a.kafka().topics().name(Topic.TEACHER_FEEDBACK))
                .isEqualTo("hotpate.teacher-feedback");
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        SCHEME_B
                                                + "budget: {per-teacher-epsilon: 1,"
                                                + " per-teacher-votes: 5}",
                                        "x"))
                .hasMessageContaining("exclude each other");
    }

    @Test
    void datasetLedgerQuorumAndWatchdogDefaults() {
        JobConfig c = JobSpec.parse("ensemble: {id: pz, teachers: 7}", "x");
        assertThat(c.datasetId()).isEqualTo("pz");
        assertThat(c.budget().datasetEpsilon()).isInfinite();
        assertThat(c.ledgerMode()).isEqualTo(JobConfig.LedgerMode.LOCAL);
        assertThat(c.ledgerDir().toString())
                .isEqualTo(System.getProperty("user.home") + "/.hotpate/ledger");
        assertThat(c.minTeachers()).isEqualTo(4);
        assertThat(c.watchdogMs()).isEqualTo(2 * 5000 + 5 * 1000);
        // records runs' n-gram teachers: steps wait in the reducer while the teachers are busy, so
        // the watchdog is 10 deadlines (fails with the plain 2 x: re-issues behind a long queue)
        JobConfig r = JobSpec.parse("ensemble: {source: records}", "x");
        assertThat(r.inJobNgramTeachers()).isTrue();
        assertThat(r.watchdogMs())
                .isEqualTo(
                        10 * r.generation().stepDeadlineMs()
                                + 5 * r.flink().checkpointIntervalMs());
        // the stall detector waits at least that long for them (a round of the steps in flight
        // at 10^4 users outlasted the plain 240 x 500 ms); elsewhere the configured window
        assertThat(c.stallWindowMs()).isEqualTo(240 * c.flink().checkpointIntervalMs());
        assertThat(r.stallWindowMs()).isEqualTo(r.watchdogMs());
        assertThat(
                        JobSpec.parse(
                                        "ensemble: {source: records}\n"
                                                + "output: {stall-checkpoints: 4000}",
                                        "x")
                                .stallWindowMs())
                .isEqualTo(4000 * r.flink().checkpointIntervalMs());
        assertThat(c.kafka().topics().name(Topic.BUDGET_LEDGER)).isEqualTo("hotpate.budget-ledger");
        JobConfig e =
                JobSpec.parse(
                        "budget: {dataset: records-2024, dataset-epsilon: 6, ledger-dir: /tmp/l}\n"
                                + "kafka: {mode: external, bootstrap: k:9092}\n"
                                + "generation: {min-teachers: 3, watchdog-ms: 9000}",
                        "x");
        assertThat(e.datasetId()).isEqualTo("records-2024");
        assertThat(e.ledgerMode()).isEqualTo(JobConfig.LedgerMode.KAFKA);
        assertThat(e.minTeachers()).isEqualTo(3);
        assertThat(e.watchdogMs()).isEqualTo(9000);
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        "ensemble: {teachers: 5}\ngeneration: {min-teachers: 6}",
                                        "x"))
                .hasMessageContaining("generation.min-teachers");
        assertThatThrownBy(() -> JobSpec.parse("budget: {ledger: kafka}", "x"))
                .hasMessageContaining("budget.ledger: kafka needs kafka.mode: external");
        assertThatThrownBy(() -> JobSpec.parse("budget: {dataset: 'a/b'}", "x"))
                .hasMessageContaining("budget.dataset");
    }

    @Test
    void saslNeedsAUsername() {
        assertThatThrownBy(() -> JobSpec.parse("kafka: {security-protocol: SASL_PLAINTEXT}", "x"))
                .hasMessageContaining("kafka.sasl.username");
        JobConfig c =
                JobSpec.parse(
                        "kafka: {security-protocol: SASL_PLAINTEXT,"
                                + " sasl: {username: job, teacher-username: t}}",
                        "x");
        assertThat(c.kafka().security().sasl()).isTrue();
        assertThat(c.kafka().security().passwordEnv()).isEqualTo("HOTPATE_KAFKA_PASSWORD");
    }
}
