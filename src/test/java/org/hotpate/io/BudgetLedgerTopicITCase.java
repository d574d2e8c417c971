package org.hotpate.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.model.BudgetRecord;
import org.hotpate.model.TeacherSpend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Kafka ledger readers and an open transaction on the ledger topic (issue 23, item 9): a
 * read_committed consumer's end offsets stop at the last stable offset without error, so a
 * transaction left open by an earlier run (the Flink sink does not abort on close, and a new run's
 * transactional ids never fence the old ones) would make the driver compose a stale prior. The
 * readers wait for the transactions open when they start to end, and fail closed if they do not
 * within the bound.
 */
class BudgetLedgerTopicITCase {
    private static EmbeddedKafka kafka;
    private static Properties client;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start();
        client = KafkaIo.clientProperties(kafka.bootstrapServers(), new Properties());
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    private static String topic(String name) {
        String t = "ledger-" + name;
        KafkaIo.createTopics(client, List.of(t), 2, Map.of(t, Map.of("cleanup.policy", "compact")));
        return t;
    }

    private static BudgetRecord rec(String run, double a) {
        return new BudgetRecord(
                "D",
                run,
                true,
                "gnmax",
                new double[] {2, 8},
                new double[] {a, 4 * a},
                0,
                1e-6,
                10,
                10,
                a,
                1,
                new double[0]);
    }

    private static TeacherSpend teacher(long id, long charges) {
        return new TeacherSpend("D", id, "plan", charges, 0, 1, 1.0, 1e-6, false, "r0", 1);
    }

