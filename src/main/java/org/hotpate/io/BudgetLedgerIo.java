package org.hotpate.io;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
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
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.TeacherSpend;

/**
 * Storage of the durable per-dataset budget ledger ({@link BudgetRecord}s, one per run).
 *
 * <p><b>Local</b> ({@code budget.ledger: local}): one JSON file per run, {@code
 * <dir>/<dataset>/runs/<runId>.json}. A write merges with what the file holds (the larger value
 * order by order, {@link BudgetRecord#max}), writes a temporary file, forces it to disk, renames it
 * over the old one atomically and forces the directory — so the file never holds less than a
 * version written before, and a crash leaves either the old or the new version. Format (version 1):
 * {@code {"version":1,"kind":"run","dataset":…,"runId":…,"differentiallyPrivate":…,"mechanism":…,
 * "orders":[…],"rdp":[…],"approxDelta":…,"delta":…,"releases":…,"answered":…,"epsilon":…|null,
 * "updatedAtMs":…}} ({@code epsilon} null when infinite). Per-teacher spending (scheme-a/scheme-b
 * runs): one file per teacher, {@code <dir>/<dataset>/teachers/<id>.json} ({@link #teacherToJson}),
 * merged by {@link TeacherSpend#merge} (the later version wins; never fewer charges).
 *
 * <p><b>Kafka</b> ({@code budget.ledger: kafka}): the compacted topic {@code
 * kafka.topics.budget-ledger}, key {@code <dataset>/run/<runId>}, value a {@code
 * BudgetLedgerRecord} (Avro); {@link #readTopic} reads it to its end as a read_committed consumer
 * and keeps the largest version per key.
 *
 * <p>Readers fail closed: an entry they cannot read stops them (an unreadable entry would otherwise
 * make a dataset look less spent than it is), and so does a transaction on the topic that stays
 * open for the whole read timeout — the last stable offset lagging the high watermark — since a
 * read_committed reader would otherwise stop before it without error ({@link #stableEnd}).
 */
public final class BudgetLedgerIo {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int FORMAT_VERSION = 1;

    private BudgetLedgerIo() {}

    /** {@code <dir>/<dataset>/runs/<runId>.json}. */
    public static Path runFile(Path dir, String dataset, String runId) {
        return dir.resolve(dataset).resolve("runs").resolve(runId + ".json");
    }

    /**
     * Writes a run's entry, merged with the version already on disk (never lower); returns what the
     * file now holds. Durable when it returns (fsync of the file and the directory).
     */
    public static synchronized BudgetRecord writeLocal(Path dir, BudgetRecord r)
            throws IOException {
        Path file = runFile(dir, r.dataset(), r.runId());
        Files.createDirectories(file.getParent());
        BudgetRecord merged = r;
        if (Files.exists(file)) {
            merged = read(file).max(r);
        }
        byte[] bytes = toJson(merged).getBytes(StandardCharsets.UTF_8);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch =
                FileChannel.open(
                        tmp,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Directories cannot be opened for sync on every platform; the rename is still atomic.
        }
        return merged;
    }

    /** {@code <dir>/<dataset>/teachers/<id>.json}: one teacher's spending (per-teacher schemes). */
    public static Path teacherFile(Path dir, String dataset, long teacherId) {
        return dir.resolve(dataset).resolve("teachers").resolve(teacherId + ".json");
    }

    /**
     * Writes a teacher's spending as the running writer's latest version, merged with the version
     * on disk ({@link TeacherSpend#merge}: never fewer charges); durable when it returns, like
     * {@link #writeLocal}. The write supersedes the file's version: a restore may have rolled the
     * writer's keyed version counter back below what it wrote before the failure (the local write
     * happens in {@code snapshotState}, before the checkpoint completes), and the restored state is
     * what any release committed from now on depends on — so {@code t}'s version is raised above
     * the file's. Charges the file holds and {@code t} does not are kept.
     */
    public static synchronized TeacherSpend writeTeacherLocal(Path dir, TeacherSpend t)
            throws IOException {
        Path file = teacherFile(dir, t.dataset(), t.teacherId());
        Files.createDirectories(file.getParent());
        TeacherSpend merged = t;
        if (Files.exists(file)) {
            TeacherSpend old = readTeacher(file);
            merged =
                    TeacherSpend.merge(
                            old, t.withVersion(Math.max(t.version(), old.version() + 1)));
        }
        writeAtomically(file, teacherToJson(merged).getBytes(StandardCharsets.UTF_8));
        return merged;
    }

