package org.hotpate.core;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * DESIGN.md: {@code core} is pure Java — no Flink, Kafka, Avro, or outer hotpate packages — and so
 * is {@code protocol}, the run's rules on top of it; the arrows point one way.
 */
class CoreArchitectureTest {
    private static final JavaClasses CLASSES =
            new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .importPackages("org.hotpate");

    @Test
    void coreHasNoFlinkKafkaOrAvroImports() {
        noClasses()
                .that()
                .resideInAPackage("org.hotpate.core..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.apache.flink..",
                        "org.apache.kafka..",
                        "kafka..",
                        "org.apache.avro..",
                        "com.fasterxml.jackson..")
                .check(CLASSES);
    }

    @Test
    void coreDependsOnNoOuterHotpatePackage() {
        noClasses()
                .that()
                .resideInAPackage("org.hotpate.core..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.hotpate.protocol..",
                        "org.hotpate.model..",
                        "org.hotpate.teachers..",
                        "org.hotpate.stream..",
                        "org.hotpate.io..",
                        "org.hotpate.cli..",
                        "org.hotpate.eval..")
                .check(CLASSES);
    }

    /**
     * DESIGN.md: {@code protocol} (the run's rules) is pure Java like core — no Flink, Kafka, Avro
     * or Jackson — so every rule is a plain unit test, not a harness test.
     */
    @Test
    void protocolHasNoFlinkKafkaAvroOrJacksonImports() {
        noClasses()
                .that()
                .resideInAPackage("org.hotpate.protocol..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.apache.flink..",
                        "org.apache.kafka..",
                        "kafka..",
                        "org.apache.avro..",
                        "com.fasterxml.jackson..")
                .check(CLASSES);
    }

    /** {@code protocol} sits on core and the shared records only: core ← protocol ← teachers ← … */
    @Test
    void protocolDependsOnlyOnCoreAndModel() {
        noClasses()
                .that()
                .resideInAPackage("org.hotpate.protocol..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.hotpate.teachers..",
                        "org.hotpate.stream..",
                        "org.hotpate.io..",
                        "org.hotpate.cli..",
                        "org.hotpate.eval..",
                        "org.hotpate.bench..",
                        "org.hotpate.cluster..")
                .check(CLASSES);
    }

    @Test
    void teachersDoNotDependOnStreamOrCli() {
        noClasses()
                .that()
                .resideInAPackage("org.hotpate.teachers..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.hotpate.stream..", "org.hotpate.cli..")
                .allowEmptyShould(true)
                .check(CLASSES);
    }

    /**
     * Issue 33: an operator is an adapter over protocol and core; it gets what it needs as values
     * (its Settings), never reads the configuration or calls the driver. So {@code stream.ops}
     * imports nothing of {@code stream} outside itself: not the topology ({@code
     * org.hotpate.stream} itself: {@code HotPateJob}, …), not {@code stream.config} ({@code
     * JobConfig}, {@code CoreBindings}, …), not {@code stream.driver} ({@code RunSession}, …), nor
     * {@code cli}.
     */
    @Test
    void operatorsDoNotDependOnConfigOrDriverCode() {
        noClasses()
                .that()
                .resideInAPackage("org.hotpate.stream.ops..")
                .should()
                .dependOnClassesThat(
                        resideInAPackage("org.hotpate.stream")
                                .or(resideInAPackage("org.hotpate.stream.config.."))
                                .or(resideInAPackage("org.hotpate.stream.driver.."))
                                .or(resideInAPackage("org.hotpate.cli..")))
                .check(CLASSES);
    }

    /**
     * Issue 40: the teacher kinds ({@code stream.teachers}: the records-teacher operator, its kinds
     * and their registry) sit below the configuration, which asks their registry: they read their
     * options through {@code TeacherOptions}, so they import nothing of {@code stream} outside
     * themselves (no configuration, topology, driver or operator) nor {@code cli}.
     */
    @Test
    void teacherKindsDependOnNoOtherPartOfStream() {
        noClasses()
                .that()
                .resideInAPackage("org.hotpate.stream.teachers..")
                .should()
                .dependOnClassesThat(
                        resideInAPackage("org.hotpate.stream")
                                .or(resideInAPackage("org.hotpate.stream.config.."))
                                .or(resideInAPackage("org.hotpate.stream.driver.."))
                                .or(resideInAPackage("org.hotpate.stream.ops.."))
                                .or(resideInAPackage("org.hotpate.cli..")))
                .check(CLASSES);
    }

    /**
     * Issue 33: the job spec and its configuration ({@code stream.config}) sit below the rest of
     * {@code stream}: they import no driver class ({@code stream.driver}), no topology class
     * ({@code org.hotpate.stream} itself) and no operator ({@code stream.ops}); the topology and
     * the driver read the configuration, never the other way round.
     */
    @Test
    void configDependsOnNoTopologyDriverOrOperator() {
        noClasses()
                .that()
                .resideInAPackage("org.hotpate.stream.config..")
                .should()
                .dependOnClassesThat(
                        resideInAPackage("org.hotpate.stream")
                                .or(resideInAPackage("org.hotpate.stream.driver.."))
                                .or(resideInAPackage("org.hotpate.stream.ops.."))
                                .or(resideInAPackage("org.hotpate.cli..")))
                .check(CLASSES);
    }

    /**
     * Issue 33: the topology ({@code org.hotpate.stream} itself) reads the configuration and builds
     * the operators; what runs on the driver ({@code stream.driver}) builds on it, never the other
     * way round.
     */
    @Test
    void topologyDependsOnNoDriver() {
        noClasses()
                .that()
                .resideInAPackage("org.hotpate.stream")
                .should()
                .dependOnClassesThat(
                        resideInAPackage("org.hotpate.stream.driver..")
                                .or(resideInAPackage("org.hotpate.cli..")))
                .check(CLASSES);
    }

    @Test
    void ioAndModelDoNotDependOnStreamOrCli() {
        noClasses()
                .that()
                .resideInAnyPackage("org.hotpate.io..", "org.hotpate.model..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.hotpate.stream..", "org.hotpate.cli..")
                .check(CLASSES);
    }

    @Test
    void modelDependsOnlyOnCore() {
        noClasses()
                .that()
                .resideInAPackage("org.hotpate.model..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "org.hotpate.protocol..",
                        "org.hotpate.teachers..",
                        "org.hotpate.io..",
                        "org.hotpate.eval..",
                        "org.apache.flink..",
                        "org.apache.kafka..",
                        "org.apache.avro..")
                .check(CLASSES);
    }

    /**
     * Issue 40: no circle between packages — every package of hotpate, each its own slice (a circle
     * such as {@code core.accounting} ↔ {@code core.mechanism} makes a room that cannot be
     * understood or tested without the other).
     */
    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("org.hotpate.(**)").should().beFreeOfCycles().check(CLASSES);
    }
}
