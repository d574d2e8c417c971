package org.hotpate.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.apache.flink.api.common.JobStatus;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.Topic;
import org.hotpate.stream.driver.RunSession;
import org.hotpate.stream.driver.TeacherWorker;
import org.hotpate.teachers.TeacherAnswers;

/**
 * One steady-state run of the whole pipeline, driven only through public interfaces: a job spec
 * ({@link BenchWorkload#config}) started with {@link RunSession} on a given broker, the {@link
 * TeacherWorker} answering every step for all n teachers, and read_committed readers of the topics.
 *
 * <p>Every second it samples: the job's committed source offsets on the {@code distributions} topic
 * (the Kafka source commits them at each completed checkpoint; found by listing the broker's
 * consumer groups, so whatever the job names its group), Σ votesCast of the results visible to a
 * read_committed reader, and the worker's sent count. Warm-up lasts at least {@code warmupS} and
 * until the first result is visible; the measured window is then the steady window ({@link
 * BenchStats#steadyWindow}: the longest tail whose four quarters each run within ±25% of its mean
 * rate) of the consumed-offsets series within the next {@code measureS} seconds.
 */
final class PipelineRun {
    /** What a run measured. Rates are per second; latencies in ms. */
    record Result(
            String workload,
            BenchWorkload.Shape shape,
            BenchStats.Window window,
            double consumedPerS,
            double aggregatedPerS,
            double producedPerS,
            String consumedSource,
            int steps,
            int partialSteps,
            int resultsTotal,
            double latencyP50,
            double latencyP99,
            double issuedToClosedP50,
            double closedToVisibleP50,
            double warmupS,
            double sessionStartS,
            double firstResultS,
            Map<String, Double> cores,
            CheckpointSizes.Sizes state) {}

    /**
     * What one run starts: the job's config and, for an external ensemble, how the {@link
     * TeacherWorker} answers ({@code null}: the teachers are built inside the job from records).
     */
    record Job(String name, JobConfig cfg, TeacherAnswers answers) {
        static Job simulated(BenchWorkload w, BenchWorkload.Shape shape, Path workDir) {
            String tag = w.cliName() + "-n" + shape.teachers() + "-" + System.nanoTime() % 100000;
            return new Job(
                    w.cliName(),
                    w.config(tag, shape, workDir.toAbsolutePath().toString()),
                    w.answers());
        }

        static Job records(
                RecordsWorkload w,
                RecordsWorkload.Users users,
                BenchWorkload.Shape shape,
                Path workDir) {
            String tag = "records-n" + shape.teachers() + "-" + System.nanoTime() % 100000;
            return new Job(
                    RecordsWorkload.CLI_NAME,
                    w.config(tag, shape, users.file(), workDir.toAbsolutePath().toString()),
                    null);
        }

        boolean teachersInJob() {
            return answers == null;
        }
    }

    private PipelineRun() {}

    /**
     * The default concurrency: about 2.2·10⁵ distributions in flight, 2..64 sequences. Steps become
     * visible to teachers at checkpoints, so a run moves about this many per checkpoint interval;
     * at n = 10⁴ (22 sequences) this machine then runs near 1.6 of its 2 cores with step p99 about
     * two intervals (docs/performance.md, "Fifth session").
     */
    static int defaultConcurrency(int teachers) {
        return (int) Math.max(2, Math.min(64, Math.ceil(220_000.0 / teachers)));
    }

