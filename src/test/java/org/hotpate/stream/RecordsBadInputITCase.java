package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.io.AvroWire;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.io.KafkaIo;
import org.hotpate.model.GenerationStep;
import org.hotpate.model.PrivateRecord;
import org.hotpate.model.Rejected;
import org.hotpate.model.Vote;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.RunSession;
import org.junit.jupiter.api.Test;

/**
 * Bad private records on the records topic (any producer may write it), read by a running records
 * job (MiniCluster, parallelism 2, RocksDB, in-JVM KRaft broker): bytes that are not Avro, a record
 * of another schema (unknown fingerprint), text that is not UTF-8, empty text, a blank user and
 * text over {@code records.max-text-bytes} — mixed in with the valid records of 40 users — and,
 * while the run goes on, an unknown fingerprint and garbage on the distributions and steps topics.
 * Each lands on the rejected topic with its reason, the run completes with all its sequences built
 * from exactly the valid users, and the job never restarts (a vote tap counts how often its
 * subtasks are opened: a restart would open them again).
 *
 * <p>Before issue 13, text that was not UTF-8 on the topic was silently decoded with U+FFFD
 * replacement characters and fed to a teacher; a records file already rejected it (NOT_UTF8).
 */
class RecordsBadInputITCase {
    private static final int USERS = 40;
    private static final AtomicInteger TAP_OPENS = new AtomicInteger();

    /** Counts its subtasks' opens; a restart of the job opens them again. */
    static final class OpenCounter extends RichMapFunction<Vote, Vote> {
        private static final long serialVersionUID = 1L;

        @Override
        public void open(OpenContext ctx) {
            TAP_OPENS.incrementAndGet();
        }

        @Override
        public Vote map(Vote v) {
            return v;
        }
    }

    @Test
    void badRecordsAreDeadLetteredWithTheirReasonsAndTheJobNeverRestarts() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            String bootstrap = kafka.bootstrapServers();
            JobConfig cfg =
                    JobSpec.parse(
                            """
                            name: recbad
                            records: {topic: recbad.private, max-text-bytes: 2000}
                            ensemble: {source: records, kind: heterogeneous}
                            teacher: {model: ngram, order: 3}
                            tokenizer: cl100k_base
                            sampler: {type: coordinated, seed: 7}
                            mechanism: {name: confident-gnmax, params: {sigma1: 2, threshold: 12, sigma2: 2}}
                            budget: {epsilon: 50.0, delta: 1.0e-6}
                            generation: {sequences: 4, concurrency: 4, max-steps: 5, on-fail: resample, max-attempts: 2, stop: ["\\n"]}
                            kafka:
                              mode: external
                              bootstrap: %s
                              topics: {steps: recbad.steps, distributions: recbad.distributions, results: recbad.results,
                                       records: recbad.records, ledger: recbad.ledger, rejected: recbad.rejected}
                            flink: {parallelism: 2, checkpoint-interval-ms: 500}
                            output: {dir: target/it-out}
                            """
                                    .formatted(bootstrap),
                            "recbad");
            KafkaIo.createTopics(bootstrap, List.of("recbad.private"), 2);
            List<byte[]> values = new ArrayList<>();
            String[] texts = {
                "the build is green again today", "the release went out this morning",
                "please review the patch before friday", "the tests pass on my machine now"
            };
            for (int u = 0; u < USERS; u++) {
                for (int i = 0; i < 3; i++) {
                    values.add(
                            AvroWire.encode(
                                    new PrivateRecord(
                                            "user-" + u, texts[(u + i) % texts.length], "", -1)));
                }
            }
            // 1. not Avro
            values.add(
                    "{\"user\": \"mallory\", \"text\": \"json\"}".getBytes(StandardCharsets.UTF_8));
            // 2. another schema's record (a step) on the records topic: unknown fingerprint
            values.add(
                    AvroWire.encode(
                            new GenerationStep("x", "e", 0, 0, 0, new int[0], 1L, 1, 10, 0, 0)));
            // 3. text that is not UTF-8 (a lone continuation byte, same length as the original)
            byte[] latin = AvroWire.encode(new PrivateRecord("user-1", "caf_ ok", "", -1));
            latin[indexOf(latin, "caf_".getBytes(StandardCharsets.UTF_8)) + 3] = (byte) 0xE9;
            values.add(latin);
            // 4. empty text, 5. a blank user, 6. text over records.max-text-bytes
            values.add(AvroWire.encode(new PrivateRecord("user-2", "", "", -1)));
            values.add(AvroWire.encode(new PrivateRecord("  ", "no one wrote this", "", -1)));
            values.add(AvroWire.encode(new PrivateRecord("user-3", "x".repeat(5000), "", -1)));
            produce(bootstrap, "recbad.private", values);

