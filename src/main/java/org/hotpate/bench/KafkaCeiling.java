package org.hotpate.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.hotpate.io.KafkaIo;
import org.hotpate.stream.driver.TeacherWorker;

/**
 * The raw Kafka ceiling of a payload: the records the teacher worker sends (the same bytes and
 * keys), produced and consumed concurrently on the same broker with the pipeline's client settings,
 * no Flink. One producer thread with the worker's producer settings ({@link
 * TeacherWorker#producerProperties}) sends as fast as the client accepts; one consumer per source
 * subtask of the job (its parallelism; partitions assigned round-robin as the Kafka source's
 * enumerator does) reads with the job's source settings ({@code isolation.level=read_committed}, no
 * auto-commit, byte-array deserializers) and only counts. The ceiling is the consumed rate in the
 * steady window ({@link BenchStats#steadyWindow} over 250 ms samples, warm-up excluded).
 */
public final class KafkaCeiling {
    private KafkaCeiling() {}

    /** The ceiling: consumed records/s and MB/s in the window, and the record size. */
    public record Result(
            double recordsPerS,
            double megabytesPerS,
            double meanRecordBytes,
            BenchStats.Window window,
            long produced,
            long consumed,
            Map<String, Double> cores) {}

    /**
     * Runs the ceiling on {@code topic} (created with {@code partitions}, deleted afterwards) for
     * at least {@code warmupS} (and until the JIT compilers are nearly idle, at most {@code
     * jitWaitS} longer) plus {@code measureS} seconds; {@code producerOverrides} change the
     * worker's producer settings (empty: exactly the worker's).
     */
    public static Result run(
            String bootstrap,
            String topic,
            int partitions,
            int consumers,
            byte[][][] records,
            double warmupS,
            double jitWaitS,
            double measureS,
            Map<String, String> producerOverrides,
            PrintStream progress)
            throws Exception {
        Properties producerProps = TeacherWorker.producerProperties(bootstrap);
        producerProps.putAll(producerOverrides);
        KafkaIo.createTopics(bootstrap, List.of(topic), partitions);
        long totalBytes = 0;
        for (byte[][] r : records) {
            totalBytes += r[1].length;
        }
        double meanBytes = totalBytes / (double) records.length;
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong produced = new AtomicLong();
        AtomicLong consumed = new AtomicLong();
        AtomicLong consumedBytes = new AtomicLong();
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<KafkaConsumer<byte[], byte[]>> open = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();

        Thread producer =
                new Thread(
                        () -> {
                            try (KafkaProducer<byte[], byte[]> p =
                                    new KafkaProducer<>(
                                            producerProps,
                                            new ByteArraySerializer(),
                                            new ByteArraySerializer())) {
                                int i = 0;
                                while (running.get()) {
                                    byte[][] r = records[i];
                                    i = i + 1 == records.length ? 0 : i + 1;
                                    p.send(
                                            new ProducerRecord<>(topic, r[0], r[1]),
                                            (md, e) -> {
                                                if (e != null) {
                                                    failure.compareAndSet(null, e);
                                                }
                                            });
                                    produced.incrementAndGet();
                                }
                            } catch (Exception e) {
                                failure.compareAndSet(null, e);
                            }
                        },
                        "bench-ceiling-producer");
        int readers = Math.max(1, Math.min(consumers, partitions));
        for (int c = 0; c < readers; c++) {
            List<TopicPartition> mine = new ArrayList<>();
            for (int p = c; p < partitions; p += readers) {
                mine.add(new TopicPartition(topic, p));
            }
            KafkaConsumer<byte[], byte[]> consumer =
                    new KafkaConsumer<>(
                            consumerProperties(bootstrap),
                            new ByteArrayDeserializer(),
                            new ByteArrayDeserializer());
            open.add(consumer);
            threads.add(
                    new Thread(
                            () -> {
                                try {
                                    consumer.assign(mine);
                                    consumer.seekToBeginning(mine);
                                    while (running.get()) {
                                        long bytes = 0;
                                        int n = 0;
                                        for (ConsumerRecord<byte[], byte[]> r :
                                                consumer.poll(Duration.ofMillis(100))) {
                                            bytes += r.serializedValueSize();
                                            n++;
                                        }
                                        consumed.addAndGet(n);
                                        consumedBytes.addAndGet(bytes);
                                    }
                                } catch (WakeupException e) {
                                    // stopping
                                } catch (Exception e) {
                                    failure.compareAndSet(null, e);
                                } finally {
                                    consumer.close(Duration.ofSeconds(2));
                                }
                            },
                            "bench-ceiling-consumer-" + c));
        }
        List<double[]> samples = new ArrayList<>();
        ThreadCpu.Snapshot cpuA = null;
        ThreadCpu.Snapshot cpuB = null;
        ThreadCpu.JitWatch jit = new ThreadCpu.JitWatch(2);
        double warmEnd = -1;
        long t0 = System.nanoTime();
        try {
            threads.forEach(Thread::start);
            producer.start();
            double lastPrint = 0;
            while (true) {
                Thread.sleep(250);
                double t = (System.nanoTime() - t0) / 1e9;
                samples.add(new double[] {t, consumed.get(), consumedBytes.get()});
                if (failure.get() != null) {
                    throw new IllegalStateException(
                            "the Kafka ceiling failed: " + failure.get(), failure.get());
                }
                double jitCores = jit.sample(t);
                if (progress != null && t - lastPrint >= 2) {
                    progress.printf(
                            "  ceiling %5.1f s%s: produced %,d consumed %,d | JIT %.2f cores%n",
                            t,
                            warmEnd < 0 ? " (warm-up)" : "",
                            produced.get(),
                            consumed.get(),
                            jitCores);
                    lastPrint = t;
                }
                if (warmEnd < 0
                        && t >= warmupS
                        && (jitCores < ThreadCpu.JIT_QUIET_CORES || t >= warmupS + jitWaitS)) {
                    warmEnd = t;
                    cpuA = ThreadCpu.snapshot();
                }
                if (warmEnd >= 0 && t >= warmEnd + measureS) {
                    cpuB = ThreadCpu.snapshot();
                    break;
                }
            }
        } finally {
            running.set(false);
            producer.join(30_000);
            for (KafkaConsumer<byte[], byte[]> c : open) {
                c.wakeup();
            }
            for (Thread th : threads) {
                th.join(10_000);
            }
            deleteTopic(bootstrap, topic);
        }
        double[] t = new double[samples.size()];
        double[] c = new double[samples.size()];
        double[] b = new double[samples.size()];
        for (int i = 0; i < t.length; i++) {
            t[i] = samples.get(i)[0];
            c[i] = samples.get(i)[1];
            b[i] = samples.get(i)[2];
        }
        BenchStats.Window w =
                BenchStats.steadyWindow(
                        t, c, warmEnd, measureS / 2, BenchStats.BLOCKS, BenchStats.TOLERANCE);
        double mbPerS =
                (BenchStats.at(t, b, w.endS()) - BenchStats.at(t, b, w.startS()))
                        / w.lengthS()
                        / 1e6;
        return new Result(
                w.rate(),
                mbPerS,
                meanBytes,
                w,
                produced.get(),
                consumed.get(),
                cpuA == null || cpuB == null ? Map.of() : ThreadCpu.cores(cpuA, cpuB));
    }

    /** The job's source consumer settings (KafkaIo.rawSource; the Kafka source adds the rest). */
    static Properties consumerProperties(String bootstrap) {
        Properties p = KafkaIo.sourceFetchProperties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return p;
    }

    private static void deleteTopic(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            admin.deleteTopics(List.of(topic)).all().get();
        } catch (Exception ignored) {
            // best effort: the broker's log dir is deleted with the broker
        }
    }
}