    static Result run(
            String bootstrap,
            Job job,
            BenchWorkload.Shape shape,
            double warmupS,
            double jitWaitS,
            double measureS,
            Path workDir,
            Path jfr,
            PrintStream err)
            throws Exception {
        JobConfig cfg = job.cfg();
        String distributions = cfg.kafka().topics().name(Topic.DISTRIBUTIONS);
        long begin = System.currentTimeMillis();
        RunSession session = RunSession.start(cfg, bootstrap);
        double sessionStartS = (System.currentTimeMillis() - begin) / 1000.0;
        TeacherWorker worker = null;
        Thread workerThread = null;
        ResultProbe probe = null;
        Thread probeThread = null;
        Recording recording = null;
        JfrSummary.WindowEvent window = null;
        // Starting JFR instruments JDK classes and deoptimises what inlined them (a JIT storm of
        // several seconds): a first recording absorbs that during warm-up; the one kept starts with
        // the window.
        Recording warmupRecording = null;
        if (jfr != null) {
            warmupRecording = new Recording(Configuration.getConfiguration("profile"));
            warmupRecording.start();
        }
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            if (!job.teachersInJob()) {
                worker =
                        new TeacherWorker(
                                TeacherWorker.settings(
                                        cfg, bootstrap, session.runId(), 0, shape.teachers()),
                                job.answers());
                workerThread = new Thread(worker, "bench-teacher-worker");
                workerThread.start();
            }
            probe =
                    new ResultProbe(
                            bootstrap,
                            cfg.kafka().topics().name(Topic.STEPS),
                            cfg.kafka().topics().name(Topic.LEDGER),
                            session.runId(),
                            shape.teachers());
            probeThread = new Thread(probe, "bench-result-probe");
            probeThread.start();
            err.printf(
                    "pipeline %s: n = %,d teachers, %d sequences in flight, checkpoints every %d"
                            + " ms, parallelism %d (run %s)%n",
                    job.name(),
                    shape.teachers(),
                    shape.concurrency(),
                    shape.checkpointMs(),
                    shape.parallelism(),
                    session.runId());

            List<double[]> samples = new ArrayList<>(); // t, consumed, votes, produced
            Set<String> groups = new HashSet<>();
            long t0 = System.currentTimeMillis();
            double warmEnd = -1;
            // Records teachers are built inside the job before the first step is answered: their
            // load gets an hour (the 13,494-user run took 187 s; progress lines show it going).
            double maxWarmup = Math.max(job.teachersInJob() ? 3600 : 300, 3 * warmupS) + jitWaitS;
            double firstResult = Double.NaN;
            ThreadCpu.JitWatch jit = new ThreadCpu.JitWatch(5);
            double jitCores = Double.POSITIVE_INFINITY;
            ThreadCpu.Snapshot cpuA = null;
            double lastPrint = -10;
            while (true) {
                Thread.sleep(1000);
                double t = (System.currentTimeMillis() - t0) / 1000.0;
                long consumed = committedOffsets(admin, distributions, groups);
                long votes = probe.votes();
                long sent = worker == null ? 0 : worker.distributionsSent();
                samples.add(new double[] {t, consumed, votes, sent});
                if (Double.isNaN(firstResult) && probe.results() > 0) {
                    firstResult = (System.currentTimeMillis() - begin) / 1000.0;
                }
                jitCores = jit.sample(t);
                if (probe.failure() != null) {
                    throw new IllegalStateException(
                            "reading the results failed: " + probe.failure(), probe.failure());
                }
                JobStatus st = session.job().getJobStatus().get(10, TimeUnit.SECONDS);
                if (st.isGloballyTerminalState()) {
                    throw new IllegalStateException("the Flink job ended early with status " + st);
                }
                if (workerThread != null && !workerThread.isAlive()) {
                    throw new IllegalStateException("the teacher worker stopped");
                }
                if (t - lastPrint >= 5) {
                    err.printf(
                            "  %5.0f s%s: sent %,d | job consumed %,d | results %,d (Σ votes %,d) |"
                                    + " JIT %.2f cores%n",
                            t,
                            warmEnd < 0 ? " (warm-up)" : "",
                            sent,
                            consumed,
                            probe.results(),
                            votes,
                            jitCores);
                    lastPrint = t;
                }
                boolean jitQuiet = jitCores < ThreadCpu.JIT_QUIET_CORES || t >= warmupS + jitWaitS;
                if (warmEnd < 0
                        && t >= warmupS
                        && probe.results() > 0
                        && (consumed > 0 || job.teachersInJob())
                        && jitQuiet) {
                    warmEnd = t;
                    cpuA = ThreadCpu.snapshot();
                    if (jfr != null) {
                        warmupRecording.stop();
                        warmupRecording.close();
                        warmupRecording = null;
                        recording = new Recording(Configuration.getConfiguration("profile"));
                        recording.setName("hotpate-bench");
                        recording.start();
                        window = new JfrSummary.WindowEvent();
                        window.payload = job.name();
                        window.begin();
                    }
                } else if (warmEnd < 0 && t > maxWarmup) {
                    throw new IllegalStateException(
                            "no committed result after "
                                    + (int) t
                                    + " s: the job does not advance");
                }
                if (warmEnd >= 0 && t >= warmEnd + measureS) {
                    break;
                }
            }
            ThreadCpu.Snapshot cpuB = ThreadCpu.snapshot();
            if (recording != null) {
                window.end();
                window.commit();
                recording.stop();
                recording.dump(jfr);
                err.println("  JFR recording of the window: " + jfr);
            }
            CheckpointSizes.Sizes state =
                    CheckpointSizes.latest(session.outputDir().resolve("checkpoints"))
                            .orElse(new CheckpointSizes.Sizes(-1, Map.of()));
            return summarize(
                    job.name(),
                    shape,
                    samples,
                    t0,
                    warmEnd,
                    measureS,
                    sessionStartS,
                    firstResult,
                    probe,
                    ThreadCpu.cores(cpuA, cpuB),
                    state);
        } finally {
            if (recording != null) {
                recording.close();
            }
            if (warmupRecording != null) {
                warmupRecording.close();
            }
            if (worker != null) {
                worker.close();
            }
            if (probe != null) {
                probe.close();
            }
            join(workerThread);
            join(probeThread);
            session.close();
            awaitTermination(session);
        }
    }

    private static Result summarize(
            String workload,
            BenchWorkload.Shape shape,
            List<double[]> samples,
            long t0,
            double warmEnd,
            double measureS,
            double sessionStartS,
            double firstResultS,
            ResultProbe probe,
            Map<String, Double> cores,
            CheckpointSizes.Sizes state) {
        double[] t = column(samples, 0);
        double[] consumed = column(samples, 1);
        double[] votes = column(samples, 2);
        double[] produced = column(samples, 3);
        boolean offsets = consumed[consumed.length - 1] > 0;
        double[] primary = offsets ? consumed : votes;
        BenchStats.Window w =
                BenchStats.steadyWindow(
                        t, primary, warmEnd, measureS / 2, BenchStats.BLOCKS, BenchStats.TOLERANCE);
        double aggregated = rate(t, votes, w);
        List<Double> latency = new ArrayList<>();
        List<Double> toClose = new ArrayList<>();
        List<Double> toVisible = new ArrayList<>();
        int steps = 0;
        int partial = 0;
        for (ResultProbe.Committed c : probe.committed()) {
            double s = (c.visibleAtMs() - t0) / 1000.0;
            if (!w.contains(s)) {
                continue;
            }
            steps++;
            if (c.votesCast() < c.teachers()) {
                partial++;
            }
            long issued = probe.issuedAt(c.stepKey());
            if (issued > 0) {
                latency.add((double) (c.visibleAtMs() - issued));
                toClose.add((double) (c.closedAtMs() - issued));
            }
            toVisible.add((double) (c.visibleAtMs() - c.closedAtMs()));
        }
        double[] lat = latency.stream().mapToDouble(Double::doubleValue).toArray();
        return new Result(
                workload,
                shape,
                w,
                w.rate(),
                aggregated,
                rate(t, produced, w),
                offsets ? "job source offsets" : "results (votesCast)",
                steps,
                partial,
                probe.results(),
                BenchStats.percentile(lat, 0.5),
                BenchStats.percentile(lat, 0.99),
                BenchStats.percentile(
                        toClose.stream().mapToDouble(Double::doubleValue).toArray(), 0.5),
                BenchStats.percentile(
                        toVisible.stream().mapToDouble(Double::doubleValue).toArray(), 0.5),
                warmEnd,
                sessionStartS,
                firstResultS,
                cores,
                state);
    }

    private static double rate(double[] t, double[] c, BenchStats.Window w) {
        return (BenchStats.at(t, c, w.endS()) - BenchStats.at(t, c, w.startS())) / w.lengthS();
    }

    private static double[] column(List<double[]> rows, int i) {
        return rows.stream().mapToDouble(r -> r[i]).toArray();
    }

    /**
     * Σ committed offsets on {@code topic} over the consumer groups that read it (the job's Kafka
     * source; the benchmark's own readers commit nothing). Groups found once are remembered.
     */
    static long committedOffsets(Admin admin, String topic, Set<String> groups) {
        try {
            if (groups.isEmpty()) {
                Collection<GroupListing> all = admin.listGroups().all().get(10, TimeUnit.SECONDS);
                for (GroupListing g : all) {
                    if (sum(admin, g.groupId(), topic) >= 0) {
                        groups.add(g.groupId());
                    }
                }
            }
            long total = 0;
            for (String g : groups) {
                total += Math.max(0, sum(admin, g, topic));
            }
            return total;
        } catch (Exception e) {
            return 0;
        }
    }

    /** Σ committed offsets of {@code group} on {@code topic}, or -1 if it has none there. */
    private static long sum(Admin admin, String group, String topic) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> m =
                admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata()
                        .get(10, TimeUnit.SECONDS);
        long total = -1;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : m.entrySet()) {
            if (e.getKey().topic().equals(topic) && e.getValue() != null) {
                total = Math.max(total, 0) + e.getValue().offset();
            }
        }
        return total;
    }

    private static void join(Thread t) throws InterruptedException {
        if (t != null) {
            t.join(10_000);
        }
    }

    /** Waits until the cancelled job is terminal (its MiniCluster then shuts down). */
    private static void awaitTermination(RunSession session) {
        if (session.job() == null) {
            return;
        }
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline) {
            try {
                if (session.job()
                        .getJobStatus()
                        .get(5, TimeUnit.SECONDS)
                        .isGloballyTerminalState()) {
                    return;
                }
                Thread.sleep(200);
            } catch (Exception e) {
                return; // the cluster is gone
            }
        }
    }
}