    private static KafkaProducer<byte[], byte[]> producer(String transactionalId) {
        Properties p = new Properties();
        p.putAll(client);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "120000");
        KafkaProducer<byte[], byte[]> prod =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        prod.initTransactions();
        return prod;
    }

    private static void send(KafkaProducer<byte[], byte[]> prod, String topic, BudgetRecord r) {
        prod.send(new ProducerRecord<>(topic, bytes(r.key()), BudgetLedgerWire.encode(r)));
        prod.flush();
    }

    private static void send(KafkaProducer<byte[], byte[]> prod, String topic, TeacherSpend t) {
        prod.send(new ProducerRecord<>(topic, bytes(t.key()), BudgetLedgerWire.encode(t)));
        prod.flush();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static List<String> runs(List<BudgetRecord> records) {
        return records.stream().map(BudgetRecord::runId).sorted().toList();
    }

    @Test
    void aLingeringTransactionFailsTheReaderClosed_andItsEndLetsItRead() throws Exception {
        String topic = topic("lingering");
        try (KafkaProducer<byte[], byte[]> earlier = producer("hotpate-earlier-0-1")) {
            earlier.beginTransaction();
            send(earlier, topic, rec("r1", 0.5));
            earlier.commitTransaction();
        }
        assertThat(runs(BudgetLedgerIo.readTopic(client, topic, Duration.ofSeconds(10))))
                .containsExactly("r1");

        // an earlier run's sink left a transaction open (never committed, never aborted)
        try (KafkaProducer<byte[], byte[]> lingering = producer("hotpate-crashed-0-7")) {
            lingering.beginTransaction();
            send(lingering, topic, rec("r2", 1.5));
            send(lingering, topic, teacher(3, 4));

            long t0 = System.nanoTime();
            assertThatThrownBy(() -> BudgetLedgerIo.readTopic(client, topic, Duration.ofSeconds(2)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(topic)
                    .hasMessageContaining("last stable offset")
                    .hasMessageContaining("high watermark")
                    .hasMessageContaining("open transaction")
                    .hasMessageContaining("transaction-timeout-ms");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0))
                    .isGreaterThanOrEqualTo(2000);
            assertThatThrownBy(
                            () ->
                                    BudgetLedgerIo.readTeachersTopic(
                                            client, topic, Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("last stable offset");

            // the transaction commits while a reader waits: the reader sees it, no error
            CompletableFuture<Void> commit =
                    CompletableFuture.runAsync(
                            () -> {
                                try {
                                    Thread.sleep(1000);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                                lingering.commitTransaction();
                            });
            List<BudgetRecord> after =
                    BudgetLedgerIo.readTopic(client, topic, Duration.ofSeconds(30));
            commit.get(30, TimeUnit.SECONDS);
            assertThat(runs(after)).containsExactly("r1", "r2");
            assertThat(BudgetLedgerIo.readTeachersTopic(client, topic, Duration.ofSeconds(10)))
                    .singleElement()
                    .satisfies(t -> assertThat(t.charges()).isEqualTo(4));
        }
    }

    @Test
    void anAbortedLeftoverNoLongerStopsTheReader() throws Exception {
        String topic = topic("aborted");
        try (KafkaProducer<byte[], byte[]> earlier = producer("hotpate-e2-0-1")) {
            earlier.beginTransaction();
            send(earlier, topic, rec("r1", 0.5));
            earlier.commitTransaction();
        }
        KafkaProducer<byte[], byte[]> lingering = producer("hotpate-c2-0-1");
        lingering.beginTransaction();
        send(lingering, topic, rec("r2", 1.5));
        assertThatThrownBy(() -> BudgetLedgerIo.readTopic(client, topic, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("last stable offset");
        // fencing the leftover (a producer initialising the same transactional id) aborts it
        try (KafkaProducer<byte[], byte[]> fence = producer("hotpate-c2-0-1")) {
            assertThat(runs(BudgetLedgerIo.readTopic(client, topic, Duration.ofSeconds(10))))
                    .containsExactly("r1");
        } finally {
            lingering.close(Duration.ZERO);
        }
    }

    /**
     * A run that ended without committing (a cancelled job, a killed driver) leaves its sink's
     * transactions open; the next run on the dataset aborts those of that run id only, and the
     * readers go on at once instead of after the broker's transaction timeout.
     */
    @Test
    void abortingAnEndedRunsOpenTransactionsFreesTheReaderAndLeavesOtherRunsAlone()
            throws Exception {
        String topic = topic("ended");
        KafkaProducer<byte[], byte[]> ended0 = producer("hotpate-ended-7f-0-12");
        KafkaProducer<byte[], byte[]> ended1 = producer("hotpate-ended-7f-1-12");
        KafkaProducer<byte[], byte[]> other = producer("hotpate-ended-7f0-0-3");
        try {
            ended0.beginTransaction();
            send(ended0, topic, rec("r3", 1.0));
            ended1.beginTransaction();
            send(ended1, topic, rec("r3", 1.0));
            assertThatThrownBy(() -> BudgetLedgerIo.readTopic(client, topic, Duration.ofSeconds(1)))
                    .hasMessageContaining("last stable offset");

            assertThat(KafkaIo.abortOpenTransactions(client, "hotpate-ended-7f-"))
                    .containsExactly("hotpate-ended-7f-0-12", "hotpate-ended-7f-1-12");
            assertThat(runs(BudgetLedgerIo.readTopic(client, topic, Duration.ofSeconds(10))))
                    .as("the aborted releases never become visible")
                    .isEmpty();

            // another run's transaction (its id only shares a prefix without the dash) stays open
            other.beginTransaction();
            send(other, topic, rec("r4", 2.0));
            assertThat(KafkaIo.abortOpenTransactions(client, "hotpate-ended-7f-")).isEmpty();
            other.commitTransaction();
            assertThat(runs(BudgetLedgerIo.readTopic(client, topic, Duration.ofSeconds(10))))
                    .containsExactly("r4");
        } finally {
            ended0.close(Duration.ZERO);
            ended1.close(Duration.ZERO);
            other.close(Duration.ZERO);
        }
    }

    /**
     * The driver's write-ahead of a population prior (issue 39 item 1) on a real broker: the entry
     * written outside any transaction ({@link BudgetLedgerIo#writeTopic}) is read back at once with
     * its η, and the job's later transactional version of the same account (the prior plus its
     * releases) supersedes it by the larger value, so the prior counts once.
     */
    @Test
    void theDriversPriorEntryIsReadBackAndMergesWithTheJobsOnce() throws Exception {
        String topic = topic("prior");
        BudgetRecord prior = rec("r5", 0.5);
        prior =
                new BudgetRecord(
                        prior.dataset(),
                        prior.runId(),
                        true,
                        "gnmax",
                        prior.orders(),
                        prior.rdp(),
                        0,
                        1e-6,
                        0,
                        0,
                        0.5,
                        1,
                        new double[0],
                        3e-9);
        BudgetLedgerIo.writeTopic(client, topic, prior, Duration.ofSeconds(30));
        List<BudgetRecord> read = BudgetLedgerIo.readTopic(client, topic, Duration.ofSeconds(10));
        assertThat(read).hasSize(1);
        assertThat(read.get(0).priorSlack()).isEqualTo(3e-9);
        assertThat(read.get(0).rdp()).containsExactly(0.5, 2.0);

        BudgetRecord job = rec("r5", 0.8); // the accountant's entry: the prior and its releases
        job =
                new BudgetRecord(
                        job.dataset(),
                        job.runId(),
                        true,
                        "gnmax",
                        job.orders(),
                        job.rdp(),
                        0,
                        1e-6,
                        10,
                        10,
                        0.8,
                        2,
                        new double[0],
                        3e-9);
        KafkaProducer<byte[], byte[]> p = producer("hotpate-prior-0-1");
        try {
            p.beginTransaction();
            send(p, topic, job);
            p.commitTransaction();
        } finally {
            p.close(Duration.ZERO);
        }
        read = BudgetLedgerIo.readTopic(client, topic, Duration.ofSeconds(10));
        assertThat(read).hasSize(1);
        assertThat(read.get(0).rdp()).containsExactly(0.8, 3.2);
        assertThat(read.get(0).priorSlack()).isEqualTo(3e-9);
    }
}
