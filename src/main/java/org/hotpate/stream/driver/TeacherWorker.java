package org.hotpate.stream.driver;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.core.randomness.SharedRandomness;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.Samplers;
import org.hotpate.io.AvroWire;
import org.hotpate.model.Distribution;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.PayloadKind;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.Topic;
import org.hotpate.teachers.TeacherAnswers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A teacher worker: reads {@code steps} (read_committed), answers each step of its ensemble for
 * teachers {@code [from, to)} on {@code distributions} (key: teacher id). It speaks only the public
 * topic contract, so an LLM inference service that does the same replaces it (docs/streaming.md);
 * what a simulated teacher answers comes from {@link TeacherAnswers} (package teachers, pure);
 * {@code ./hotpate teachers SPEC} runs it as its own process.
 *
 * <p>Redelivered steps are answered again; the job's vote operator drops the duplicates (one vote
 * per teacher per step). Answers for steps already past their deadline are skipped.
 */
public final class TeacherWorker implements Runnable, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TeacherWorker.class);

    /**
     * What a worker needs: where to read and write, which teachers, and how to answer; {@code
     * client} holds the teacher principal's Kafka security settings (empty: PLAINTEXT).
     */
    public record Settings(
            String bootstrap,
            String stepsTopic,
            String distributionsTopic,
            String ensembleId,
            String runId,
            int from,
            int to,
            Map<String, String> client) {
        public Settings {
            client = Map.copyOf(client);
        }

        /** Without client security. */
        public Settings(
                String bootstrap,
                String stepsTopic,
                String distributionsTopic,
                String ensembleId,
                String runId,
                int from,
                int to) {
            this(bootstrap, stepsTopic, distributionsTopic, ensembleId, runId, from, to, Map.of());
        }

        @Override
        public String toString() { // never print credentials
            return "TeacherWorker.Settings[" + bootstrap + ", teachers " + from + ".." + to + "]";
        }
    }

    /** The teacher-worker settings a spec implies, without client security (tests). */
    public static Settings settings(
            JobConfig cfg, String bootstrap, String runId, int from, int to) {
        return settings(cfg, bootstrap, runId, from, to, Map.of());
    }

    /**
     * The teacher-worker settings a spec implies, as the teacher principal (also used by ./hotpate
     * teachers).
     */
    public static Settings settings(
            JobConfig cfg,
            String bootstrap,
            String runId,
            int from,
            int to,
            UnaryOperator<String> secrets) {
        Map<String, String> client = new HashMap<>();
        KafkaClients.teacher(cfg, bootstrap, secrets)
                .forEach((k, v) -> client.put(k.toString(), v.toString()));
        return settings(cfg, bootstrap, runId, from, to, client);
    }

    private static Settings settings(
            JobConfig cfg,
            String bootstrap,
            String runId,
            int from,
            int to,
            Map<String, String> client) {
        JobConfig.Topics t = cfg.kafka().topics();
        return new Settings(
                bootstrap,
                t.name(Topic.STEPS),
                t.name(Topic.DISTRIBUTIONS),
                cfg.ensemble().id(),
                runId,
                from,
                to,
                client);
    }

    /** How the simulated teachers of {@code ensemble} answer, in the spec's payload form. */
    public static TeacherAnswers answers(JobConfig cfg, JobConfig.Ensemble ensemble) {
        return new TeacherAnswers(
                ensemble.simulated(),
                TeacherAnswers.Form.valueOf(ensemble.payload().name()),
                ensemble.topK(),
                ensemble.samples(),
                Samplers.byName(cfg.sampler().name()));
    }

    private final Settings s;
    private final TeacherAnswers answers;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong stepsAnswered = new AtomicLong();
    private final AtomicLong distributionsSent = new AtomicLong();
    private volatile KafkaConsumer<byte[], byte[]> consumer;

    public TeacherWorker(Settings settings, TeacherAnswers answers) {
        this.s = settings;
        this.answers = answers;
    }

    public long stepsAnswered() {
        return stepsAnswered.get();
    }

    public long distributionsSent() {
        return distributionsSent.get();
    }

    @Override
    public void run() {
        Properties c = new Properties();
        c.putAll(s.client());
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        c.put(
                ConsumerConfig.GROUP_ID_CONFIG,
                "hotpate-teachers-"
                        + s.ensembleId()
                        + "-"
                        + s.from()
                        + "-"
                        + s.to()
                        + (s.runId() == null ? "" : "-" + s.runId()));
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Properties p = producerProperties(s.bootstrap());
        p.putAll(s.client());
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        try (KafkaConsumer<byte[], byte[]> cons =
                        new KafkaConsumer<>(
                                c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                KafkaProducer<byte[], byte[]> prod =
                        new KafkaProducer<>(
                                p, new ByteArraySerializer(), new ByteArraySerializer())) {
            consumer = cons;
            cons.subscribe(List.of(s.stepsTopic()));
            while (running.get()) {
                for (ConsumerRecord<byte[], byte[]> r : cons.poll(Duration.ofMillis(200))) {
                    answer(r, prod);
                }
            }
        } catch (WakeupException e) {
            if (running.get()) {
                throw e;
            }
        }
    }

    /**
     * The producer settings of the worker's {@code distributions} writer (the pipeline benchmark's
     * Kafka ceiling uses the same).
     */
    public static Properties producerProperties(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        return p;
    }

    private void answer(ConsumerRecord<byte[], byte[]> r, KafkaProducer<byte[], byte[]> prod) {
        GenerationStep step;
        try {
            step = AvroWire.decodeStep(r.value());
        } catch (AvroWire.UndecodableException e) {
            LOG.warn(
                    "skipping undecodable step at {}-{}@{}: {}",
                    r.topic(),
                    r.partition(),
                    r.offset(),
                    e.getMessage());
            return;
        }
        if (!step.ensembleId().equals(s.ensembleId())
                || (s.runId() != null && !s.runId().equals(step.runId()))
                || (step.deadlineMs() > 0
                        && System.currentTimeMillis() > step.deadlineMs() + 60_000)) {
            return;
        }
        if (step.randomnessVersion() != SharedRandomness.VERSION
                && answers.form() == TeacherAnswers.Form.MODEL_VOTE) {
            LOG.warn(
                    "step {} uses randomness version {}; this worker implements {}",
                    org.hotpate.protocol.StepId.keyOf(step),
                    step.randomnessVersion(),
                    SharedRandomness.VERSION);
            return;
        }
        StepRandomness rnd =
                answers.form() == TeacherAnswers.Form.MODEL_VOTE
                        ? answers.stepRandomness(step.publicSeed(), step.vocabularySize())
                        : null;
        for (int i = s.from(); i < s.to(); i++) {
            Distribution d = distribution(step, i, rnd);
            prod.send(
                    new ProducerRecord<>(
                            s.distributionsTopic(),
                            Integer.toString(i).getBytes(StandardCharsets.UTF_8),
                            AvroWire.encode(d)));
        }
        distributionsSent.addAndGet(s.to() - s.from());
        stepsAnswered.incrementAndGet();
    }

    /** Teacher i's answer to the step, on the wire model. */
    public Distribution distribution(GenerationStep step, int i, StepRandomness rnd) {
        TeacherAnswers.Answer a = answers.answer(i, step.publicSeed(), rnd);
        return new Distribution(
                step.runId(),
                step.sequenceId(),
                step.step(),
                step.attempt(),
                i,
                PayloadKind.valueOf(a.form().name()),
                a.tokens(),
                a.values(),
                a.temperature(),
                a.logNormalizer(),
                a.vote(),
                a.randomnessVersion(),
                System.currentTimeMillis());
    }

    /** Stops the worker (from any thread). */
    @Override
    public void close() {
        running.set(false);
        KafkaConsumer<byte[], byte[]> cons = consumer;
        if (cons != null) {
            cons.wakeup();
        }
    }
}
