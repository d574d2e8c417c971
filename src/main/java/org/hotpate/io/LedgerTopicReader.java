package org.hotpate.io;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reading the compacted budget-ledger topic to its end without missing entries: a read_committed
 * consumer stops at the last stable offset without error, so the readers here first wait until
 * every transaction open on the topic when the read starts has ended ({@link #stableEnd}) and fail
 * closed, naming the open transactions, when one outlives the read timeout. Used by {@link
 * BudgetLedgerIo}'s topic readers and {@link PseudonymSecrets}; {@link #unreadable} is the failure
 * of every ledger-topic reader on an entry it cannot decode.
 */
final class LedgerTopicReader {
    private LedgerTopicReader() {}

    /** Decodes a ledger value; empty when it is an entry of another kind. */
    @FunctionalInterface
    interface Decoder<T> {
        Optional<T> decode(byte[] value) throws AvroWire.UndecodableException;
    }

    /**
     * Reads {@code topic} from its beginning to its stable end ({@link #stableEnd}) as a
     * read_committed consumer and returns the largest version per key of what {@code decoder}
     * decodes. Fails closed on an entry it cannot decode and on a transaction that stays open.
     */
    static <T> List<T> readLatest(
            Properties clientProperties,
            String topic,
            Duration timeout,
            Decoder<T> decoder,
            Function<T, String> key,
            BinaryOperator<T> max) {
        Map<String, T> latest = new LinkedHashMap<>();
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        try (KafkaConsumer<byte[], byte[]> c = consumer(clientProperties, "read_committed")) {
            List<PartitionInfo> infos = c.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                return List.of();
            }
            List<TopicPartition> parts = new ArrayList<>();
            infos.forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            Map<TopicPartition, Long> end =
                    stableEnd(clientProperties, c, topic, parts, timeout, deadline);
            c.assign(parts);
            c.seekToBeginning(parts);
            while (!reached(c, end)) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException(
                            "timed out reading the budget ledger topic " + topic);
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.value() == null) {
                        continue; // a tombstone: an operator removed the entry on purpose
                    }
                    try {
                        decoder.decode(r.value())
                                .ifPresent(v -> latest.merge(key.apply(v), v, max));
                    } catch (AvroWire.UndecodableException e) {
                        throw unreadable(topic, r, e);
                    }
                }
            }
        }
        return new ArrayList<>(latest.values());
    }

    /** A consumer of raw bytes at {@code isolation}, outside any group, committing nothing. */
    static KafkaConsumer<byte[], byte[]> consumer(Properties clientProperties, String isolation) {
        Properties p = new Properties();
        p.putAll(clientProperties);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * The offsets to read to: the read_committed end offsets (last stable offsets) once each has
     * reached the partition's high watermark as of the start of the read, i.e. once every
     * transaction open on the topic then has committed or aborted. A read_committed consumer's end
     * offsets stop at the first open transaction without error, and a transaction left open — an
     * earlier run's: the Flink Kafka sink does not abort on close, and a new run's transactional
     * ids ({@code hotpate-<runId>-…}) never fence the old ones — stays open until the broker aborts
     * it after its {@code transaction.timeout.ms}; reading to the last stable offset meanwhile
     * would compose the dataset's prior without the entries behind it. So this waits (backing off
     * up to 1 s) until {@code deadline} and then fails closed naming the lagging partitions. The
     * target is the high watermark when the read starts, not a moving one, so another run writing
     * the topic transactionally (another dataset) delays the read by at most its transaction.
     */
    private static Map<TopicPartition, Long> stableEnd(
            Properties clientProperties,
            KafkaConsumer<byte[], byte[]> committed,
            String topic,
            List<TopicPartition> parts,
            Duration timeout,
            long deadline) {
        Map<TopicPartition, Long> highWatermark;
        try (KafkaConsumer<byte[], byte[]> u = consumer(clientProperties, "read_uncommitted")) {
            highWatermark = u.endOffsets(parts, timeout);
        }
        long backoff = 50;
        while (true) {
            long left = deadline - System.currentTimeMillis();
            Map<TopicPartition, Long> stable =
                    committed.endOffsets(parts, Duration.ofMillis(Math.max(1000, left)));
            Map<TopicPartition, long[]> lagging = new TreeMap<>(BY_PARTITION);
            for (TopicPartition tp : parts) {
                long lso = stable.get(tp);
                long hw = highWatermark.get(tp);
                if (lso < hw) {
                    lagging.put(tp, new long[] {lso, hw});
                }
            }
            if (lagging.isEmpty()) {
                return new HashMap<>(stable);
            }
            left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                throw new IllegalStateException(
                        openTransactionMessage(clientProperties, topic, timeout, lagging));
            }
            try {
                Thread.sleep(Math.min(backoff, left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(
                        "interrupted waiting for the budget ledger topic " + topic, e);
            }
            backoff = Math.min(2 * backoff, 1000);
        }
    }

    private static final Comparator<TopicPartition> BY_PARTITION =
            Comparator.comparingInt(TopicPartition::partition);

    /** Why the read fails closed, and what to do; names the open transactions where it can. */
    private static String openTransactionMessage(
            Properties clientProperties,
            String topic,
            Duration timeout,
            Map<TopicPartition, long[]> lagging) {
        Map<TopicPartition, List<String>> open = openTransactions(clientProperties, lagging);
        StringBuilder m = new StringBuilder();
        m.append("the budget ledger topic ")
                .append(topic)
                .append(" has an open transaction: after ")
                .append(timeout.toMillis())
                .append(" ms its last stable offset is still below the high watermark the read")
                .append(" began at (");
        String sep = "";
        Long startOffset = null;
        TopicPartition first = null;
        for (Map.Entry<TopicPartition, long[]> e : lagging.entrySet()) {
            TopicPartition tp = e.getKey();
            m.append(sep)
                    .append("partition ")
                    .append(tp.partition())
                    .append(": last stable offset ")
                    .append(e.getValue()[0])
                    .append(" < high watermark ")
                    .append(e.getValue()[1]);
            List<String> txs = open.getOrDefault(tp, List.of());
            if (!txs.isEmpty()) {
                m.append(", ").append(String.join(", ", txs));
            }
            if (first == null) {
                first = tp;
                startOffset = e.getValue()[0];
            }
            sep = "; ";
        }
        m.append("). A read_committed reader stops at the last stable offset without error, so")
                .append(" reading on would miss the entries behind it and compose too small a")
                .append(" prior; the ledger fails closed. The transaction is most likely one an")
                .append(
                        " earlier run's sink left open (transactional ids hotpate-<runId>-<subtask>")
                .append("-<n>: the Flink Kafka sink does not abort it on close, and a new run's")
                .append(" ids do not fence it), or another run writing the topic now. The broker")
                .append(" aborts it once that producer's transaction.timeout.ms has passed (the")
                .append(" job's kafka.transaction-timeout-ms, 300000 ms by default): wait that")
                .append(" long and retry, resume the earlier run (--from-savepoint) so it commits")
                .append(" or aborts, or abort it: kafka-transactions.sh --bootstrap-server <B>")
                .append(" abort --topic ")
                .append(topic)
                .append(" --partition ")
                .append(first.partition())
                .append(" --start-offset ")
                .append(startOffset)
                .append(" (find-hanging lists them).");
        return m.toString();
    }

    /**
     * The open transactions of the lagging partitions ({@code producer id P, transaction from
     * offset S}) as the broker describes them; best effort (the principal may not be allowed to
     * describe producers): empty when it cannot say.
     */
    private static Map<TopicPartition, List<String>> openTransactions(
            Properties clientProperties, Map<TopicPartition, long[]> lagging) {
        Map<TopicPartition, List<String>> out = new HashMap<>();
        try (Admin admin = Admin.create(clientProperties)) {
            var result = admin.describeProducers(lagging.keySet()).all().get(5, TimeUnit.SECONDS);
            for (var e : result.entrySet()) {
                List<String> txs = new ArrayList<>();
                for (ProducerState s : e.getValue().activeProducers()) {
                    s.currentTransactionStartOffset()
                            .ifPresent(
                                    o ->
                                            txs.add(
                                                    "producer id "
                                                            + s.producerId()
                                                            + " transaction from offset "
                                                            + o));
                }
                out.put(e.getKey(), txs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // best effort: the message names the offsets either way
        }
        return out;
    }

    /** Whether {@code c} has read every partition of {@code end} to its offset there. */
    static boolean reached(KafkaConsumer<?, ?> c, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (c.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** An undecodable entry of the ledger topic: the readers fail closed on it. */
    static IllegalStateException unreadable(
            String topic, ConsumerRecord<?, ?> r, AvroWire.UndecodableException e) {
        return new IllegalStateException(
                "unreadable entry in the budget ledger topic "
                        + topic
                        + " at "
                        + r.partition()
                        + "/"
                        + r.offset()
                        + " (the ledger fails closed): "
                        + e.getMessage(),
                e);
    }
}
