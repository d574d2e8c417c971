package org.hotpate.stream.driver;

import java.util.List;
import java.util.Properties;
import org.hotpate.io.DatasetLock;
import org.hotpate.io.LedgerMarkersIo;
import org.hotpate.model.LedgerMarker;
import org.hotpate.protocol.DatasetLeases;
import org.hotpate.protocol.LeaseFence;
import org.hotpate.protocol.LocalHold;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.ops.LeaseGate;

/**
 * Who holds a dataset (one authority per dataset, docs/privacy-accounting.md §9): the Kafka
 * ledger's lease ({@link Lease}: a claim in the dataset's ledger partition, heartbeated), the local
 * ledger's lock file's holder whose driver is gone but whose cluster job may still run ({@link
 * #requireNoOrphan}), and both read for {@code ./hotpate ledger show} ({@link #localHold}, {@link
 * #leaseHold}). {@link DatasetLedger} takes and releases the hold; this is its mechanics.
 */
public final class DatasetHolds {
    private DatasetHolds() {}

    /**
     * A lease's timing: its heartbeat period, the silence (of broker time) after which a claim
     * lapses, and how long after the start of its last acknowledged renewal a holder may still
     * release ({@link LeaseFence}).
     */
    record LeaseTiming(
            java.time.Duration heartbeat, java.time.Duration timeout, java.time.Duration margin) {
        /**
         * A 5 s heartbeat; a 60 s timeout: long enough that the margin (half of it) outlasts a
         * broker's restart — a run must not stop because its own broker restarted
         * (LocalClusterITCase.restartingTheBroker…; with 30 s and a 15 s margin the run was
         * cancelled there); a margin of six heartbeats, half the timeout.
         */
        static final LeaseTiming DEFAULT =
                new LeaseTiming(
                        java.time.Duration.ofSeconds(5),
                        java.time.Duration.ofSeconds(60),
                        java.time.Duration.ofSeconds(30));

        /** Every period divided by {@code n}: the same ratios, {@code n} times faster. */
        LeaseTiming faster(int n) {
            return new LeaseTiming(
                    heartbeat.dividedBy(n), timeout.dividedBy(n), margin.dividedBy(n));
        }
    }

    private static volatile LeaseTiming timing = LeaseTiming.DEFAULT;

    /** The timing of the leases taken from now on ({@link LeaseTiming#DEFAULT} outside tests). */
    static LeaseTiming timing() {
        return timing;
    }

    /**
     * Test seam: the timing of the leases taken (and of the lapses judged) from now on in this JVM.
     * Tests of the lease's fencing and lapsing set {@link LeaseTiming#faster} and restore {@link
     * LeaseTiming#DEFAULT} after them, so that each silence costs seconds, not a minute.
     */
    static void timingForTests(LeaseTiming t) {
        timing = java.util.Objects.requireNonNull(t);
    }

    /**
     * A run's claim on the dataset (Kafka mode), renewed every heartbeat of its {@link
     * LeaseTiming}. Its epoch is the claim's offset in the ledger partition. Fenced (issue 39 item
     * 3): every renewal reads the claim back, a failed one is counted and reported, and the run
     * stops releasing ({@link LeaseFence}, checked by the accountant of a job in this JVM through
     * {@link LeaseGate}; {@link #onLost} for a job elsewhere) once no renewal succeeded within the
     * timing's margin or a later holder fenced the claim. A holder that takes the dataset over from
     * lapsed claims fences them ({@link DatasetLeases#superseded}).
     */
    static final class Lease {
        private final LedgerMarkersIo markers;
        private final String dataset;
        private final String runId;
        private final String claimId;
        private volatile String tag;
        private volatile long epoch = -1;
        private java.util.concurrent.ScheduledExecutorService heartbeat;
        private LeaseFence fence;
        private final List<Runnable> onLost = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final java.util.concurrent.atomic.AtomicBoolean lostReported =
                new java.util.concurrent.atomic.AtomicBoolean();
        private List<String> supersededRuns = List.of();
        private final String ownJobId; // null: none known before the claim
        private final LeaseTiming leaseTiming = timing();

        /**
         * A lease for run {@code runId}; {@code ownJobId}: the fixed id of the job this claim is
         * for, when known before the claim (a Kubernetes deployment re-run after a JobManager
         * failover recovers the same job: a silent claim naming it is its own, not another job's).
         */
        Lease(LedgerMarkersIo markers, String dataset, String runId, String ownJobId) {
            this.markers = markers;
            this.dataset = dataset;
            this.runId = runId;
            this.ownJobId = ownJobId;
            byte[] b = new byte[12];
            new java.security.SecureRandom().nextBytes(b);
            this.claimId = java.util.HexFormat.of().formatHex(b);
            this.tag = claimId;
        }

