package org.hotpate.stream.driver;

import java.io.PrintStream;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.hotpate.core.util.Decimals;
import org.hotpate.io.AvroWire;
import org.hotpate.model.Rejected;
import org.hotpate.model.StepResult;
import org.hotpate.model.SyntheticRecord;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.Topic;

/**
 * Follows a run's outputs — {@code results}, {@code records}, {@code ledger}, {@code rejected} — as
 * a read_committed consumer from the run's start, into its {@link RunOutcome}, printing a progress
 * line. Only the run's own records count; a record read again by a later follow is not a new one,
 * and someone else's bytes on a shared topic are not this run's output.
 */
final class RunFollower {
    private final JobConfig cfg;
    private final String runId;
    private final long startMs;
    private final Properties client;
    private final RunOutcome outcome;
    private final Set<String> seen = new HashSet<>();
    private volatile long firstResultMs;
    private volatile long lastProgressMs; // when this run's last new output was read
    private volatile boolean stalled;
    // ε when the follower first saw it above 0, and when: the ETA's budget rate counts from there
    // (the conversion at the filter's fixed order is affine in the Rényi sum, so ε's growth after
    // its first value is the spending; the first value holds the conversion's offset and a
    // population prior's charge)
    private double epsilonAnchor;
    private long epsilonAnchorMs;

    /** Seconds between progress lines when the progress stream is not a terminal. */
    static final long LINE_INTERVAL_MS = 15_000;

    /**
     * Whether progress goes out as lines (a log, a pipe) instead of frames redrawn with \r (a
     * terminal): {@code -Dhotpate.progress=lines|frames} (the launcher tests whether stderr is a
     * terminal), else frames only when the JVM has a console.
     */
    static boolean lineProgress() {
        String p = System.getProperty("hotpate.progress", "");
        return p.equals("lines") || (!p.equals("frames") && System.console() == null);
    }

    private final boolean lines = lineProgress();

    /** What the follower needs to know of the job: whether it ended, and how. */
    interface Job {
        /** Null while the job runs; otherwise why the run cannot complete. */
        String endedEarly() throws Exception;
    }

    RunFollower(JobConfig cfg, String runId, long startMs, Properties client, RunOutcome outcome) {
        this.cfg = cfg;
        this.runId = runId;
        this.startMs = startMs;
        this.client = client;
        this.outcome = outcome;
    }

    /** When the first result of the run became visible (0: not yet). */
    long firstResultMs() {
        return firstResultMs;
    }

