package org.hotpate.stream.driver;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.io.AvroWire;
import org.hotpate.io.KafkaIo;
import org.hotpate.model.PrivateRecord;
import org.hotpate.model.Rejected;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.RecordsConfig;
import org.hotpate.stream.config.Topic;
import org.hotpate.teachers.records.RecordFiles;
import org.hotpate.teachers.records.RecordValidator;
import org.hotpate.teachers.records.UserDirectory;

/**
 * The driver's part of a records run, before the job starts:
 *
 * <ol>
 *   <li>With {@code records.file}: the file's source id is the first 16 hex digits of the SHA-256
 *       of its bytes. Unless the topic already holds records of that source (read_committed), every
 *       valid line is produced to the records topic with the header {@code hotpate.source} = the
 *       id, and every bad line to the rejected topic (reason, line number in the detail and the
 *       {@code offset} field) — all in <b>one Kafka transaction</b> under the transactional id
 *       {@code hotpate-records-<id>}: a crash mid-load leaves nothing a read_committed reader can
 *       see, and the next run loads the file again; a completed load is never repeated.
 *   <li>The end offsets of the records topic (read_committed) are captured: the job reads exactly
 *       up to them (a bounded batch; later writes are not read).
 *   <li>The batch is read once here, validated with the same {@link RecordValidator} as the job, to
 *       count the distinct users and build the {@link UserDirectory}. n (public) is every user id
 *       present in the batch — valid records or not: with a file, every line of the file whose user
 *       field is readable; from the topic, every decodable record with a non-blank user — so
 *       replacing one user's records with records of that user that are all invalid leaves n (and
 *       so the published {@code teachers} and what {@code auto} plans) unchanged; that user's
 *       teacher holds no records and abstains (issue 30 item 7). A line or record that names no
 *       user belongs to no user and counts for none.
 * </ol>
 */
public final class RecordsLoader {
    private RecordsLoader() {}

    /** What the job needs to read the batch, and what the driver reports. */
    public record Batch(
            String sourceId,
            Map<TopicPartition, Long> stopOffsets,
            UserDirectory directory,
            int users,
            long records,
            boolean loaded,
            Map<String, Integer> fileRejections,
            double seconds) {}

    /** Loads the file (if any), captures the end offsets and builds the user directory. */
    public static Batch prepare(JobConfig cfg, String bootstrap, String runId, PrintStream log)
            throws Exception {
        long t0 = System.nanoTime();
        RecordsConfig rc = cfg.records();
        String topic = rc.topic();
        KafkaIo.createTopics(
                bootstrap,
                List.of(topic, cfg.kafka().topics().name(Topic.REJECTED)),
                cfg.kafka().partitions());
        RecordValidator validator = new RecordValidator(rc.fields());
        String sourceId = null;
        boolean loaded = false;
        Map<String, Integer> rejections = new TreeMap<>();
        if (!rc.file().isEmpty()) {
            Path file = Path.of(rc.file());
            sourceId = sourceId(file);
            Map<TopicPartition, Long> produced = new HashMap<>();
            loaded =
                    produceOnce(
                            cfg, bootstrap, runId, file, sourceId, validator, rejections, produced);
            awaitStable(bootstrap, topic, produced);
            if (log != null) {
                log.println(
                        "hotpate run: records file "
                                + file
                                + " (source "
                                + sourceId
                                + ") "
                                + (loaded
                                        ? "produced to " + topic + "; rejected lines: " + rejections
                                        : "already in " + topic + "; not produced again"));
            }
        }
        Map<TopicPartition, Long> end = endOffsets(bootstrap, topic);
        Set<String> users = new HashSet<>();
        if (sourceId != null) { // the file's invalid lines are not on the topic: read the file
            users.addAll(usersOf(Path.of(rc.file()), validator));
        }
        long[] count = {0};
        String source = sourceId;
        scan(
                bootstrap,
                end,
                r -> {
                    if (source != null && !source.equals(KafkaIo.sourceOf(r))) {
                        return;
                    }
                    try {
                        RecordValidator.Result v =
                                validator.record(AvroWire.decodePrivateRecord(r.value()));
                        if (v.user() != null) {
                            users.add(v.user()); // valid or not: n is the user ids present
                        }
                        if (v.valid()) {
                            count[0]++;
                        }
                    } catch (AvroWire.UndecodableException e) {
                        // the job dead-letters it
                    }
                });
        if (users.isEmpty()) {
            throw new IllegalArgumentException(
                    "no user ids in the private records to build teachers from ("
                            + (rc.file().isEmpty() ? "topic " + topic : "records.file " + rc.file())
                            + "; check records.user-field '"
                            + rc.fields().userField()
                            + "' and records.text-field '"
                            + rc.fields().textField()
                            + "')");
        }
        UserDirectory dir =
                cfg.ensemble().heterogeneous()
                        ? UserDirectory.perUser(users)
                        : UserDirectory.hashed(cfg.ensemble().teachers(), cfg.ensemble().seed());
        return new Batch(
                sourceId,
                end,
                dir,
                users.size(),
                count[0],
                loaded,
                rejections,
                (System.nanoTime() - t0) / 1e9);
    }