        void claim() {
            long started = System.nanoTime();
            long offset =
                    markers.append(
                            LedgerMarker.lease(
                                    dataset, runId, tag, true, System.currentTimeMillis()));
            epoch = offset;
            List<DatasetLeases.Claim> claims = DatasetLeases.claims(markers.read(dataset, offset));
            // "now" is the broker's time of this claim, on the same clock as every other marker
            long now =
                    claims.stream()
                            .filter(c -> c.claimId().equals(claimId))
                            .mapToLong(DatasetLeases.Claim::lastMs)
                            .findFirst()
                            .orElse(DatasetLeases.UNKNOWN_TIME);
            DatasetLeases.Claim holder =
                    DatasetLeases.holder(
                                    claims,
                                    now,
                                    leaseTiming.timeout().toMillis(),
                                    this::otherJobMayRun)
                            .orElseThrow(
                                    () ->
                                            new IllegalStateException(
                                                    "the lease claim of run "
                                                            + runId
                                                            + " is not in the ledger topic"));
            if (!holder.claimId().equals(claimId)) {
                throw new DatasetInUseException(
                        "dataset '"
                                + dataset
                                + "' is in use by run "
                                + holder.runId()
                                + (now == DatasetLeases.UNKNOWN_TIME
                                                || holder.lastMs() == DatasetLeases.UNKNOWN_TIME
                                        ? " (the ledger topic does not stamp broker time"
                                                + " — message.timestamp.type=LogAppendTime — so"
                                                + " a silent claim cannot lapse"
                                        : " (last heartbeat "
                                                + Math.max(0, (now - holder.lastMs()) / 1000)
                                                + " s ago, broker time")
                                + DatasetLeases.remoteJob(holder.tag())
                                        .map(j -> ", Flink job " + j[1] + " at " + j[0])
                                        .orElse("")
                                + "); one run per dataset at a time — wait for it to end (a"
                                + " claim lapses "
                                + leaseTiming.timeout().toSeconds()
                                + " s after its driver stops, once its job no longer runs)",
                        holder.runId());
            }
            // Fence the lapsed claims this one takes over from: a stalled holder's late heartbeat
            // cannot revive them, and that holder, reading its claim released, stops releasing.
            List<String> superseded = new java.util.ArrayList<>();
            for (DatasetLeases.Claim c : DatasetLeases.superseded(claims, holder)) {
                markers.append(
                        LedgerMarker.lease(
                                dataset, c.runId(), c.tag(), false, System.currentTimeMillis()));
                superseded.add(c.runId());
            }
            supersededRuns = List.copyOf(superseded);
            fence =
                    new LeaseFence(
                            claimId + "@" + epoch,
                            leaseTiming.margin(),
                            leaseTiming.timeout(),
                            started);
            LeaseGate.open(runId, fence);
            heartbeat =
                    java.util.concurrent.Executors.newScheduledThreadPool(
                            2,
                            r -> {
                                Thread t = new Thread(r, "dataset-lease-" + dataset);
                                t.setDaemon(true);
                                return t;
                            });
            heartbeat.scheduleAtFixedRate(
                    this::beat,
                    leaseTiming.heartbeat().toMillis(),
                    leaseTiming.heartbeat().toMillis(),
                    java.util.concurrent.TimeUnit.MILLISECONDS);
            // A renewal can block for its write timeout: the margin is watched apart from it.
            heartbeat.scheduleAtFixedRate(
                    () -> {
                        if (lost() != null) {
                            reportLost();
                        }
                    },
                    1,
                    1,
                    java.util.concurrent.TimeUnit.SECONDS);
        }

        /** A silent claim naming this lease's own job (same run, same job id) is its own. */
        private boolean otherJobMayRun(DatasetLeases.Claim c) {
            boolean own =
                    ownJobId != null
                            && c.runId().equals(runId)
                            && DatasetLeases.remoteJob(c.tag())
                                    .map(j -> j[1].equals(ownJobId))
                                    .orElse(false);
            return !own && jobMayRun(c);
        }

        /**
         * The claim's epoch: its offset in the dataset's ledger partition (-1 before the claim).
         */
        long epoch() {
            return epoch;
        }

        /** The runs of the lapsed claims this claim took the dataset over from (and fenced). */
        List<String> supersededRuns() {
            return supersededRuns;
        }

        /**
         * Runs {@code action} (once) when the run must stop releasing: cancels a job this JVM's
         * accountant does not check.
         */
        void onLost(Runnable action) {
            onLost.add(action);
        }

        /** Null while the run may release; else why not ({@link LeaseFence#check}). */
        String lost() {
            return fence == null ? null : fence.check(System.nanoTime());
        }

