package org.hotpate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad specs stop `run` and `teachers` with exit code 2 and one message naming the key. */
class RunCommandTest {
    @TempDir Path dir;

    private int exec(ByteArrayOutputStream err, String... args) {
        return Main.execute(
                args,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String spec(String yaml) throws Exception {
        Path p = dir.resolve("spec.yaml");
        Files.writeString(p, yaml);
        return p.toString();
    }

    @Test
    void unknownKeyExits2NamingIt() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(exec(err, "run", spec("generation: {sequence: 3}"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("generation.sequence")
                .doesNotContain("Exception");
    }

    @Test
    void badValueExits2NamingIt() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(exec(err, "run", spec("budget: {epsilon: 0}"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("budget.epsilon");
    }

    @Test
    void badMechanismParametersExit2BeforeAnythingStarts() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(exec(err, "run", spec("mechanism: {name: gnmax, params: {}}"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("mechanism").contains("sigma");
        err.reset();
        assertThat(exec(err, "run", spec("mechanism: {name: magic}"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("magic");
    }

    /** The check: run, teachers and ledger show --spec refuse a misspelt mechanism. */
    @Test
    void aMisspeltMechanismExits2ListingEveryNameFromEveryCommand() throws Exception {
        String spec = spec("mechanism: {name: confident-gnmx, params: {sigma: 3}}");
        String[][] commands = {
            {"run", spec},
            {"teachers", spec, "--bootstrap", "x:1"},
            {"ledger", "show", "--spec", spec}
        };
        for (String[] c : commands) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertThat(exec(err, c)).as(c[0]).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .as(c[0])
                    .contains("unknown mechanism 'confident-gnmx'")
                    .contains("auto")
                    .contains("scheme-a")
                    .contains("scheme-b")
                    .contains("checked-gnmax")
                    .doesNotContain("Exception");
        }
    }

    @Test
    void anUnknownMechanismParameterExits2ListingTheParameters() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(exec(err, "run", spec("mechanism: {name: lnmax, params: {sigma: 3}}")))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("unknown parameter 'sigma' for mechanism lnmax; accepted: scale");
    }

    @Test
    void missingSpecExits2() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(exec(err, "run", dir.resolve("nope.yaml").toString())).isEqualTo(2);
        assertThat(exec(err, "run")).isEqualTo(2);
    }

    @Test
    void teachersNeedsAKafkaToTalkTo() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(exec(err, "teachers", spec("ensemble: {teachers: 5}"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("kafka.bootstrap");
        err.reset();
        assertThat(
                        exec(
                                err,
                                "teachers",
                                spec("ensemble: {teachers: 5}"),
                                "--bootstrap",
                                "x:1",
                                "--from",
                                "3",
                                "--to",
                                "9"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--from/--to");
    }

    @Test
    void helpListsEveryKey() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Main.execute(
                new String[] {"run", "--help"},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                System.err);
        String help = out.toString(StandardCharsets.UTF_8);
        for (String k : org.hotpate.stream.config.JobSpec.paths()) {
            assertThat(help).contains(k);
        }
    }

    /**
     * The user check: a targmax spec under a finite budget exits 2 before anything starts.
     */
    @Test
    void aNonPrivateMechanismUnderAFiniteBudgetExits2() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(
                        exec(
                                err,
                                "run",
                                spec(
                                        "mechanism: {name: targmax, params: {threshold: 5}}\n"
                                                + "budget: {epsilon: 2.0}\n")))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("mechanism.name")
                .contains("not differentially private")
                .doesNotContain("Exception");
    }

    @Test
    void theOldPerTeacherKeyExits2NamingTheNewKeys() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(exec(err, "run", spec("budget: {per-teacher: 25}"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("budget.per-teacher-votes")
                .contains("budget.per-teacher-epsilon");
    }

    /**
     * {@code run spec} and {@code run spec --cluster D} spend one dataset's one ledger (issue 23,
     * issue 30 item 3): on the local cluster a spec without a Kafka keeps the local directory (the
     * TaskManagers run on this machine), a spec that names an external Kafka keeps that Kafka and
     * its ledger topic, and a spec that names its ledger keeps it.
     */
    @Test
    void aRunOnTheLocalClusterKeepsTheLocalLedgerUnlessTheSpecNamesOne(@TempDir Path dir) {
        org.hotpate.cluster.ClusterInfo info =
                new org.hotpate.cluster.ClusterInfo(
                        new org.hotpate.cluster.ClusterInfo.Member("jobmanager", 1, 0),
                        java.util.List.of(),
                        new org.hotpate.cluster.ClusterInfo.Member("kafka", 2, 0),
                        java.util.Map.of("rest", 18081, "kafka", 19092),
                        2);
        org.hotpate.stream.config.JobConfig plain =
                org.hotpate.stream.config.JobSpec.parse("name: x\n", "x");
        assertThat(plain.ledgerMode())
                .isEqualTo(org.hotpate.stream.config.JobConfig.LedgerMode.LOCAL);
        org.hotpate.stream.config.JobConfig onCluster =
                RunCommand.onCluster(plain, info, dir.resolve("c.jar"), dir);
        assertThat(onCluster.kafka().embedded()).isFalse();
        assertThat(onCluster.ledgerMode())
                .isEqualTo(org.hotpate.stream.config.JobConfig.LedgerMode.LOCAL);
        assertThat(onCluster.ledgerDir()).isEqualTo(plain.ledgerDir());
        org.hotpate.stream.config.JobConfig named =
                RunCommand.onCluster(
                        org.hotpate.stream.config.JobSpec.parse(
                                "name: x\nbudget: {ledger: kafka}\nkafka: {mode: external,"
                                        + " bootstrap: 'k:1'}\n",
                                "x"),
                        info,
                        dir.resolve("c.jar"),
                        dir);
        assertThat(named.ledgerMode())
                .isEqualTo(org.hotpate.stream.config.JobConfig.LedgerMode.KAFKA);
        // Issue 30 item 3: a spec that names an external Kafka reaches the same ledger with or
        // without --cluster — its Kafka topic on its own broker (4a555fd switched it to the local
        // directory and to the cluster's broker).
        org.hotpate.stream.config.JobConfig external =
                org.hotpate.stream.config.JobSpec.parse(
                        "name: x\nkafka: {mode: external, bootstrap: 'k:1'}\n", "x");
        assertThat(external.ledgerMode())
                .isEqualTo(org.hotpate.stream.config.JobConfig.LedgerMode.KAFKA);
        org.hotpate.stream.config.JobConfig externalOnCluster =
                RunCommand.onCluster(external, info, dir.resolve("c.jar"), dir);
        assertThat(externalOnCluster.ledgerMode())
                .isEqualTo(org.hotpate.stream.config.JobConfig.LedgerMode.KAFKA);
        assertThat(externalOnCluster.kafka().bootstrap()).isEqualTo("k:1");
    }
}
