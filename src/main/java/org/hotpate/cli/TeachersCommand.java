package org.hotpate.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobOptions;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.config.Topic;
import org.hotpate.stream.driver.KafkaClients;
import org.hotpate.stream.driver.TeacherWorker;

/**
 * {@code ./hotpate teachers SPEC}: runs the built-in teacher worker as its own process against the
 * spec's external Kafka — the same role an LLM inference service plays (reads {@code steps}, writes
 * {@code distributions}).
 */
public final class TeachersCommand implements Command {
    @Override
    public String name() {
        return "teachers";
    }

    @Override
    public String summary() {
        return "run the simulated teacher worker against an external Kafka (the replaceable teacher side)";
    }

    @Override
    public String help() {
        return """
                usage: ./hotpate teachers SPEC.yaml [--bootstrap HOST:PORT] [--from I] [--to J] [--run RUN-ID]

                Answers every step of the spec's ensemble (ensemble.id) on kafka.topics.steps with
                the distributions of teachers [I, J) (default: all ensemble.teachers) on
                kafka.topics.distributions, in the payload form ensemble.payload, until stopped
                (Ctrl-C). The teachers are those of ensemble.source (planet-z or alpha-mixture;
                the run itself can then use ensemble.source: external). Several workers with
                disjoint ranges can share an ensemble. An LLM inference service replaces this
                worker by speaking the same topics (docs/streaming.md). With
                kafka.security-protocol SASL_*, the worker authenticates as
                kafka.sasl.teacher-username (password in the variable named by
                kafka.sasl.teacher-password-env): a principal that may read steps and write
                distributions only.

                  --bootstrap   Kafka bootstrap servers (default: kafka.bootstrap of the spec)
                  --from, --to  teacher index range
                  --run         answer only steps of this run id
                """;
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        CliArgs a =
                CliArgs.parse(args, Set.of("bootstrap", "from", "to", "run", "source"), Set.of());
        List<String> pos = a.positional();
        if (pos.size() != 1) {
            throw new UsageException("expected one job spec file (see --help)");
        }
        JobConfig cfg = RunCommand.load(Path.of(pos.get(0)), null);
        String bootstrap = a.string("bootstrap", cfg.kafka().bootstrap());
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new UsageException(
                    "no Kafka to connect to: set kafka.bootstrap in the spec or pass --bootstrap");
        }
        int n = cfg.ensemble().teachers();
        int from = a.intValue("from", 0);
        int to = a.intValue("to", n);
        if (from < 0 || to > n || from >= to) {
            throw new UsageException(
                    "--from/--to must satisfy 0 <= from < to <= "
                            + n
                            + "; got "
                            + from
                            + ", "
                            + to);
        }
        JobConfig.Ensemble e = cfg.ensemble();
        if (e.source() == JobConfig.TeacherSource.EXTERNAL) {
            // The job treats the teachers as external; this worker simulates them as planet-z.
            e =
                    new JobConfig.Ensemble(
                            e.values()
                                    .with(JobOptions.ENSEMBLE_SOURCE, "planet-z")
                                    .with(
                                            JobOptions.ENSEMBLE_VOCABULARY,
                                            Math.max(1050, e.vocabularySize())));
        }
        TeacherWorker.Settings settings;
        try { // as the teacher principal (kafka.sasl.teacher-username) when the spec uses SASL
            settings =
                    TeacherWorker.settings(
                            cfg, bootstrap, a.string("run", null), from, to, KafkaClients.ENV);
        } catch (JobSpec.SpecException ex) {
            throw new UsageException(ex.getMessage());
        }
        TeacherWorker w = new TeacherWorker(settings, TeacherWorker.answers(cfg, e));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    w.close();
                                    try {
                                        stopped.await();
                                    } catch (InterruptedException ignored) {
                                        Thread.currentThread().interrupt();
                                    }
                                }));
        err.println(
                "hotpate teachers: teachers ["
                        + from
                        + ", "
                        + to
                        + ") of "
                        + cfg.ensemble().id()
                        + " on "
                        + bootstrap
                        + " ("
                        + cfg.kafka().topics().name(Topic.STEPS)
                        + " -> "
                        + cfg.kafka().topics().name(Topic.DISTRIBUTIONS)
                        + "); Ctrl-C stops");
        try {
            w.run();
        } finally {
            stopped.countDown();
        }
        err.println(
                "hotpate teachers: answered "
                        + w.stepsAnswered()
                        + " steps, sent "
                        + w.distributionsSent()
                        + " distributions");
        return 0;
    }
}