        /** The claim names the run's job on a remote cluster from now on. */
        void nameJob(String flinkRest, String jobId) {
            tag = DatasetLeases.tag(claimId, flinkRest, jobId);
            beat();
        }

        /**
         * Renews the claim and reads it back: a failed renewal is counted and reported, a claim a
         * later holder released is lost for good, and past the margin without a renewal the run
         * stops releasing.
         */
        synchronized void beat() {
            if (fence == null || fence.check(System.nanoTime()) != null) {
                reportLost(); // a lost lease is never renewed: it lapses (or its job holds it)
                return;
            }
            long started = System.nanoTime();
            try {
                long offset =
                        markers.append(
                                LedgerMarker.lease(
                                        dataset, runId, tag, true, System.currentTimeMillis()));
                if (DatasetLeases.released(
                        DatasetLeases.claims(markers.read(dataset, offset)), claimId)) {
                    fence.lose(
                            "the dataset lease (claim "
                                    + fence.claim()
                                    + ") was taken over by a later run after this one went"
                                    + " silent for "
                                    + leaseTiming.timeout().toSeconds()
                                    + " s");
                } else {
                    fence.renewed(started);
                }
            } catch (RuntimeException e) {
                int n = fence.failed();
                System.err.println(
                        "hotpate: the dataset lease of run "
                                + runId
                                + " on '"
                                + dataset
                                + "' could not be renewed ("
                                + n
                                + " in a row): "
                                + e.getMessage()
                                + "; the run stops releasing unless a renewal succeeds within "
                                + leaseTiming.margin().toSeconds()
                                + " s of the last one");
            }
            if (fence.check(System.nanoTime()) != null) {
                reportLost();
            }
        }

