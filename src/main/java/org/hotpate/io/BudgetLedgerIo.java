package org.hotpate.io;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
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
 * runs): one file per teacher, {@code <dir>/<dataset>/teachers/<id>.json} ({@link
 * BudgetLedgerJson#teacherToJson}), merged by {@link TeacherSpend#merge} (the later version wins;
 * never fewer charges).
 *
 * <p><b>Kafka</b> ({@code budget.ledger: kafka}): the compacted topic {@code
 * kafka.topics.budget-ledger}, key {@code <dataset>/run/<runId>}, value a {@code
 * BudgetLedgerRecord} (Avro); {@link #readTopic} reads it to its end as a read_committed consumer
 * and keeps the largest version per key.
 *
 * <p>Readers fail closed: an entry they cannot read stops them (an unreadable entry would otherwise
 * make a dataset look less spent than it is), and so does a transaction on the topic that stays
 * open for the whole read timeout — the last stable offset lagging the high watermark — since a
 * read_committed reader would otherwise stop before it without error ({@link LedgerTopicReader}).
 *
 * <p>Beside the entries, a dataset's ledger holds its lock ({@link DatasetLock}, local) and its
 * pseudonym secret ({@link PseudonymSecrets}); the files' JSON is {@link BudgetLedgerJson}.
 */
public final class BudgetLedgerIo {

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
        LocalFiles.writeAtomically(
                file, BudgetLedgerJson.toJson(merged).getBytes(StandardCharsets.UTF_8));
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
        LocalFiles.writeAtomically(
                file, BudgetLedgerJson.teacherToJson(merged).getBytes(StandardCharsets.UTF_8));
        return merged;
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
            return BudgetLedgerJson.teacherFromJson(Files.readString(file));
        } catch (IOException | RuntimeException e) {
            throw new IOException(
                    "unreadable budget ledger file "
                            + file
                            + " (the ledger fails closed: fix or restore it): "
                            + e.getMessage(),
                    e);
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
            return BudgetLedgerJson.fromJson(Files.readString(file));
        } catch (IOException | RuntimeException e) {
            throw new IOException(
                    "unreadable budget ledger file "
                            + file
                            + " (the ledger fails closed: fix or restore it): "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * Reads the compacted ledger topic from its beginning to its end (read_committed: the last
     * stable offset) and returns the largest version of every run entry. Fails closed ({@link
     * IllegalStateException}) when a transaction open on the topic when the read starts has not
     * ended within {@code timeout} ({@link LedgerTopicReader}).
     */
    public static List<BudgetRecord> readTopic(
            Properties clientProperties, String topic, Duration timeout) {
        return LedgerTopicReader.readLatest(
                clientProperties,
                topic,
                timeout,
                BudgetLedgerWire
                        ::decodeBudgetRecord, // empty for reserved kinds (per-teacher entries)
                BudgetRecord::key,
                BudgetRecord::max);
    }

    /**
     * Appends a run's entry to the ledger topic outside the job's transactions (acks=all,
     * idempotent; readers merge versions never lower, {@link BudgetRecord#max}): the driver's
     * write-ahead of a release it makes itself (the population prior). Durable when it returns.
     */
    public static void writeTopic(
            Properties clientProperties, String topic, BudgetRecord r, Duration timeout) {
        Properties p = new Properties();
        p.putAll(clientProperties);
        p.put(org.apache.kafka.clients.producer.ProducerConfig.ACKS_CONFIG, "all");
        p.put(org.apache.kafka.clients.producer.ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.remove(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG);
        try (var producer =
                new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(
                        p,
                        new org.apache.kafka.common.serialization.ByteArraySerializer(),
                        new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            producer.send(
                            new org.apache.kafka.clients.producer.ProducerRecord<>(
                                    topic,
                                    r.key().getBytes(StandardCharsets.UTF_8),
                                    BudgetLedgerWire.encode(r)))
                    .get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted writing " + r.key() + " to " + topic, e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot write " + r.key() + " to " + topic, e);
        }
    }

    /**
     * Reads the compacted ledger topic like {@link #readTopic} and returns the largest version of
     * every teacher entry ({@code <dataset>/teacher/<id>}).
     */
    public static List<TeacherSpend> readTeachersTopic(
            Properties clientProperties, String topic, Duration timeout) {
        return LedgerTopicReader.readLatest(
                clientProperties,
                topic,
                timeout,
                BudgetLedgerWire::decodeTeacherSpend,
                TeacherSpend::key,
                TeacherSpend::merge);
    }

    /**
     * {@code <dir>/<dataset>/runs/<account>.finished}: the mark of a run that ended cleanly (it
     * cannot be resumed); durable when this returns.
     */
    public static void markFinishedLocal(Path dir, String dataset, String account)
            throws IOException {
        Path f = dir.resolve(dataset).resolve("runs").resolve(account + ".finished");
        Files.createDirectories(f.getParent());
        LocalFiles.writeAtomically(f, new byte[0]);
    }

    /** Whether {@link #markFinishedLocal} marked {@code account}. */
    public static boolean finishedLocal(Path dir, String dataset, String account) {
        return Files.exists(dir.resolve(dataset).resolve("runs").resolve(account + ".finished"));
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
