package org.hotpate.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.hotpate.io.AvroWire;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.hotpate.protocol.StepId;

/**
 * A read_committed reader of the run's {@code steps} and operator-only {@code ledger} topics. It
 * notes when each step was issued ({@code issuedAtMs}, set by the job when it created the step) and
 * when each release became visible (the wall clock when this reader received its CHARGE entry,
 * which commits in the same Kafka transaction as the public result), which is the step latency
 * "issued → committed"; and it sums the teachers that answered each release ({@code votesCast},
 * operator-only since results went public-only), the distributions the job aggregated.
 */
final class ResultProbe implements Runnable, AutoCloseable {
    /** One committed result: when it was visible, and what it says. */
    record Committed(
            String stepKey, long visibleAtMs, long closedAtMs, int votesCast, int teachers) {}

    private final String bootstrap;
    private final String stepsTopic;
    private final String resultsTopic;
    private final String runId;
    private final int teachers;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Map<String, Long> issued = new HashMap<>();
    private final List<Committed> committed = new ArrayList<>();
    private long votes;
    private volatile KafkaConsumer<byte[], byte[]> consumer;

    /** {@code ledgerTopic}: the operator-only ledger, where each release's CHARGE entry lands. */
    ResultProbe(
            String bootstrap, String stepsTopic, String ledgerTopic, String runId, int teachers) {
        this.bootstrap = bootstrap;
        this.stepsTopic = stepsTopic;
        this.resultsTopic = ledgerTopic;
        this.runId = runId;
        this.teachers = teachers;
    }

    @Override
    public void run() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer = c;
            List<TopicPartition> parts = new ArrayList<>();
            for (String topic : List.of(stepsTopic, resultsTopic)) {
                for (PartitionInfo pi : c.partitionsFor(topic)) {
                    parts.add(new TopicPartition(topic, pi.partition()));
                }
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            while (running.get()) {
                var batch = c.poll(Duration.ofMillis(100));
                long now = System.currentTimeMillis();
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    accept(r, now);
                }
            }
        } catch (WakeupException e) {
            // stopping
        } catch (Exception e) {
            failure.compareAndSet(null, e);
        }
    }

    private synchronized void accept(ConsumerRecord<byte[], byte[]> r, long now) {
        try {
            if (r.topic().equals(stepsTopic)) {
                GenerationStep s = AvroWire.decodeStep(r.value());
                if (s.runId().equals(runId)) {
                    issued.putIfAbsent(StepId.keyOf(s), s.issuedAtMs());
                }
            } else {
                LedgerEntry s = AvroWire.decodeLedger(r.value());
                if (s.runId().equals(runId) && s.kind() == LedgerKind.CHARGE) {
                    committed.add(
                            new Committed(StepId.keyOf(s), now, s.atMs(), s.votesCast(), teachers));
                    votes += s.votesCast();
                }
            }
        } catch (AvroWire.UndecodableException e) {
            // not this run's bytes
        }
    }

    /** Results seen so far. */
    synchronized int results() {
        return committed.size();
    }

    /** Σ votesCast over the results seen so far. */
    synchronized long votes() {
        return votes;
    }

    /** The results seen so far. */
    synchronized List<Committed> committed() {
        return List.copyOf(committed);
    }

    /** When the step was issued (epoch ms), or -1 if its step record was not seen. */
    synchronized long issuedAt(String stepKey) {
        Long t = issued.get(stepKey);
        return t == null ? -1 : t;
    }

    Exception failure() {
        return failure.get();
    }

    @Override
    public void close() {
        running.set(false);
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }
}