    /**
     * Follows until the run is finished ({@link RunOutcome#finished()}), {@code timeout} passes or
     * {@code stop} holds; {@code afterPoll} runs after each poll (tests inject faults there).
     * Returns whether the run finished. Throws if the job ended early.
     */
    boolean follow(
            Duration timeout,
            PrintStream progress,
            Runnable afterPoll,
            BooleanSupplier stop,
            Job job)
            throws Exception {
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        JobConfig.Topics t = cfg.kafka().topics();
        Properties p = new Properties();
        p.putAll(client);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(
                ConsumerConfig.GROUP_ID_CONFIG,
                "hotpate-follower-" + runId + "-" + System.nanoTime());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(
                    t.names(List.of(Topic.RESULTS, Topic.RECORDS, Topic.LEDGER, Topic.REJECTED)));
            long lastPrint = 0;
            long finishedSince = 0;
            long followSince = System.currentTimeMillis();
            long settleMs = Math.max(2000, 3 * cfg.flink().checkpointIntervalMs());
            while (System.currentTimeMillis() < deadline && !stop.getAsBoolean()) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(250))) {
                    // Older records on shared topics are other runs' (skipped undecoded), except
                    // this run's file rejections: the records loader sends them before the run's
                    // start time is taken, seconds earlier for a large file.
                    boolean recent = r.timestamp() >= startMs - 1000;
                    if (recent || r.topic().equals(t.name(Topic.REJECTED))) {
                        accept(r, recent);
                    }
                }
                if (afterPoll != null) {
                    afterPoll.run();
                }
                if (progress != null
                        && System.currentTimeMillis() - lastPrint
                                > (lines ? LINE_INTERVAL_MS : 500)) {
                    // a terminal redraws one line; a log gets a line per interval
                    progress.print(
                            lines ? progressLine().stripTrailing() + "\n" : "\r" + progressLine());
                    progress.flush();
                    lastPrint = System.currentTimeMillis();
                }
                if (outcome.finished()) {
                    // Sink subtasks commit their transactions independently: let the other
                    // subtasks' commits of the same checkpoint become visible before returning.
                    if (finishedSince == 0) {
                        finishedSince = System.currentTimeMillis();
                    } else if (System.currentTimeMillis() - finishedSince > settleMs) {
                        if (progress != null) {
                            progress.println((lines ? "" : "\r") + progressLine().stripTrailing());
                        }
                        return true;
                    }
                    continue;
                }
                String ended = job.endedEarly();
                if (ended != null && !stop.getAsBoolean()) {
                    throw new IllegalStateException(ended);
                }
                if (stalledSince(followSince)) {
                    stalled = true;
                    break;
                }
            }
        }
        if (progress != null && !lines) {
            progress.println();
        }
        return false;
    }

    /**
     * The stall detector ({@code output.stall-checkpoints}): nothing new from the run for that many
     * checkpoint intervals since its last output — or, before its first result (teachers still
     * being built), ten times as long since the driver began to follow it.
     */
    private boolean stalledSince(long followSince) {
        long configured =
                (long) cfg.output().stallCheckpoints() * cfg.flink().checkpointIntervalMs();
        return stalled(
                followSince,
                firstResultMs,
                lastProgressMs,
                System.currentTimeMillis(),
                cfg.stallWindowMs(),
                10 * configured);
    }

    /**
     * The stall rule (times in ms; {@code firstResultMs} 0: no result yet): {@code windowMs} since
     * the last progress, or {@code buildWindowMs} since following began while no result came yet.
     */
    static boolean stalled(
            long followSince,
            long firstResultMs,
            long lastProgressMs,
            long now,
            long windowMs,
            long buildWindowMs) {
        return firstResultMs == 0
                ? now - followSince > buildWindowMs
                : now - Math.max(lastProgressMs, firstResultMs) > windowMs;
    }

    /** Whether the last follow gave up because the run stopped moving. */
    boolean stalled() {
        return stalled;
    }

    private void accept(ConsumerRecord<byte[], byte[]> r, boolean recent) {
        synchronized (seen) {
            if (!seen.add(r.topic() + "/" + r.partition() + "/" + r.offset())) {
                return; // read again by a later follow(): not a new record
            }
        }
        JobConfig.Topics t = cfg.kafka().topics();
        try {
            if (r.topic().equals(t.name(Topic.RESULTS))) {
                StepResult s = AvroWire.decodeResult(r.value());
                if (s.runId().equals(runId)) {
                    outcome.add(s);
                    if (firstResultMs == 0) {
                        firstResultMs = System.currentTimeMillis();
                    }
                    lastProgressMs = System.currentTimeMillis();
                }
            } else if (r.topic().equals(t.name(Topic.RECORDS))) {
                SyntheticRecord s = AvroWire.decodeRecord(r.value());
                if (s.runId().equals(runId)) {
                    outcome.add(s);
                    lastProgressMs = System.currentTimeMillis();
                }
            } else if (r.topic().equals(t.name(Topic.LEDGER))) {
                org.hotpate.model.LedgerEntry e = AvroWire.decodeLedger(r.value());
                if (e.runId().equals(runId)) {
                    outcome.add(e);
                    lastProgressMs = System.currentTimeMillis();
                }
            } else {
                Rejected x = AvroWire.decodeRejected(r.value());
                if (runId.equals(x.runId()) || (x.runId() == null && recent)) {
                    outcome.add(x);
                }
            }
        } catch (AvroWire.UndecodableException e) {
            // Someone else's bytes on a shared topic: not this run's output.
        }
    }

    /**
     * {@code [####....] done/n sequences | tokens | ⊥ rate | ε spent/budget | tok/s | ETA | late
     * votes}: the ETA is the sooner of the sequences' end and the budget's, each at its rate since
     * the first result; the late votes (LATE_VOTE rejections: the step had closed at its deadline)
     * only once there are any. A records run's line (and an LLM run's over a records file) stops
     * before the rate: its timing and its teachers' lateness follow the private records, so they
     * are operator-only there (summary.json drops them too; operator.json has them).
     */
    String progressLine() {
        int width = 24;
        int n = cfg.generation().sequences();
        int done = outcome.recordCount();
        int bar = (int) Math.round(width * Math.min(1.0, done / (double) n));
        long tokens = outcome.tokens();
        int results = outcome.resultCount();
        double failRate = results == 0 ? 0 : outcome.fails() / (double) results;
        double secs = Math.max(1e-3, (System.currentTimeMillis() - startMs) / 1000.0);
        long late = outcome.lateVotes();
        return String.format(
                "[%s%s] %d/%d sequences | %d tokens | ⊥ %.1f%% | %s%s%s ",
                "#".repeat(bar),
                ".".repeat(width - bar),
                done,
                n,
                tokens,
                100 * failRate,
                cfg.plan().isPrivate()
                        ? "ε "
                                + Decimals.up(outcome.epsilon(), 3) // never below the charge
                                + "/"
                                // the guarantee: up too, so it never reads smaller
                                + Decimals.up(cfg.budget().epsilon(), 3)
                        : "NOT PRIVATE",
                showsTiming()
                        ? String.format(" | %.1f tok/s | ETA %s", tokens / secs, eta(done, n))
                        : "",
                late == 0 || !showsTiming()
                        ? ""
                        : " | "
                                + late
                                + " late votes (generation.step-deadline-ms "
                                + cfg.generation().stepDeadlineMs()
                                + ")");
    }

    /**
     * Whether the line shows the run's speed, ETA and late votes: not where they follow the private
     * records (RunReport#timingIsPublic, issue 39 item 4).
     */
    private boolean showsTiming() {
        return RunReport.timingIsPublic(cfg);
    }

    private String eta(int done, int n) {
        if (firstResultMs == 0) {
            return "-";
        }
        long now = System.currentTimeMillis();
        double eps = outcome.epsilon();
        if (epsilonAnchorMs == 0 && eps > 0) {
            epsilonAnchor = eps;
            epsilonAnchorMs = now;
        }
        double bySequences = eta(done, n, (now - firstResultMs) / 1000.0, 0, 0, Double.NaN);
        double byBudget =
                epsilonAnchorMs == 0 || !cfg.plan().isPrivate()
                        ? Double.POSITIVE_INFINITY
                        : eta(
                                0,
                                0,
                                (now - epsilonAnchorMs) / 1000.0,
                                epsilonAnchor,
                                eps,
                                cfg.budget().epsilon());
        return format(Math.min(bySequences, byBudget));
    }

    /** Seconds as the progress line shows them ("-": not known yet). */
    static String format(double seconds) {
        if (!Double.isFinite(seconds)) {
            return "-";
        }
        long s = Math.round(seconds);
        return s >= 3600
                ? String.format("%dh%02dm", s / 3600, (s % 3600) / 60)
                : String.format("%dm%02ds", s / 60, s % 60);
    }

    /**
     * Seconds left after {@code secs} seconds: the sooner of the remaining sequences at the
     * sequences' rate and the remaining budget at ε's rate since ε was {@code eps0} (+∞ while it
     * cannot be told).
     */
    static double eta(int done, int n, double secs, double eps0, double eps, double budget) {
        if (secs < 5) {
            return Double.POSITIVE_INFINITY;
        }
        double left = done == 0 ? Double.POSITIVE_INFINITY : (n - done) * secs / done;
        double spent = eps - eps0;
        if (Double.isFinite(budget) && spent > 0) {
            left = Math.min(left, Math.max(0, budget - eps) * secs / spent);
        }
        return left;
    }
}
