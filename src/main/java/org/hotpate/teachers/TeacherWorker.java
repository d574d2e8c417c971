package org.hotpate.teachers;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.core.randomness.SharedRandomness;
import org.hotpate.core.randomness.StepRandomness;
import org.hotpate.core.sampling.Sampler;
import org.hotpate.core.sampling.TeacherDistribution.SparseProbabilities;
import org.hotpate.io.AvroWire;
import org.hotpate.stream.model.Distribution;
import org.hotpate.stream.model.GenerationStep;
import org.hotpate.stream.model.PayloadKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A teacher worker: reads {@code steps} (read_committed), answers each step of its ensemble for
 * teachers {@code [from, to)} on {@code distributions} (key: teacher id). It speaks only the public
 * topic contract, so an LLM inference service that does the same replaces it (docs/streaming.md);
 * {@code ./hotpate teachers SPEC} runs it as its own process.
 *
 * <p>Redelivered steps are answered again; the job's vote operator drops the duplicates (one vote
 * per teacher per step). Answers for steps already past their deadline are skipped.
 */
public final class TeacherWorker implements Runnable, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TeacherWorker.class);

    /** What a worker needs: where to read and write, which teachers, and how to answer. */
    public record Settings(
            String bootstrap, String stepsTopic, String distributionsTopic, String ensembleId, String runId,
            int from, int to, PayloadKind payload, int topK, int samples, Sampler sampler) {}

    private final Settings s;
    private final SimulatedTeachers teachers;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong stepsAnswered = new AtomicLong();
    private final AtomicLong distributionsSent = new AtomicLong();
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    // Simulated teachers answer every step alike: their (truncated) payload arrays are built once.
    private final java.util.Map<Integer, Object[]> payloads = new java.util.HashMap<>();

    public TeacherWorker(Settings settings, SimulatedTeachers teachers) {
        this.s = settings;
        this.teachers = teachers;
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
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "hotpate-teachers-" + s.ensembleId() + "-" + s.from() + "-" + s.to()
                + (s.runId() == null ? "" : "-" + s.runId()));
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        try (KafkaConsumer<byte[], byte[]> cons = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                KafkaProducer<byte[], byte[]> prod = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
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

    private void answer(ConsumerRecord<byte[], byte[]> r, KafkaProducer<byte[], byte[]> prod) {
        GenerationStep step;
        try {
            step = AvroWire.decodeStep(r.value());
        } catch (AvroWire.UndecodableException e) {
            LOG.warn("skipping undecodable step at {}-{}@{}: {}", r.topic(), r.partition(), r.offset(), e.getMessage());
            return;
        }
        if (!step.ensembleId().equals(s.ensembleId()) || (s.runId() != null && !s.runId().equals(step.runId()))
                || (step.deadlineMs() > 0 && System.currentTimeMillis() > step.deadlineMs() + 60_000)) {
            return;
        }
        if (step.randomnessVersion() != SharedRandomness.VERSION && s.payload() == PayloadKind.MODEL_VOTE) {
            LOG.warn("step {} uses randomness version {}; this worker implements {}", step.stepKey(),
                    step.randomnessVersion(), SharedRandomness.VERSION);
            return;
        }
        StepRandomness rnd = s.payload() == PayloadKind.MODEL_VOTE
                ? StepRandomness.forStep(step.publicSeed(), step.vocabularySize())
                : null;
        for (int i = s.from(); i < s.to(); i++) {
            Distribution d = distribution(step, i, rnd);
            prod.send(new ProducerRecord<>(s.distributionsTopic(), Integer.toString(i).getBytes(StandardCharsets.UTF_8),
                    AvroWire.encode(d)));
        }
        distributionsSent.addAndGet(s.to() - s.from());
        stepsAnswered.incrementAndGet();
    }

    /** Teacher i's answer to the step, in the configured payload form. */
    Distribution distribution(GenerationStep step, int i, StepRandomness rnd) {
        SparseProbabilities p = teachers.teacher(i);
        long now = System.currentTimeMillis();
        switch (s.payload()) {
            case MODEL_VOTE: {
                int vote = s.sampler().vote(p, rnd, SeedDerivation.teacherKey(i));
                return new Distribution(step.runId(), step.sequenceId(), step.step(), step.attempt(), i,
                        PayloadKind.MODEL_VOTE, new int[0], new double[0], 1.0, Double.NaN, vote, SharedRandomness.VERSION, now);
            }
            case RAW_SAMPLES: {
                // The teacher's own sampling randomness (an LLM API would draw it privately).
                SplittableRandom rng = new SplittableRandom(step.publicSeed() ^ SeedDerivation.teacherKey(i));
                int[] out = new int[s.samples()];
                int n = 0;
                for (int k = 0; k < out.length; k++) {
                    double u = rng.nextDouble();
                    double acc = 0;
                    for (int j = 0; j < p.size(); j++) {
                        acc += p.probAt(j);
                        if (u < acc) {
                            out[n++] = p.tokenAt(j);
                            break;
                        }
                    }
                }
                int[] samples = n == 0 ? new int[] {p.tokenAt(0)} : Arrays.copyOf(out, n);
                return new Distribution(step.runId(), step.sequenceId(), step.step(), step.attempt(), i,
                        PayloadKind.RAW_SAMPLES, samples, new double[0], 1.0, Double.NaN, -1, 0, now);
            }
            default: {
                Object[] cached = payloads.computeIfAbsent(i, t -> payload(p));
                int[] tokens = (int[]) cached[0];
                double[] values = (double[]) cached[1];
                // Logits are log-probabilities with temperature 1 and logZ = 0: the unsent tail abstains.
                return new Distribution(step.runId(), step.sequenceId(), step.step(), step.attempt(), i, s.payload(),
                        tokens, values, 1.0, s.payload() == PayloadKind.TOP_K_LOGITS ? 0.0 : Double.NaN, -1, 0, now);
            }
        }
    }

    private Object[] payload(SparseProbabilities p) {
        int[] order = topK(p, s.topK());
        int[] tokens = new int[order.length];
        double[] values = new double[order.length];
        for (int j = 0; j < order.length; j++) {
            tokens[j] = p.tokenAt(order[j]);
            values[j] = s.payload() == PayloadKind.TOP_K_LOGITS ? Math.log(p.probAt(order[j])) : p.probAt(order[j]);
        }
        return new Object[] {tokens, values};
    }

    private static int[] topK(SparseProbabilities p, int k) {
        Integer[] idx = new Integer[p.size()];
        for (int j = 0; j < idx.length; j++) {
            idx[j] = j;
        }
        if (k <= 0 || k >= idx.length) {
            return Arrays.stream(idx).mapToInt(Integer::intValue).filter(j -> p.probAt(j) > 0).toArray();
        }
        Arrays.sort(idx, (a, b) -> Double.compare(p.probAt(b), p.probAt(a)));
        return Arrays.stream(idx, 0, k).mapToInt(Integer::intValue).filter(j -> p.probAt(j) > 0).toArray();
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