            TAP_OPENS.set(0);
            try (RunSession run =
                    RunSession.start(
                            cfg,
                            null,
                            votes ->
                                    votes.map(new OpenCounter())
                                            .returns(Types.POJO(Vote.class))
                                            .name("open-counter"))) {
                // While the job runs: garbage and another schema on the teachers' topics.
                assertThat(run.awaitCondition(r -> !r.results().isEmpty(), Duration.ofSeconds(120)))
                        .as("the job is releasing")
                        .isTrue();
                produce(
                        bootstrap,
                        "recbad.distributions",
                        List.of(
                                "not avro".getBytes(StandardCharsets.UTF_8),
                                AvroWire.encode(
                                        new GenerationStep(
                                                run.runId(),
                                                "e",
                                                0,
                                                0,
                                                0,
                                                new int[0],
                                                1L,
                                                1,
                                                10,
                                                0,
                                                0))));
                produce(bootstrap, "recbad.steps", List.of(new byte[] {(byte) 0xC3, 0x01, 7}));

                assertThat(run.await(Duration.ofSeconds(150), null)).as("run completes").isTrue();
                assertThat(
                                run.awaitCondition(
                                        r -> r.rejected().size() >= 9, Duration.ofSeconds(30)))
                        .as("every bad input dead-lettered; got " + reasons(run))
                        .isTrue();
                run.finish();

                assertThat(run.records()).as("all sequences").hasSize(4);
                assertThat(run.config().ensemble().teachers())
                        .as("teachers = the user ids present (the invalid records name only them)")
                        .isEqualTo(USERS);
                assertThat(run.epsilon()).isLessThanOrEqualTo(cfg.budget().epsilon());
                Map<String, Long> byTopicAndReason =
                        run.rejected().stream()
                                .collect(
                                        Collectors.groupingBy(
                                                x -> x.topic() + " " + x.reason(),
                                                Collectors.counting()));
                assertThat(byTopicAndReason)
                        .containsEntry("recbad.private " + Rejected.UNDECODABLE, 1L)
                        .containsEntry("recbad.private " + Rejected.UNKNOWN_SCHEMA, 1L)
                        .containsEntry("recbad.private " + Rejected.NOT_UTF8, 1L)
                        .containsEntry("recbad.private EMPTY_TEXT", 1L)
                        .containsEntry("recbad.private MISSING_USER", 1L)
                        .containsEntry("recbad.private TEXT_TOO_LONG", 1L)
                        .containsEntry("recbad.distributions " + Rejected.UNDECODABLE, 1L)
                        .containsEntry("recbad.distributions " + Rejected.UNKNOWN_SCHEMA, 1L)
                        .containsEntry("recbad.steps " + Rejected.UNDECODABLE, 1L);
                assertThat(run.rejected())
                        .filteredOn(x -> x.reason().equals(Rejected.UNDECODABLE))
                        .allMatch(x -> x.value() != null && x.offset() >= 0);
                assertThat(TAP_OPENS.get())
                        .as(
                                "each vote-tap subtask opened once (the tap is applied to both"
                                        + " vote streams): the job never restarted")
                        .isEqualTo(2 * cfg.flink().parallelism());
            }
        }
    }

    private static Map<String, Long> reasons(RunSession r) {
        return r.rejected().stream()
                .collect(Collectors.groupingBy(Rejected::reason, Collectors.counting()));
    }

    private static void produce(String bootstrap, String topic, List<byte[]> values)
            throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<byte[], byte[]> prod =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (byte[] v : values) {
                prod.send(new ProducerRecord<>(topic, null, v)).get();
            }
        }
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
