package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.io.AvroWire;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.KafkaIo;
import org.hotpate.model.PrivateRecord;
import org.hotpate.model.RawRecord;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.RecordsLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The private-records topic as a bounded batch, on a real in-JVM KRaft broker and MiniCluster. */
class RecordsTopicITCase {
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void start() throws Exception {
        kafka = EmbeddedKafka.start();
        Files.createDirectories(Path.of("target", "it-records"));
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    private static JobConfig cfg(String name, String records) {
        return JobSpec.parse(
                """
                records: {%s}
                ensemble: {source: records, kind: heterogeneous}
                kafka: {mode: external, bootstrap: %s, topics: {private-records: %s.private, rejected: %s.rejected}}
                """
                        .formatted(records, kafka.bootstrapServers(), name, name),
                name);
    }

    @Test
    void reRunningAFileDoesNotDuplicateIt() throws Exception {
        Path file =
                RecordsCorpus.write(
                        Path.of("target", "it-records", "rerun.jsonl"), "user", 40, 0, 0, 9);
        JobConfig c = cfg("rerun", "file: " + file);
        RecordsLoader.Batch first = RecordsLoader.prepare(c, kafka.bootstrapServers(), "r1", null);
        RecordsLoader.Batch second = RecordsLoader.prepare(c, kafka.bootstrapServers(), "r2", null);
        assertThat(first.loaded()).isTrue();
        assertThat(second.loaded()).as("the same file is not produced again").isFalse();
        assertThat(second.records()).isEqualTo(first.records());
        assertThat(second.users()).isEqualTo(40);
        long onTopic =
                RecordsLoader.endOffsets(kafka.bootstrapServers(), "rerun.private")
                        .values()
                        .stream()
                        .mapToLong(Long::longValue)
                        .sum();
        // the records plus one commit marker per partition written, never a second copy
        assertThat(onTopic).isLessThanOrEqualTo(first.records() + 2);
    }

    @Test
    void theJobReadsTheTopicUpToItsEndOffsetsAtStartAndNotALaterProduce() throws Exception {
        JobConfig c = cfg("bounded", "topic: bounded.private");
        KafkaIo.createTopics(kafka.bootstrapServers(), List.of("bounded.private"), 2);
        produce("bounded.private", 0, 30);
        RecordsLoader.Batch batch = RecordsLoader.prepare(c, kafka.bootstrapServers(), "b1", null);
        assertThat(batch.users()).isEqualTo(30);
        Map<TopicPartition, Long> stop = batch.stopOffsets();
        produce("bounded.private", 30, 10); // after the driver captured the end offsets
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        List<RawRecord> read = new ArrayList<>();
        env.fromSource(
                        KafkaIo.boundedSource(
                                kafka.bootstrapServers(), "bounded.private", "g", stop, null),
                        WatermarkStrategy.noWatermarks(),
                        "records")
                .executeAndCollect()
                .forEachRemaining(read::add);
        assertThat(read).hasSize(30);
        List<String> users = new ArrayList<>();
        for (RawRecord r : read) {
            users.add(AvroWire.decodePrivateRecord(r.value()).user());
        }
        assertThat(users).doesNotContain("late-30", "late-39");
    }

    /**
     * Issue 30 item 7: n (the published {@code teachers}, and what {@code auto} plans from) is
     * every user id present in the batch, valid records or not — replacing one user's records with
     * records of that user that are all invalid (empty text, a text that is not a string, too long)
     * leaves n unchanged; the user's teacher exists and abstains. Lines with no readable user id
     * belong to no user. Both the file and the topic path. Fails on 4a555fd, where n counted only
     * users with a valid record (5 against 4).
     */
    @Test
    void nCountsEveryUserIdPresent_aUserWhoseRecordsAreAllInvalidStillCounts() throws Exception {
        Path dir = Path.of("target", "it-records");
        StringBuilder valid = new StringBuilder();
        StringBuilder replaced = new StringBuilder();
        for (int u = 0; u < 5; u++) {
            for (int k = 0; k < 3; k++) {
                String line = "{\"user\":\"u" + u + "\",\"text\":\"hello " + u + " " + k + "\"}\n";
                valid.append(line);
                replaced.append(
                        u < 4
                                ? line
                                : k == 0
                                        ? "{\"user\":\"u4\",\"text\":\"\"}\n"
                                        : "{\"user\":\"u4\",\"text\":" + k + "}\n");
            }
        }
        replaced.append("not json\n").append("{\"text\":\"no user\"}\n"); // nobody's lines
        Path a = Files.writeString(dir.resolve("n-valid.jsonl"), valid.toString());
        Path b = Files.writeString(dir.resolve("n-replaced.jsonl"), replaced.toString());
        RecordsLoader.Batch onA =
                RecordsLoader.prepare(
                        cfg("nvalid", "file: " + a), kafka.bootstrapServers(), "n1", null);
        RecordsLoader.Batch onB =
                RecordsLoader.prepare(
                        cfg("nreplaced", "file: " + b), kafka.bootstrapServers(), "n2", null);
        assertThat(onA.users()).isEqualTo(5);
        assertThat(onB.users()).as("u4's records are all invalid; u4 still counts").isEqualTo(5);
        assertThat(onB.directory().teachers()).isEqualTo(5);
        assertThat(onB.directory().teacherOf("u4")).isGreaterThanOrEqualTo(0);
        // the same file again (already on the topic, not produced again): the same n
        assertThat(
                        RecordsLoader.prepare(
                                        cfg("nreplaced", "file: " + b),
                                        kafka.bootstrapServers(),
                                        "n3",
                                        null)
                                .users())
                .isEqualTo(5);

        // The topic path: u4 wrote only a record with an empty text.
        KafkaIo.createTopics(kafka.bootstrapServers(), List.of("ntopic.private"), 2);
        produce("ntopic.private", 0, 4);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> prod =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            prod.send(
                    new ProducerRecord<>(
                            "ntopic.private",
                            "u4".getBytes(StandardCharsets.UTF_8),
                            AvroWire.encode(new PrivateRecord("u4", "", "", -1))));
        }
        RecordsLoader.Batch onTopic =
                RecordsLoader.prepare(
                        cfg("ntopic", "topic: ntopic.private"),
                        kafka.bootstrapServers(),
                        "n4",
                        null);
        assertThat(onTopic.users()).isEqualTo(5);
    }

    private static void produce(String topic, int from, int n) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> prod =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = from; i < from + n; i++) {
                String user = (from == 0 ? "user-" : "late-") + i;
                prod.send(
                        new ProducerRecord<>(
                                topic,
                                user.getBytes(StandardCharsets.UTF_8),
                                AvroWire.encode(new PrivateRecord(user, "text " + i, "", -1))));
            }
        }
    }
}
