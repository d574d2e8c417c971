package org.hotpate.protocol;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who holds a dataset of the local budget ledger (issue 31, issue 30 item 4). The lock on {@code
 * <dir>/<dataset>/.lock} is an OS file lock of the driver, so it goes with the driver's process —
 * but a job on a cluster outlives its driver and keeps spending the dataset. So the lock file
 * records the holder ({@link Holder}: the run, the driver's pid and, for a job on a cluster, the
 * Flink REST address and job id), and a later run that gets the OS lock still refuses while the
 * previous holder's job may run ({@link #verdict}). Unknown is held: a job whose state cannot be
 * read may still spend (fail closed).
 */
public final class LocalHold {
    private LocalHold() {}

    /** Flink's globally terminal job states: a job in one of them releases nothing more. */
    static final Set<String> ENDED_STATES = Set.of("FINISHED", "CANCELED", "FAILED");

    /** The job id of a run whose job is being submitted (the id is not known yet). */
    public static final String PENDING = "pending";

    /**
     * The holder as the lock file records it: {@code <run> pid <pid>[ job <job id> at <rest>]}
     * ({@code jobId} {@link #PENDING} while the job is being submitted; no job: an embedded run,
     * whose job ends with its driver).
     */
    public record Holder(String runId, long pid, String jobId, String flinkRest) {
        private static final Pattern FORMAT =
                Pattern.compile("(\\S+) pid (\\d+)(?: job (\\S+) at (\\S+))?");

        public Holder {
            if (runId == null || runId.isBlank() || runId.contains(" ")) {
                throw new IllegalArgumentException("runId must be one word; got " + runId);
            }
            if ((jobId == null) != (flinkRest == null)) {
                throw new IllegalArgumentException(
                        "jobId and flinkRest go together; got " + jobId + ", " + flinkRest);
            }
        }

        /** A run whose job ends with its driver (embedded). */
        public static Holder embedded(String runId, long pid) {
            return new Holder(runId, pid, null, null);
        }

        /** Whether the job runs on a cluster (it may outlive the driver). */
        public boolean onCluster() {
            return jobId != null;
        }

        public String format() {
            return runId
                    + " pid "
                    + pid
                    + (onCluster() ? " job " + jobId + " at " + flinkRest : "");
        }

        /** The holder a lock file's text records, or empty (no text, or not this format). */
        public static Optional<Holder> parse(String text) {
            Matcher m = FORMAT.matcher(text == null ? "" : text.trim());
            if (!m.matches()) {
                return Optional.empty();
            }
            return Optional.of(
                    new Holder(m.group(1), Long.parseLong(m.group(2)), m.group(3), m.group(4)));
        }
    }

    /** One job as the JobManager lists it ({@code GET /jobs/overview}). */
    public record Job(String id, String name, String state) {}

    /** What a later run makes of a previous holder whose driver is gone. */
    public enum Verdict {
        /** Nothing of it can spend any more: the dataset is free. */
        ENDED,
        /** Its job is listed in a state that is not terminal: it may still spend. */
        RUNNING,
        /** The JobManager could not be asked: held (fail closed). */
        UNKNOWN;

        public boolean holds() {
            return this != ENDED;
        }
    }

    /** The job name a driver submits run {@code runId} under. */
    public static String jobName(String runId) {
        return "hotpate " + runId;
    }

    /**
     * Whether {@code previous} (the lock file's holder, its driver's lock free) still holds the
     * dataset, given the jobs its JobManager lists ({@code jobs} empty: it could not be read). A
     * holder without a cluster job ended with its driver. A job the JobManager does not list does
     * not run there (a running job is always listed); a pending submission is looked up by the
     * run's job name, since its id was not recorded yet.
     */
    public static Verdict verdict(Holder previous, Optional<List<Job>> jobs) {
        if (previous == null || !previous.onCluster()) {
            return Verdict.ENDED;
        }
        if (jobs.isEmpty()) {
            return Verdict.UNKNOWN;
        }
        return runningJob(previous, jobs.get()).isPresent() ? Verdict.RUNNING : Verdict.ENDED;
    }

    /** The job of {@code holder} among {@code jobs} in a state that is not terminal, if any. */
    public static Optional<Job> runningJob(Holder holder, List<Job> jobs) {
        if (holder == null || !holder.onCluster()) {
            return Optional.empty();
        }
        boolean pending = PENDING.equals(holder.jobId());
        return jobs.stream()
                .filter(
                        j ->
                                pending
                                        ? jobName(holder.runId()).equals(j.name())
                                        : holder.jobId().equals(j.id()))
                .filter(j -> !ENDED_STATES.contains(j.state()))
                .findFirst();
    }
}