        private void reportLost() {
            if (fence == null || !lostReported.compareAndSet(false, true)) {
                return;
            }
            System.err.println("hotpate: run " + runId + " stops releasing: " + lost());
            for (Runnable r : onLost) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    System.err.println("hotpate: cannot stop run " + runId + "'s job: " + e);
                }
            }
        }

        void release() {
            if (heartbeat != null) {
                heartbeat.shutdownNow();
            }
            if (fence != null) {
                LeaseGate.close(runId, fence);
            }
            try {
                markers.append(
                        LedgerMarker.lease(dataset, runId, tag, false, System.currentTimeMillis()));
            } catch (RuntimeException e) {
                // the claim lapses after its timeout
            } finally {
                markers.close();
            }
        }
    }

    /**
     * Refuses the run (exit 2) while the previous holder of the dataset's lock — its driver gone,
     * since this process got the OS lock — has a job on a cluster that may still run: the job keeps
     * spending the dataset, and its spending is in the ledger only as far as its last checkpoint.
     * Fails closed when the JobManager cannot be asked ({@link LocalHold#verdict}).
     */
    static void requireNoOrphan(JobConfig cfg, String previousRecord) {
        LocalHold.Holder prev = LocalHold.Holder.parse(previousRecord).orElse(null);
        if (prev == null || !prev.onCluster()) {
            return;
        }
        ClusterJobStatus.Listing listing = ClusterJobStatus.jobs(prev.flinkRest());
        LocalHold.Verdict v = LocalHold.verdict(prev, listing.jobs());
        if (!v.holds()) {
            return;
        }
        String why;
        if (v == LocalHold.Verdict.RUNNING) {
            LocalHold.Job j =
                    LocalHold.runningJob(prev, listing.jobs().orElseThrow()).orElseThrow();
            why =
                    "its Flink job "
                            + j.id()
                            + " at "
                            + prev.flinkRest()
                            + " is "
                            + j.state()
                            + " and still spends the dataset's budget (its spending so far is in"
                            + " the ledger). Wait for it to end, or cancel it: curl -X PATCH '"
                            + prev.flinkRest()
                            + "/jobs/"
                            + j.id()
                            + "?mode=cancel'";
        } else {
            why =
                    "the state of its Flink job "
                            + prev.jobId()
                            + " at "
                            + prev.flinkRest()
                            + " cannot be read ("
                            + listing.error()
                            + "), so it may still spend the dataset's budget (fail closed). Start"
                            + " that cluster again so its JobManager answers, or — only if that"
                            + " job is known to have ended — delete "
                            + cfg.ledgerDir().resolve(cfg.datasetId()).resolve(".lock");
        }
        throw new DatasetInUseException(
                "dataset '"
                        + cfg.datasetId()
                        + "' is in use by run "
                        + prev.runId()
                        + ": its driver (pid "
                        + prev.pid()
                        + ") is gone, but "
                        + why
                        + " (see ./hotpate ledger show --dataset "
                        + cfg.datasetId()
                        + ")");
    }

    /** The run holding a local dataset now, and what it is doing ({@link #localHold}). */
    public record Hold(String runId, String status, boolean orphaned) {}

    /**
     * Who holds dataset {@code dataset} of the local ledger in {@code dir}, read from its lock file
     * without taking the lock ({@code ./hotpate ledger show}): a live driver, or a job on a cluster
     * whose driver is gone (orphaned) and that may still run. Empty when nothing holds it.
     */
    public static java.util.Optional<Hold> localHold(java.nio.file.Path dir, String dataset) {
        LocalHold.Holder h =
                LocalHold.Holder.parse(DatasetLock.holderRecord(dir, dataset)).orElse(null);
        if (h == null) {
            return java.util.Optional.empty();
        }
        boolean driverAlive =
                ProcessHandle.of(h.pid())
                        .filter(ProcessHandle::isAlive)
                        // a reused pid is some other program
                        .flatMap(p -> p.info().command())
                        .map(c -> c.contains("java"))
                        .orElse(false);
        String job = h.onCluster() ? "Flink job " + h.jobId() + " at " + h.flinkRest() : null;
        if (driverAlive) {
            return java.util.Optional.of(
                    new Hold(
                            h.runId(),
                            "running (driver pid "
                                    + h.pid()
                                    + (job == null ? "" : ", " + job)
                                    + ")",
                            false));
        }
        if (!h.onCluster()) {
            return java.util.Optional.empty();
        }
        ClusterJobStatus.Listing listing = ClusterJobStatus.jobs(h.flinkRest());
        LocalHold.Verdict v = LocalHold.verdict(h, listing.jobs());
        if (v == LocalHold.Verdict.ENDED) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(
                new Hold(
                        h.runId(),
                        v == LocalHold.Verdict.RUNNING
                                ? "running, driver gone (orphaned): Flink job "
                                        + LocalHold.runningJob(h, listing.jobs().orElseThrow())
                                                .map(j -> j.id() + " " + j.state())
                                                .orElseThrow()
                                        + " at "
                                        + h.flinkRest()
                                        + "; its entry is what its checkpoints wrote so far"
                                : "driver gone (orphaned), "
                                        + job
                                        + ": state unknown ("
                                        + listing.error()
                                        + "); holds the dataset (fail closed)",
                        true));
    }

    /**
     * Who holds dataset {@code dataset} of the Kafka ledger on {@code topic}, from its lease
     * markers ({@code ./hotpate ledger show}): a claim whose driver heartbeats, or a silent one
     * whose cluster job the JobManager does not report ended (orphaned). Empty when none holds it.
     */
    public static java.util.Optional<Hold> leaseHold(
            Properties client, String topic, String dataset) {
        try (LedgerMarkersIo m = new LedgerMarkersIo(client, topic, dataset)) {
            return leaseHold(m, dataset);
        } catch (RuntimeException e) {
            return java.util.Optional.of(
                    new Hold(
                            "?",
                            "unknown: the lease markers could not be read (" + e + ")",
                            false));
        }
    }

    private static java.util.Optional<Hold> leaseHold(LedgerMarkersIo m, String dataset) {
        long now = System.currentTimeMillis();
        long timeoutMs = timing().timeout().toMillis();
        java.util.Optional<DatasetLeases.Claim> holder =
                DatasetLeases.holder(
                        DatasetLeases.claims(m.read(dataset, -1)),
                        now,
                        timeoutMs,
                        DatasetHolds::jobMayRun);
        if (holder.isEmpty()) {
            return java.util.Optional.empty();
        }
        DatasetLeases.Claim c = holder.get();
        boolean silent = now - c.lastMs() > timeoutMs;
        String beat = "last heartbeat " + Math.max(0, (now - c.lastMs()) / 1000) + " s ago";
        String job =
                DatasetLeases.remoteJob(c.tag())
                        .map(j -> "Flink job " + j[1] + " at " + j[0])
                        .orElse("");
        return java.util.Optional.of(
                new Hold(
                        c.runId(),
                        silent
                                ? "running, driver gone (orphaned): "
                                        + job
                                        + " not reported ended ("
                                        + beat
                                        + ")"
                                : "running (" + beat + (job.isEmpty() ? "" : ", " + job) + ")",
                        silent));
    }

    /**
     * Whether a silent claim's job may still run: a job on a remote cluster whose JobManager does
     * not report it ended or unknown. A JobManager that cannot be reached may still run it (a
     * partition, a REST address this machine cannot reach): the claim stays in force — fail closed
     * (issue 30 item 6).
     */
    static boolean jobMayRun(DatasetLeases.Claim c) {
        return DatasetLeases.remoteJob(c.tag())
                .map(j -> ClusterJobStatus.mayRun(j[0], j[1]))
                .orElse(false);
    }
}