    /** {@code <dir>/<dataset>/pseudonym.key}: the dataset's pseudonym secret (records runs). */
    public static Path pseudonymKeyFile(Path dir, String dataset) {
        return dir.resolve(dataset).resolve("pseudonym.key");
    }

    /**
     * The dataset's pseudonym secret in the local ledger ({@code protocol.TeacherIds}): read from
     * {@link #pseudonymKeyFile}, or — on the dataset's first records run — drawn from {@link
     * java.security.SecureRandom} and written there (hex, owner read/write only, 0600; durable when
     * it returns). Callers hold the dataset's lock. Fails closed on a file it cannot read.
     */
    public static synchronized byte[] pseudonymSecretLocal(Path dir, String dataset)
            throws IOException {
        Path file = pseudonymKeyFile(dir, dataset);
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
            ByteBuffer buf =
                    ByteBuffer.wrap(
                            java.util.HexFormat.of().formatHex(k).getBytes(StandardCharsets.UTF_8));
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel d = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Directories cannot be opened for sync on every platform; the rename is still atomic.
        }
        return k;
    }

    /**
     * The dataset's pseudonym secret in the Kafka ledger: the earliest committed entry {@code
     * <dataset>/pseudonym-key} of the topic, or — when there is none — a fresh one from {@link
     * java.security.SecureRandom}, produced and read back. Written once per dataset, so compaction
     * keeps it; like the rest of the Kafka ledger this assumes one run per dataset at a time (two
     * first runs racing could write two secrets).
     */
    public static byte[] pseudonymSecretTopic(
            Properties clientProperties, String topic, String dataset, Duration timeout) {
        byte[] k = readPseudonymSecret(clientProperties, topic, dataset, timeout);
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
                                    AvroWire.encodePseudonymKey(
                                            dataset, fresh, System.currentTimeMillis())))
                    .get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "cannot write the pseudonym secret of dataset " + dataset + " to " + topic, e);
        }
        k = readPseudonymSecret(clientProperties, topic, dataset, timeout);
        if (k == null) {
            throw new IllegalStateException(
                    "the pseudonym secret of dataset "
                            + dataset
                            + " is not readable from "
                            + topic);
        }
        return k;
    }

    private static byte[] readPseudonymSecret(
            Properties clientProperties, String topic, String dataset, Duration timeout) {
        Properties p = new Properties();
        p.putAll(clientProperties);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        byte[] key = BudgetRecord.pseudonymKeyKey(dataset).getBytes(StandardCharsets.UTF_8);
        byte[] found = null;
        long foundTs = Long.MAX_VALUE;
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<PartitionInfo> infos = c.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                return null;
            }
            List<TopicPartition> parts = new ArrayList<>();
            infos.forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(parts, timeout));
            while (!reached(c, end)) {
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
                        var e = AvroWire.decodePseudonymKey(r.value());
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

    /** Every teacher entry of {@code dataset} in the local ledger. */
    public static List<TeacherSpend> readTeachersLocal(Path dir, String dataset)
            throws IOException {
        List<TeacherSpend> out = new ArrayList<>();
        Path d = dir.resolve(dataset).resolve("teachers");
        if (!Files.isDirectory(d)) {
            return out;
        }
        try (Stream<Path> s = Files.list(d)) {
            for (Path f : s.sorted().toList()) {
                if (f.getFileName().toString().endsWith(".json")) {
                    out.add(readTeacher(f));
                }
            }
        }
        return out;
    }

    private static TeacherSpend readTeacher(Path file) throws IOException {
        try {
            return teacherFromJson(Files.readString(file));
        } catch (IOException | RuntimeException e) {
            throw new IOException(
                    "unreadable budget ledger file "
                            + file
                            + " (the ledger fails closed: fix or restore it): "
                            + e.getMessage(),
                    e);
        }
    }

    /** A teacher's entry as the local ledger's JSON ({@code "kind":"teacher"}). */
    public static String teacherToJson(TeacherSpend t) {
        ObjectNode o = JSON.createObjectNode();
        o.put("version", FORMAT_VERSION);
        o.put("kind", BudgetRecord.TEACHER);
        o.put("dataset", t.dataset());
        o.put("teacherId", t.teacherId());
        o.put("plan", t.plan());
        o.put("charges", t.charges());
        o.put("pending", t.pending());
        o.put("entryVersion", t.version()); // "version" is the format's
        o.put("epsilon", t.epsilon());
        o.put("delta", t.delta());
        o.put("retired", t.retired());
        o.put("runId", t.runId());
        o.put("updatedAtMs", t.updatedAtMs());
        return o.toString();
    }

    /** Parses {@link #teacherToJson}; throws IllegalArgumentException on anything else. */
    public static TeacherSpend teacherFromJson(String json) throws IOException {
        JsonNode o = JSON.readTree(json);
        if (o == null || o.path("version").asInt(-1) != FORMAT_VERSION) {
            throw new IllegalArgumentException("not a version-1 budget ledger entry");
        }
        if (!BudgetRecord.TEACHER.equals(o.path("kind").asText())) {
            throw new IllegalArgumentException("not a teacher entry: kind " + o.path("kind"));
        }
        return new TeacherSpend(
                required(o, "dataset").asText(),
                required(o, "teacherId").asLong(),
                required(o, "plan").asText(),
                required(o, "charges").asLong(),
                o.path("pending").asLong(0), // absent in entries written before it existed
                o.path("entryVersion").asLong(0),
                required(o, "epsilon").asDouble(),
                required(o, "delta").asDouble(),
                required(o, "retired").asBoolean(),
                required(o, "runId").asText(),
                o.path("updatedAtMs").asLong(0));
    }

    private static void writeAtomically(Path file, byte[] bytes) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch =
                FileChannel.open(
                        tmp,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // Directories cannot be opened for sync on every platform; the rename is still atomic.
        }
    }

    /** Every run entry under {@code dir} ({@code dataset} null: all datasets). */
    public static List<BudgetRecord> readLocal(Path dir, String dataset) throws IOException {
        List<BudgetRecord> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        List<Path> datasets = new ArrayList<>();
        if (dataset != null) {
            datasets.add(dir.resolve(dataset));
        } else {
            try (Stream<Path> s = Files.list(dir)) {
                s.filter(Files::isDirectory).sorted().forEach(datasets::add);
            }
        }
        for (Path d : datasets) {
            Path runs = d.resolve("runs");
            if (!Files.isDirectory(runs)) {
                continue;
            }
            try (Stream<Path> s = Files.list(runs)) {
                for (Path f : s.sorted().toList()) {
                    if (f.getFileName().toString().endsWith(".json")) {
                        out.add(read(f));
                    }
                }
            }
        }
        return out;
    }

    private static BudgetRecord read(Path file) throws IOException {
        try {
            return fromJson(Files.readString(file));
        } catch (IOException | RuntimeException e) {
            throw new IOException(
                    "unreadable budget ledger file "
                            + file
                            + " (the ledger fails closed: fix or restore it): "
                            + e.getMessage(),
                    e);
        }
    }

    /** A run's entry as the local ledger's JSON. */
    public static String toJson(BudgetRecord r) {
        ObjectNode o = JSON.createObjectNode();
        o.put("version", FORMAT_VERSION);
        o.put("kind", BudgetRecord.RUN);
        o.put("dataset", r.dataset());
        o.put("runId", r.runId());
        o.put("differentiallyPrivate", r.differentiallyPrivate());
        o.put("mechanism", r.mechanism());
        ArrayNode orders = o.putArray("orders");
        for (double v : r.orders()) {
            orders.add(v);
        }
        ArrayNode rdp = o.putArray("rdp");
        for (double v : r.rdp()) {
            rdp.add(v);
        }
        o.put("approxDelta", r.approxDelta());
        o.put("delta", r.delta());
        o.put("releases", r.releases());
        o.put("answered", r.answered());
        if (Double.isFinite(r.epsilon())) {
            o.put("epsilon", r.epsilon());
        } else {
            o.putNull("epsilon");
        }
        o.put("updatedAtMs", r.updatedAtMs());
        ArrayNode plan = o.putArray("datasetPlan");
        for (double v : r.datasetPlan()) {
            plan.add(v);
        }
        return o.toString();
    }

    /** Parses {@link #toJson}; throws IllegalArgumentException on anything else. */
    public static BudgetRecord fromJson(String json) throws IOException {
        JsonNode o = JSON.readTree(json);
        if (o == null || o.path("version").asInt(-1) != FORMAT_VERSION) {
            throw new IllegalArgumentException("not a version-1 budget ledger entry");
        }
        if (!BudgetRecord.RUN.equals(o.path("kind").asText())) {
            throw new IllegalArgumentException("not a run entry: kind " + o.path("kind"));
        }
        return new BudgetRecord(
                required(o, "dataset").asText(),
                required(o, "runId").asText(),
                required(o, "differentiallyPrivate").asBoolean(),
                o.path("mechanism").asText(""),
                doubles(required(o, "orders")),
                doubles(required(o, "rdp")),
                required(o, "approxDelta").asDouble(),
                required(o, "delta").asDouble(),
                required(o, "releases").asLong(),
                o.path("answered").asLong(0),
                o.path("epsilon").isNull()
                        ? Double.POSITIVE_INFINITY
                        : required(o, "epsilon").asDouble(),
                o.path("updatedAtMs").asLong(0),
                o.has("datasetPlan") ? doubles(o.get("datasetPlan")) : new double[0]);
    }

    private static JsonNode required(JsonNode o, String field) {
        JsonNode n = o.get(field);
        if (n == null) {
            throw new IllegalArgumentException("missing field " + field);
        }
        return n;
    }

    private static double[] doubles(JsonNode arr) {
        if (!arr.isArray()) {
            throw new IllegalArgumentException("expected an array; got " + arr);
        }
        double[] d = new double[arr.size()];
        for (int i = 0; i < d.length; i++) {
            if (!arr.get(i).isNumber()) {
                throw new IllegalArgumentException("expected numbers; got " + arr.get(i));
            }
            d[i] = arr.get(i).asDouble();
        }
        return d;
    }

    /**
     * Reads the compacted ledger topic from its beginning to its end (read_committed: the last
     * stable offset) and returns the largest version of every run entry. Fails closed ({@link
     * IllegalStateException}) when a transaction open on the topic when the read starts has not
     * ended within {@code timeout} ({@link #stableEnd}).
     */
    public static List<BudgetRecord> readTopic(
            Properties clientProperties, String topic, Duration timeout) {
        return readToEnd(
                clientProperties,
                topic,
                timeout,
                AvroWire::decodeBudgetRecord, // empty for reserved kinds (per-teacher entries)
                BudgetRecord::key,
                BudgetRecord::max);
    }

    /**
     * Reads the compacted ledger topic like {@link #readTopic} and returns the largest version of
     * every teacher entry ({@code <dataset>/teacher/<id>}).
     */
    public static List<TeacherSpend> readTeachersTopic(
            Properties clientProperties, String topic, Duration timeout) {
        return readToEnd(
                clientProperties,
                topic,
                timeout,
                AvroWire::decodeTeacherSpend,
                TeacherSpend::key,
                TeacherSpend::merge);
    }

    /** Decodes a ledger value; empty when it is an entry of another kind. */
    @FunctionalInterface
    private interface Decoder<T> {
        Optional<T> decode(byte[] value) throws AvroWire.UndecodableException;
    }

    /**
     * The shared loop of the topic readers: waits for a stable end ({@link #stableEnd}), reads
     * every partition from its beginning to there and keeps the largest version per key.
     */
    private static <T> List<T> readToEnd(
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
                        throw BudgetLedgerIo.unreadable(topic, r, e);
                    }
                }
            }
        }
        return new ArrayList<>(latest.values());
    }

    private static KafkaConsumer<byte[], byte[]> consumer(
            Properties clientProperties, String isolation) {
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

    private static boolean reached(KafkaConsumer<?, ?> c, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (c.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /**
     * An exclusive lock on a dataset's local ledger directory for the life of a run, so two runs on
     * one machine cannot both compose with the same prior and together pass the dataset's budget.
     */
    public static final class DatasetLock implements AutoCloseable {
        private final FileChannel channel;
        private final FileLock lock;
        private final String previous;

        private DatasetLock(FileChannel channel, FileLock lock, String previous) {
            this.channel = channel;
            this.lock = lock;
            this.previous = previous;
        }

        /**
         * What the lock file said when this lock was taken: the last holder's record (a job on a
         * cluster may outlive the driver whose OS lock went with its process); "" if none.
         */
        public String previous() {
            return previous;
        }

        /**
         * Records the holder (shown to a run refused by the lock, and read by the next holder);
         * durable when this returns.
         */
        public void record(String holder) throws IOException {
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(holder.getBytes(StandardCharsets.UTF_8)), 0);
            channel.force(false);
        }

        @Override
        public void close() throws IOException {
            try {
                lock.release();
            } finally {
                channel.close();
            }
        }
    }

    /** The text of {@code <dir>/<dataset>/.lock} (the last holder's record; "" if none). */
    public static String lockRecord(Path dir, String dataset) {
        try {
            return Files.readString(dir.resolve(dataset).resolve(".lock"), StandardCharsets.UTF_8)
                    .trim();
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * Locks {@code <dir>/<dataset>}; throws IllegalStateException when another live process holds
     * it. The caller decides whether the previous holder's record ({@link DatasetLock#previous})
     * still holds the dataset.
     */
    public static DatasetLock lockLocal(Path dir, String dataset) throws IOException {
        Path d = dir.resolve(dataset);
        Files.createDirectories(d);
        FileChannel ch =
                FileChannel.open(
                        d.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        String holder = lockRecord(dir, dataset);
        if (lock == null) {
            ch.close();
            throw new IllegalStateException(
                    "dataset '"
                            + dataset
                            + "' is in use by "
                            + (holder.isEmpty() ? "another run" : "run " + holder)
                            + " (lock "
                            + d.resolve(".lock")
                            + "); one run per dataset at a time — wait for it to end");
        }
        return new DatasetLock(ch, lock, holder);
    }

    /**
     * {@code <dir>/<dataset>/runs/<account>.finished}: the mark of a run that ended cleanly (it
     * cannot be resumed); durable when this returns.
     */
    public static void markFinishedLocal(Path dir, String dataset, String account)
            throws IOException {
        Path f = dir.resolve(dataset).resolve("runs").resolve(account + ".finished");
        Files.createDirectories(f.getParent());
        writeAtomically(f, new byte[0]);
    }

    /** Whether {@link #markFinishedLocal} marked {@code account}. */
    public static boolean finishedLocal(Path dir, String dataset, String account) {
        return Files.exists(dir.resolve(dataset).resolve("runs").resolve(account + ".finished"));
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

    /** The largest version per run of {@code records}. */
    public static List<BudgetRecord> latest(Collection<BudgetRecord> records) {
        Map<String, BudgetRecord> m = new LinkedHashMap<>();
        for (BudgetRecord r : records) {
            m.merge(r.key(), r, BudgetRecord::max);
        }
        return new ArrayList<>(m.values());
    }
}
