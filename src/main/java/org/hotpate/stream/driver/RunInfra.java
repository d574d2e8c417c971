package org.hotpate.stream.driver;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.stream.HotPateJob;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobOptions;

/**
 * The run driver's infrastructure ({@link RunSession}): run ids, topic end offsets, the job's end
 * and cancel, the MiniCluster's temp files.
 */
final class RunInfra {
    private RunInfra() {}

    static String newRunId(String name, ZonedDateTime nowUtc) {
        byte[] random = new byte[16];
        RUN_ID_RANDOM.nextBytes(random);
        return name
                + "-"
                + nowUtc.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + "-"
                + HexFormat.of().formatHex(random);
    }

    private static final SecureRandom RUN_ID_RANDOM = new SecureRandom();

    static long endOffsets(Properties client, String topic) {
        try (Admin admin = Admin.create(client)) {
            Set<TopicPartition> parts = new HashSet<>();
            admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get()
                    .get(topic)
                    .partitions()
                    .forEach(pi -> parts.add(new TopicPartition(topic, pi.partition())));
            Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            parts.forEach(tp -> q.put(tp, OffsetSpec.latest()));
            return admin.listOffsets(q).all().get().values().stream()
                    .mapToLong(o -> o.offset())
                    .sum();
        } catch (Exception e) {
            return 0;
        }
    }

    /** Whether the job reached a terminal state within a few seconds (a cancel takes a moment). */
    static boolean jobEnded(JobClient job) {
        long deadline = System.currentTimeMillis() + 15_000;
        while (System.currentTimeMillis() < deadline) {
            try {
                if (job.getJobStatus()
                        .get(5, java.util.concurrent.TimeUnit.SECONDS)
                        .isGloballyTerminalState()) {
                    return true;
                }
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (Exception e) {
                return false; // unknown: the hold stays on the job (fail closed)
            }
        }
        return false;
    }

    static void cancelJob(JobClient job) {
        if (job != null) {
            try {
                if (!job.getJobStatus().get().isGloballyTerminalState()) {
                    job.cancel().get();
                }
            } catch (Exception ignored) {
                // already gone
            }
        }
    }

    /**
     * The id the run's job will have: the cluster's fixed job id (an application cluster with HA
     * fixes it), else a new one fixed on {@code env} now — so that the dataset's hold names the job
     * before it is submitted (issue 39 item 3).
     */
    static String fixJobId(StreamExecutionEnvironment env) {
        return env.getConfiguration()
                .getOptional(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID)
                .orElseGet(
                        () -> {
                            String id = new org.apache.flink.api.common.JobID().toHexString();
                            Configuration c = new Configuration();
                            c.set(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID, id);
                            env.configure(c);
                            return id;
                        });
    }

    /** The Flink environment of a run: a MiniCluster ({@code flinkTmp} its temp dir) or remote. */
    static StreamExecutionEnvironment environment(
            JobConfig cfg, String checkpoints, Path flinkTmp, String savepoint) {
        Configuration conf =
                HotPateJob.flinkConfiguration(
                        cfg, checkpoints, flinkTmp == null ? null : flinkTmp.toString());
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        if (cfg.flink().embedded()) {
            return StreamExecutionEnvironment.createLocalEnvironment(
                    cfg.flink().parallelism(), conf);
        }
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment(
                        cfg.flink().host(), cfg.flink().port(), conf, cfg.flink().jar());
        env.setParallelism(cfg.flink().parallelism());
        return env;
    }

    /** The run's broker: an embedded one (SASL/SCRAM when the spec asks for it), or the spec's. */
    record Broker(EmbeddedKafka embedded, String bootstrap, UnaryOperator<String> secrets) {}

    static Broker broker(JobConfig cfg, UnaryOperator<String> secrets) {
        if (!cfg.kafka().embedded()) {
            return new Broker(null, cfg.kafka().bootstrap(), secrets);
        }
        if (cfg.kafka().security().sasl()) {
            EmbeddedKafka kafka = EmbeddedKafka.startSecured();
            return new Broker(
                    kafka,
                    kafka.bootstrapServers(),
                    KafkaClients.embeddedPrincipals(cfg, kafka, secrets));
        }
        EmbeddedKafka kafka = EmbeddedKafka.startOnPort(cfg.get(JobOptions.KAFKA_EMBEDDED_PORT));
        return new Broker(kafka, kafka.bootstrapServers(), secrets);
    }

    /** Where the run's checkpoints go: {@code flink.state-dir}, else {@code <out>/checkpoints}. */
    static String checkpointDir(JobConfig cfg, java.nio.file.Path outputDir) {
        return cfg.flink()
                .stateDir()
                .orElseGet(
                        () -> outputDir.resolve("checkpoints").toAbsolutePath().toUri().toString());
    }

    /**
     * Stops {@code job} with a savepoint in {@code targetDir} within {@code timeout} and returns
     * its path; while Flink declines the savepoint only for now ({@link #declinedForNow}: tasks
     * still starting, a bounded source closing) it tries again every second instead of failing (a
     * stop right after a resume otherwise cancelled the job).
     */
    static String stopWithSavepoint(
            org.apache.flink.core.execution.JobClient job, String targetDir, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return job.stopWithSavepoint(
                                false,
                                targetDir,
                                org.apache.flink.core.execution.SavepointFormatType.CANONICAL)
                        .get(
                                Math.max(1, deadline - System.nanoTime()),
                                java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!declinedForNow(e) || System.nanoTime() + 1_000_000_000L > deadline) {
                    throw e;
                }
                Thread.sleep(1000);
            }
        }
    }

    /**
     * The reasons Flink declines a savepoint only for now: a job just submitted or restored has
     * tasks not running yet, or not ready, or closing (a bounded source finishing its part) — a
     * later try succeeds.
     */
    private static final java.util.EnumSet<
                    org.apache.flink.runtime.checkpoint.CheckpointFailureReason>
            DECLINED_FOR_NOW =
                    java.util.EnumSet.of(
                            org.apache.flink.runtime.checkpoint.CheckpointFailureReason
                                    .NOT_ALL_REQUIRED_TASKS_RUNNING,
                            org.apache.flink.runtime.checkpoint.CheckpointFailureReason
                                    .CHECKPOINT_DECLINED_TASK_NOT_READY,
                            org.apache.flink.runtime.checkpoint.CheckpointFailureReason
                                    .CHECKPOINT_DECLINED_TASK_CLOSING);

    /**
     * Whether a failed stop-with-savepoint was declined only for now ({@link #DECLINED_FOR_NOW}).
     * Read from the cause chain, by the reason or — across the REST client, which may hand back a
     * {@code SerializedThrowable} — by the reason's message.
     */
    static boolean declinedForNow(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof org.apache.flink.runtime.checkpoint.CheckpointException c
                    && DECLINED_FOR_NOW.contains(c.getCheckpointFailureReason())) {
                return true;
            }
            String m = t.getMessage();
            if (m != null && DECLINED_FOR_NOW.stream().anyMatch(r -> m.contains(r.message()))) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
