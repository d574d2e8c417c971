package org.hotpate.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.hotpate.model.BudgetRecord;

/**
 * A dataset's pseudonym secret ({@code protocol.TeacherIds}; records runs), kept with its budget
 * ledger: a key file in the local ledger, or one entry {@code <dataset>/pseudonym-key} of the
 * ledger topic. Drawn once per dataset; readers fail closed on a secret they cannot read.
 */
public final class PseudonymSecrets {
    private PseudonymSecrets() {}

    /** {@code <dir>/<dataset>/pseudonym.key}: the dataset's pseudonym secret (records runs). */
    public static Path keyFile(Path dir, String dataset) {
        return dir.resolve(dataset).resolve("pseudonym.key");
    }

    /**
     * The dataset's pseudonym secret in the local ledger ({@code protocol.TeacherIds}): read from
     * {@link #keyFile}, or — on the dataset's first records run — drawn from {@link
     * java.security.SecureRandom} and written there (hex, owner read/write only, 0600; durable when
     * it returns). Callers hold the dataset's lock. Fails closed on a file it cannot read.
     */
    public static synchronized byte[] readOrCreateLocal(Path dir, String dataset)
            throws IOException {
        Path file = keyFile(dir, dataset);
        if (Files.exists(file)) {
            try {
                byte[] k = java.util.HexFormat.of().parseHex(Files.readString(file).strip());
                if (k.length != org.hotpate.protocol.TeacherIds.SECRET_BYTES) {
                    throw new IllegalArgumentException("wrong length " + k.length);
                }
                return k;
            } catch (RuntimeException e) {
                throw new IOException(
                        "unreadable pseudonym secret "
                                + file
                                + " (the ledger fails closed: fix or restore it): "
                                + e.getMessage(),
                        e);
            }
        }
        byte[] k = new byte[org.hotpate.protocol.TeacherIds.SECRET_BYTES];
        new java.security.SecureRandom().nextBytes(k);
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        try {
            Files.createFile(
                    tmp,
                    java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                            java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(tmp); // not a POSIX file system
        }
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            LocalFiles.writeFully(
                    ch, java.util.HexFormat.of().formatHex(k).getBytes(StandardCharsets.UTF_8));
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE); // never over an existing secret
        LocalFiles.forceDirectory(file.getParent());
        return k;
    }

    /**
     * The dataset's pseudonym secret in the Kafka ledger: the earliest committed entry {@code
     * <dataset>/pseudonym-key} of the topic, or — when there is none — a fresh one from {@link
     * java.security.SecureRandom}, produced and read back. Written once per dataset, so compaction
     * keeps it; like the rest of the Kafka ledger this assumes one run per dataset at a time (two
     * first runs racing could write two secrets).
     */
    public static byte[] readOrCreateOnTopic(
            Properties clientProperties, String topic, String dataset, Duration timeout) {
        byte[] k = readFromTopic(clientProperties, topic, dataset, timeout);
        if (k != null) {
            return k;
        }
        byte[] fresh = new byte[org.hotpate.protocol.TeacherIds.SECRET_BYTES];
        new java.security.SecureRandom().nextBytes(fresh);
        Properties p = new Properties();
        p.putAll(clientProperties);
        p.put(org.apache.kafka.clients.producer.ProducerConfig.ACKS_CONFIG, "all");
        p.put(org.apache.kafka.clients.producer.ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        try (var producer =
                new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(
                        p,
                        new org.apache.kafka.common.serialization.ByteArraySerializer(),
                        new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            producer.send(
                            new org.apache.kafka.clients.producer.ProducerRecord<>(
                                    topic,
                                    BudgetRecord.pseudonymKeyKey(dataset)
                                            .getBytes(StandardCharsets.UTF_8),
                                    BudgetLedgerWire.encodePseudonymKey(
                                            dataset, fresh, System.currentTimeMillis())))
                    .get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "cannot write the pseudonym secret of dataset " + dataset + " to " + topic, e);
        }
        k = readFromTopic(clientProperties, topic, dataset, timeout);
        if (k == null) {
            throw new IllegalStateException(
                    "the pseudonym secret of dataset "
                            + dataset
                            + " is not readable from "
                            + topic);
        }
        return k;
    }

    private static byte[] readFromTopic(
            Properties clientProperties, String topic, String dataset, Duration timeout) {
        byte[] key = BudgetRecord.pseudonymKeyKey(dataset).getBytes(StandardCharsets.UTF_8);
        byte[] found = null;
        long foundTs = Long.MAX_VALUE;
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        try (KafkaConsumer<byte[], byte[]> c =
                LedgerTopicReader.consumer(clientProperties, "read_committed")) {
            List<PartitionInfo> infos = c.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                return null;
            }
            List<TopicPartition> parts = new ArrayList<>();
            infos.forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(parts, timeout));
            while (!LedgerTopicReader.reached(c, end)) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException(
                            "timed out reading the budget ledger topic " + topic);
                }
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.value() == null
                            || r.key() == null
                            || !java.util.Arrays.equals(r.key(), key)
                            || found != null && r.timestamp() >= foundTs) {
                        continue;
                    }
                    try {
                        var e = BudgetLedgerWire.decodePseudonymKey(r.value());
                        if (e.isPresent() && e.get().getKey().equals(dataset)) {
                            found = e.get().getValue();
                            foundTs = r.timestamp();
                        }
                    } catch (AvroWire.UndecodableException e) {
                        throw new IllegalStateException(
                                "unreadable pseudonym secret in the budget ledger topic "
                                        + topic
                                        + " (the ledger fails closed): "
                                        + e.getMessage(),
                                e);
                    }
                }
            }
        }
        return found;
    }
}
