package org.hotpate.io;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.model.KafkaOut;
import org.hotpate.model.RawRecord;

/**
 * Kafka sources and the sink of the job, and topic creation. Sources read raw bytes ({@link
 * RawRecord}) with {@code isolation.level=read_committed} so undecodable input can be dead-lettered
 * by the job; the sink is exactly-once (Kafka transactions committed on checkpoint) with a
 * transaction timeout below the broker's maximum.
 */
public final class KafkaIo {
    private KafkaIo() {}

    /**
     * Fetch batching of the job's streaming sources: the broker answers a fetch once 64 KiB are
     * ready or 20 ms have passed. With Kafka's default (answer as soon as one byte is there) a
     * source keeping up with a stream of small records sends a fetch per few records, and the
     * broker's and the fetcher's per-request work dominates (docs/performance.md). 20 ms is small
     * next to the checkpoint interval that bounds result latency anyway.
     */
    public static Properties sourceFetchProperties() {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, Integer.toString(64 * 1024));
        p.setProperty(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "20");
        return p;
    }

    /** A read_committed source of raw records from {@code topic}, from {@code startMs} on. */
    public static KafkaSource<RawRecord> rawSource(
            String bootstrap, String topic, String groupId, long startMs) {
        return rawSource(bootstrap, topic, groupId, startMs, new Properties());
    }

    /**
     * As above, with extra client properties (security: {@code security.protocol}, {@code
     * sasl.mechanism}, {@code sasl.jaas.config}).
     */
    public static KafkaSource<RawRecord> rawSource(
            String bootstrap, String topic, String groupId, long startMs, Properties client) {
        return KafkaSource.<RawRecord>builder()
                .setBootstrapServers(bootstrap)
                .setTopics(topic)
                .setGroupId(groupId)
                .setStartingOffsets(OffsetsInitializer.timestamp(startMs))
                .setDeserializer(new RawDeserializer())
                .setProperties(sourceFetchProperties())
                .setProperties(security(client))
                .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .setProperty("partition.discovery.interval.ms", "10000")
                .build();
    }

    /** The record header that names the file a private record was loaded from. */
    public static final String SOURCE_HEADER = "hotpate.source";

    /**
     * A bounded read_committed source of {@code topic} from the earliest offsets up to exactly
     * {@code stopOffsets} (captured by the driver before the job starts: a later produce is not
     * read); with {@code sourceId} non-null only records whose {@link #SOURCE_HEADER} equals it.
     */
    public static KafkaSource<RawRecord> boundedSource(
            String bootstrap,
            String topic,
            String groupId,
            Map<TopicPartition, Long> stopOffsets,
            String sourceId) {
        return KafkaSource.<RawRecord>builder()
                .setBootstrapServers(bootstrap)
                .setTopics(topic)
                .setGroupId(groupId)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.offsets(stopOffsets))
                .setDeserializer(new RawDeserializer(sourceId))
                .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .build();
    }

    /** The value of the {@link #SOURCE_HEADER} of a record, or null. */
    public static String sourceOf(ConsumerRecord<?, ?> r) {
        Header h = r.headers().lastHeader(SOURCE_HEADER);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** The job's single exactly-once sink: each {@link KafkaOut} names its topic. */
    public static KafkaSink<KafkaOut> exactlyOnceSink(
            String bootstrap, String transactionalIdPrefix, long txTimeoutMs) {
        return exactlyOnceSink(bootstrap, transactionalIdPrefix, txTimeoutMs, new Properties());
    }

    /** As above, with extra client (security) properties. */
    public static KafkaSink<KafkaOut> exactlyOnceSink(
            String bootstrap, String transactionalIdPrefix, long txTimeoutMs, Properties client) {
        Properties p = security(client);
        p.setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(txTimeoutMs));
        p.setProperty(ProducerConfig.LINGER_MS_CONFIG, "5");
        return KafkaSink.<KafkaOut>builder()
                .setBootstrapServers(bootstrap)
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(transactionalIdPrefix)
                .setKafkaProducerConfig(p)
                .setRecordSerializer(new OutSerializer())
                .build();
    }

    /** The security subset of client properties (copied; bootstrap and the rest are set here). */
    private static Properties security(Properties client) {
        Properties p = new Properties();
        for (String k : client.stringPropertyNames()) {
            if (k.startsWith("security.") || k.startsWith("sasl.") || k.startsWith("ssl.")) {
                p.setProperty(k, client.getProperty(k));
            }
        }
        return p;
    }

    /**
     * SASL client settings: {@code security.protocol}, {@code sasl.mechanism} and the JAAS login of
     * {@code user} (SCRAM-SHA-256/512 or PLAIN). The password ends up in the properties — and so in
     * a job graph built with them: treat both as secrets (docs/threat-model.md).
     */
    public static Properties saslProperties(
            String protocol, String mechanism, String user, String password) {
        Properties p = new Properties();
        p.put("security.protocol", protocol);
        p.put("sasl.mechanism", mechanism);
        p.put("sasl.jaas.config", jaasConfig(mechanism, user, password));
        return p;
    }

    /** The JAAS login line of a SASL client. */
    public static String jaasConfig(String mechanism, String user, String password) {
        String module =
                mechanism.equals("PLAIN")
                        ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                        : "org.apache.kafka.common.security.scram.ScramLoginModule";
        return module
                + " required username="
                + jaasQuote(user)
                + " password="
                + jaasQuote(password)
                + ";";
    }

    /** A JAAS option value in double quotes (backslash and quote escaped). */
    public static String jaasQuote(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    /** Client properties: bootstrap servers plus the security subset of {@code client}. */
    public static Properties clientProperties(String bootstrap, Properties client) {
        Properties p = security(client);
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return p;
    }

    /** Creates the topics that do not exist yet (KafkaSource fails on unknown topics). */
    public static void createTopics(String bootstrap, List<String> topics, int partitions) {
        createTopics(clientProperties(bootstrap, new Properties()), topics, partitions, Map.of());
    }

    /**
     * Creates the topics that do not exist yet; {@code configs} holds per-topic settings (e.g.
     * {@code cleanup.policy=compact} for the budget ledger). Existing topics are kept as they are.
     */
    public static void createTopics(
            Properties client,
            List<String> topics,
            int partitions,
            Map<String, Map<String, String>> configs) {
        try (Admin admin = Admin.create(client)) {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = new ArrayList<>();
            for (String t : topics) {
                if (!existing.contains(t) && missing.stream().noneMatch(m -> m.name().equals(t))) {
                    missing.add(
                            new NewTopic(t, partitions, (short) 1)
                                    .configs(configs.getOrDefault(t, Map.of())));
                }
            }
            if (!missing.isEmpty()) {
                try {
                    admin.createTopics(missing).all().get();
                } catch (ExecutionException e) {
                    if (!(e.getCause()
                            instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                        throw e;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "creating topics " + topics + " failed: " + e.getCause(), e.getCause());
        }
    }

    /**
     * Aborts the transactions still open under transactional ids starting with {@code prefix} (the
     * exactly-once sink of an earlier run that is known to have ended: {@code hotpate-<runId>-})
     * and returns their ids. A Flink Kafka sink does not abort on cancel or on a killed process,
     * and a new run's ids never fence an old run's, so such a transaction holds every
     * read_committed reader of its partitions at the last stable offset until the broker aborts it
     * after that producer's {@code transaction.timeout.ms} (minutes): the next run on the same
     * topics would see nothing meanwhile. Opening a producer under the same id ({@code
     * initTransactions}) bumps its epoch and aborts the open transaction at once — what the broker
     * would do at the timeout, never a commit, so nothing unreleased becomes visible. Only for a
     * run that cannot commit again (its job ended): a restored job commits its checkpoint's
     * pre-committed transactions, which this would lose.
     */
    public static List<String> abortOpenTransactions(Properties client, String prefix) {
        List<String> ids = new ArrayList<>();
        try (Admin admin = Admin.create(client)) {
            for (TransactionListing t :
                    admin.listTransactions(
                                    new ListTransactionsOptions()
                                            .filterStates(List.of(TransactionState.ONGOING)))
                            .all()
                            .get()) {
                if (t.transactionalId().startsWith(prefix)) {
                    ids.add(t.transactionalId());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while listing transactions", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "listing the open transactions failed: " + e.getCause(), e.getCause());
        }
        ids.sort(null);
        for (String id : ids) {
            Properties p = new Properties();
            p.putAll(client);
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
            try (KafkaProducer<byte[], byte[]> fence =
                    new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                fence.initTransactions(); // aborts the previous epoch's open transaction
            }
        }
        return ids;
    }

    static final class RawDeserializer implements KafkaRecordDeserializationSchema<RawRecord> {
        private static final long serialVersionUID = 1L;
        private final String sourceId; // null: every record

        RawDeserializer() {
            this(null);
        }

        RawDeserializer(String sourceId) {
            this.sourceId = sourceId;
        }

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> r, Collector<RawRecord> out) {
            if (sourceId != null && !sourceId.equals(sourceOf(r))) {
                return; // another file's records on the shared topic
            }
            out.collect(
                    new RawRecord(
                            r.topic(),
                            r.partition(),
                            r.offset(),
                            r.key(),
                            r.value() == null ? new byte[0] : r.value()));
        }

        @Override
        public TypeInformation<RawRecord> getProducedType() {
            return Types.POJO(RawRecord.class);
        }
    }

    static final class OutSerializer implements KafkaRecordSerializationSchema<KafkaOut> {
        private static final long serialVersionUID = 1L;

        @Override
        public ProducerRecord<byte[], byte[]> serialize(
                KafkaOut o, KafkaSinkContext ctx, Long timestamp) {
            return new ProducerRecord<>(
                    o.topic(), null, System.currentTimeMillis(), o.key(), o.value());
        }
    }
}
