package org.hotpate.io;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.model.LedgerMarker;
import org.hotpate.protocol.DatasetLeases;

/**
 * The drivers' markers ({@link LedgerMarker}) on the budget-ledger topic. Every marker of a dataset
 * goes to one partition (chosen from the dataset id), so all drivers read them in one order; they
 * are written outside transactions (acks=all, idempotent) and read read_uncommitted up to a known
 * offset, so an open transaction of a job on the topic never hides them.
 *
 * <p>Time: a marker read back carries the <b>broker's</b> append time as its {@code atMs} (the
 * topic is created with {@code message.timestamp.type=LogAppendTime}), never the time its writer
 * put in it; on a topic that stamps {@code CreateTime} it carries {@link
 * DatasetLeases#UNKNOWN_TIME}, and a lease then cannot lapse by silence (issue 30 item 6).
 */
public final class LedgerMarkersIo implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Properties client;
    private final String topic;
    private final TopicPartition partition;
    private final KafkaProducer<byte[], byte[]> producer;

    public LedgerMarkersIo(Properties clientProperties, String topic, String dataset) {
        this.client = new Properties();
        client.putAll(clientProperties);
        client.remove(ConsumerConfig.GROUP_ID_CONFIG);
        this.topic = topic;
        Properties p = new Properties();
        p.putAll(client);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        this.producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        List<PartitionInfo> parts = producer.partitionsFor(topic);
        if (parts == null || parts.isEmpty()) {
            producer.close();
            throw new IllegalStateException(
                    "the budget ledger topic " + topic + " has no partitions");
        }
        this.partition = new TopicPartition(topic, Math.floorMod(dataset.hashCode(), parts.size()));
    }

    /** Appends {@code m} and returns its offset once the brokers acknowledged it. */
    public long append(LedgerMarker m) {
        try {
            RecordMetadata md =
                    producer.send(
                                    new ProducerRecord<>(
                                            topic,
                                            partition.partition(),
                                            m.key().getBytes(StandardCharsets.UTF_8),
                                            BudgetLedgerWire.encode(m)))
                            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return md.offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted writing to " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot write the dataset's marker to the budget ledger topic " + topic, e);
        }
    }

    /**
     * The markers of {@code dataset} in the partition, in offset order, from the start through
     * {@code upTo} (inclusive; {@code -1}: through the current end).
     */
    public List<LedgerMarker> read(String dataset, long upTo) {
        Properties p = new Properties();
        p.putAll(client);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<LedgerMarker> out = new ArrayList<>();
        long deadline = System.currentTimeMillis() + TIMEOUT.toMillis();
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.assign(List.of(partition));
            c.seekToBeginning(List.of(partition));
            long end =
                    upTo >= 0 ? upTo + 1 : c.endOffsets(List.of(partition), TIMEOUT).get(partition);
            while (c.position(partition) < end) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException(
                            "timed out reading the dataset markers of " + dataset + " in " + topic);
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.offset() >= end || r.value() == null) {
                        continue;
                    }
                    try {
                        long brokerMs =
                                r.timestampType() == TimestampType.LOG_APPEND_TIME
                                        ? r.timestamp()
                                        : DatasetLeases.UNKNOWN_TIME;
                        BudgetLedgerWire.decodeMarker(r.value())
                                .filter(m -> m.dataset().equals(dataset))
                                .map(
                                        m ->
                                                new LedgerMarker(
                                                        m.dataset(),
                                                        m.kind(),
                                                        m.runId(),
                                                        m.tag(),
                                                        m.held(),
                                                        brokerMs))
                                .ifPresent(out::add);
                    } catch (AvroWire.UndecodableException e) {
                        throw LedgerTopicReader.unreadable(topic, r, e);
                    }
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