    /**
     * Every user id that a line of {@code file} names, valid line or not (a line that is not JSON,
     * or has no readable user, names none): the users a file contributes to n.
     */
    static Set<String> usersOf(Path file, RecordValidator validator) throws Exception {
        Set<String> users = new HashSet<>();
        RecordFiles.forEachLine(
                file,
                (line, bytes) -> {
                    String u = validator.line(bytes).user();
                    if (u != null) {
                        users.add(u);
                    }
                });
        return users;
    }

    /** First 16 hex digits of the SHA-256 of the file's bytes. */
    public static String sourceId(Path file) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(md.digest()).substring(0, 16);
    }

    private static boolean produceOnce(
            JobConfig cfg,
            String bootstrap,
            String runId,
            Path file,
            String sourceId,
            RecordValidator validator,
            Map<String, Integer> rejections,
            Map<TopicPartition, Long> produced)
            throws Exception {
        String topic = cfg.records().topic();
        if (holdsSource(bootstrap, topic, sourceId)) {
            return false;
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "hotpate-records-" + sourceId);
        p.put(
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                Long.toString(cfg.kafka().transactionTimeoutMs()));
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(1 << 18));
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(8 << 20));
        try (KafkaProducer<byte[], byte[]> prod =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            // Fences (and aborts) a crashed earlier load of the same file; then check again, so two
            // drivers racing on one file cannot both load it.
            prod.initTransactions();
            if (holdsSource(bootstrap, topic, sourceId)) {
                return false;
            }
            prod.beginTransaction();
            String name = "file:" + file.getFileName();
            byte[] source = sourceId.getBytes(StandardCharsets.UTF_8);
            RecordFiles.forEachLine(
                    file,
                    (line, bytes) -> {
                        RecordValidator.Result v = validator.line(bytes);
                        if (v.valid()) {
                            PrivateRecord r = v.record();
                            ProducerRecord<byte[], byte[]> pr =
                                    new ProducerRecord<>(
                                            topic,
                                            r.user().getBytes(StandardCharsets.UTF_8),
                                            AvroWire.encode(r));
                            pr.headers().add(KafkaIo.SOURCE_HEADER, source);
                            pr.headers()
                                    .add(
                                            "hotpate.line",
                                            Long.toString(line).getBytes(StandardCharsets.UTF_8));
                            prod.send(
                                    pr,
                                    (md, e) -> {
                                        if (md != null) {
                                            synchronized (produced) {
                                                produced.merge(
                                                        new TopicPartition(
                                                                md.topic(), md.partition()),
                                                        md.offset() + 1,
                                                        Math::max);
                                            }
                                        }
                                    });
                        } else {
                            rejections.merge(v.reason(), 1, Integer::sum);
                            byte[] raw =
                                    bytes.length <= 4096
                                            ? bytes
                                            : java.util.Arrays.copyOf(bytes, 4096);
                            prod.send(
                                    new ProducerRecord<>(
                                            cfg.kafka().topics().name(Topic.REJECTED),
                                            null,
                                            AvroWire.encode(
                                                    new Rejected(
                                                            name,
                                                            v.reason(),
                                                            name
                                                                    + " line "
                                                                    + line
                                                                    + ": "
                                                                    + v.detail(),
                                                            runId,
                                                            -1,
                                                            -1,
                                                            line,
                                                            raw,
                                                            System.currentTimeMillis()))));
                        }
                    });
            prod.commitTransaction();
        }
        return true;
    }

    /**
     * Waits until the committed end of every partition passes the records just produced: the
     * transaction markers are written after commitTransaction() returns, so the last stable offsets
     * may lag for a moment.
     */
    static void awaitStable(String bootstrap, String topic, Map<TopicPartition, Long> produced)
            throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            Map<TopicPartition, Long> end = endOffsets(bootstrap, topic);
            boolean stable = true;
            synchronized (produced) {
                for (Map.Entry<TopicPartition, Long> e : produced.entrySet()) {
                    stable &= end.getOrDefault(e.getKey(), 0L) >= e.getValue();
                }
            }
            if (stable) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException(
                        "the records load committed but " + topic + " did not become readable");
            }
            Thread.sleep(100);
        }
    }

    /** Whether the topic holds (committed) records of this source id. */
    static boolean holdsSource(String bootstrap, String topic, String sourceId) throws Exception {
        boolean[] found = {false};
        scan(
                bootstrap,
                endOffsets(bootstrap, topic),
                r -> found[0] |= sourceId.equals(KafkaIo.sourceOf(r)));
        return found[0];
    }

    /** The read_committed end offsets (last stable offsets) of every partition of the topic. */
    public static Map<TopicPartition, Long> endOffsets(String bootstrap, String topic)
            throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get()
                    .get(topic)
                    .partitions()
                    .forEach(
                            pi ->
                                    q.put(
                                            new TopicPartition(topic, pi.partition()),
                                            OffsetSpec.latest()));
            Map<TopicPartition, Long> out = new HashMap<>();
            // A topic created a moment ago may not have its partition leaders yet: the broker
            // answers UnknownTopicOrPartition for a few hundred ms (seen in CI); wait, not fail.
            long deadline = System.currentTimeMillis() + 15_000;
            while (true) {
                try {
                    admin.listOffsets(q, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                            .all()
                            .get()
                            .forEach((tp, info) -> out.put(tp, info.offset()));
                    return out;
                } catch (java.util.concurrent.ExecutionException e) {
                    boolean notYet =
                            e.getCause()
                                            instanceof
                                            org.apache.kafka.common.errors
                                                    .UnknownTopicOrPartitionException
                                    || e.getCause()
                                            instanceof
                                            org.apache.kafka.common.errors
                                                    .LeaderNotAvailableException;
                    if (!notYet || System.currentTimeMillis() > deadline) {
                        throw e;
                    }
                    Thread.sleep(100);
                }
            }
        }
    }

    interface RecordSink {
        void accept(ConsumerRecord<byte[], byte[]> r);
    }

    /** Reads every partition from the beginning up to {@code end} (read_committed). */
    static void scan(String bootstrap, Map<TopicPartition, Long> end, RecordSink sink) {
        List<TopicPartition> parts = new ArrayList<>();
        end.forEach(
                (tp, off) -> {
                    if (off > 0) {
                        parts.add(tp);
                    }
                });
        if (parts.isEmpty()) {
            return;
        }
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.assign(parts);
            c.seekToBeginning(parts);
            Set<TopicPartition> open = new HashSet<>(parts);
            long deadline = System.currentTimeMillis() + 600_000;
            while (!open.isEmpty() && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (r.offset() < end.get(tp)) {
                        sink.accept(r);
                    }
                }
                open.removeIf(tp -> c.position(tp) >= end.get(tp));
            }
            if (!open.isEmpty()) {
                throw new IllegalStateException("could not read the records topic up to " + end);
            }
        }
    }
}
