package org.hotpate.protocol;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.hotpate.model.LedgerMarker;

/**
 * Who holds a dataset, from the lease markers of its ledger partition read in offset order: one
 * authority per dataset (issue 23). Every run appends a claim, then reads the partition up to its
 * own claim; the earliest claim that is still held — its latest marker not a release — and alive
 * wins. Every reader sees the same order, so of two runs claiming at once exactly one holds the
 * dataset and the other is refused.
 *
 * <p>A claim is alive while its heartbeats come (within {@code timeoutMs}); a claim whose driver
 * went silent stays in force while {@code jobMayRun} says its job may still run (a job on a remote
 * cluster outlives its driver), otherwise it lapses — an embedded job ends with its driver.
 *
 * <p><b>One clock</b> (issue 30 item 6): silence is measured on the broker's clock, never a
 * driver's. Each marker's time is the time the partition's leader appended it (the ledger topic
 * stamps {@code LogAppendTime}), and "now" is the append time of the reader's own claim, so a
 * driver's skewed clock neither keeps a dead claim alive nor lapses a live one. A marker whose
 * broker time is unknown ({@link #UNKNOWN_TIME}: a topic that stamps the writer's {@code
 * CreateTime}) proves no silence, so its claim stays in force: the rule fails closed.
 */
public final class DatasetLeases {
    private DatasetLeases() {}

    /** A marker time the broker did not stamp (the writer's clock is not trusted). */
    public static final long UNKNOWN_TIME = -1;

    /**
     * One claim as the markers left it: its run, latest heartbeat (broker time, or {@link
     * #UNKNOWN_TIME}), and whether still held.
     */
    public record Claim(String claimId, String runId, String tag, boolean held, long lastMs) {}

    /** The claims among {@code markers} (lease markers in offset order), first claim first. */
    public static List<Claim> claims(List<LedgerMarker> markers) {
        Map<String, Claim> byId = new LinkedHashMap<>();
        for (LedgerMarker m : markers) {
            if (!LedgerMarker.LEASE.equals(m.kind())) {
                continue;
            }
            String id = claimId(m.tag());
            Claim before = byId.get(id);
            boolean held = m.held() && (before == null || before.held());
            byId.put(id, new Claim(id, m.runId(), m.tag(), held, m.atMs()));
        }
        return new ArrayList<>(byId.values());
    }

    /**
     * The claim that holds the dataset at broker time {@code nowMs}, given the claims up to and
     * including {@code mine} (empty: none, which cannot happen while {@code mine} is held). A
     * silent claim (no heartbeat for {@code timeoutMs} of broker time) lapses unless {@code
     * jobMayRun} holds for it; a claim whose silence cannot be measured (either time unknown) is in
     * force.
     */
    public static Optional<Claim> holder(
            List<Claim> claims, long nowMs, long timeoutMs, Predicate<Claim> jobMayRun) {
        for (Claim c : claims) {
            if (!c.held()) {
                continue;
            }
            boolean silent =
                    nowMs != UNKNOWN_TIME
                            && c.lastMs() != UNKNOWN_TIME
                            && nowMs - c.lastMs() > timeoutMs;
            if (silent && !jobMayRun.test(c)) {
                continue;
            }
            return Optional.of(c);
        }
        return Optional.empty();
    }

    /**
     * The claims {@code holder} takes the dataset over from (issue 39 item 3): held claims before
     * it in the order, which {@link #holder} passed over because they lapsed. The new holder fences
     * each by appending its release, so that a late heartbeat of a stalled holder cannot revive it
     * ({@link #claims}: a release is final) and that holder, reading its claim released, stops.
     */
    public static List<Claim> superseded(List<Claim> claims, Claim holder) {
        List<Claim> out = new ArrayList<>();
        for (Claim c : claims) {
            if (c.claimId().equals(holder.claimId())) {
                break;
            }
            if (c.held()) {
                out.add(c);
            }
        }
        return out;
    }

    /** Whether claim {@code claimId} is released (by its run, or fenced by a later holder). */
    public static boolean released(List<Claim> claims, String claimId) {
        return claims.stream().noneMatch(c -> c.claimId().equals(claimId) && c.held());
    }

    /** A claim's tag: {@code <claim id>[ <Flink REST address> <job id>]}. */
    public static String tag(String claimId, String flinkRest, String jobId) {
        return flinkRest == null || jobId == null
                ? claimId
                : claimId + " " + flinkRest + " " + jobId;
    }

    public static String claimId(String tag) {
        int sp = tag.indexOf(' ');
        return sp < 0 ? tag : tag.substring(0, sp);
    }

    /** The Flink REST address and job id of a claim's tag (a run on a remote cluster), or empty. */
    public static Optional<String[]> remoteJob(String tag) {
        String[] parts = tag.split(" ");
        return parts.length == 3
                ? Optional.of(new String[] {parts[1], parts[2]})
                : Optional.empty();
    }
}
