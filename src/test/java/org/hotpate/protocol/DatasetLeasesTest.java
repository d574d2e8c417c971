package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.hotpate.model.LedgerMarker;
import org.junit.jupiter.api.Test;

class DatasetLeasesTest {
    private static final long TIMEOUT = 30_000;

    private static LedgerMarker claim(String run, String id, long at) {
        return LedgerMarker.lease("D", run, id, true, at);
    }

    private static LedgerMarker release(String run, String id, long at) {
        return LedgerMarker.lease("D", run, id, false, at);
    }

    @Test
    void theEarliestHeldClaimHoldsTheDatasetWhateverComesAfter() {
        List<DatasetLeases.Claim> claims =
                DatasetLeases.claims(List.of(claim("r1", "a", 100), claim("r2", "b", 101)));
        assertThat(DatasetLeases.holder(claims, 200, TIMEOUT, c -> false))
                .get()
                .extracting(DatasetLeases.Claim::runId)
                .isEqualTo("r1");
    }

    @Test
    void aReleasedClaimNoLongerHoldsEvenIfAHeartbeatArrivesLate() {
        List<DatasetLeases.Claim> claims =
                DatasetLeases.claims(
                        List.of(
                                claim("r1", "a", 100),
                                claim("r2", "b", 101),
                                release("r1", "a", 150),
                                claim("r1", "a", 160)));
        assertThat(DatasetLeases.holder(claims, 200, TIMEOUT, c -> false))
                .get()
                .extracting(DatasetLeases.Claim::runId)
                .isEqualTo("r2");
    }

    @Test
    void aSilentClaimLapsesUnlessItsJobMayStillRun() {
        List<DatasetLeases.Claim> claims =
                DatasetLeases.claims(
                        List.of(
                                claim("r1", DatasetLeases.tag("a", "http://jm:8081", "j1"), 100),
                                claim("r2", "b", 100 + TIMEOUT + 1)));
        long now = 100 + TIMEOUT + 2;
        assertThat(DatasetLeases.holder(claims, now, TIMEOUT, c -> false))
                .get()
                .extracting(DatasetLeases.Claim::runId)
                .as("the driver of r1 went silent and its job ended")
                .isEqualTo("r2");
        assertThat(DatasetLeases.holder(claims, now, TIMEOUT, c -> c.claimId().equals("a")))
                .get()
                .extracting(DatasetLeases.Claim::runId)
                .as("r1's job still runs on its cluster")
                .isEqualTo("r1");
    }

    @Test
    void aClaimsTagNamesItsRemoteJobAndItsHeartbeatsKeepOneClaim() {
        String tag = DatasetLeases.tag("a", "http://jm:8081", "j1");
        assertThat(DatasetLeases.claimId(tag)).isEqualTo("a");
        assertThat(DatasetLeases.remoteJob(tag))
                .get()
                .isEqualTo(new String[] {"http://jm:8081", "j1"});
        assertThat(DatasetLeases.remoteJob("a")).isEmpty();
        List<DatasetLeases.Claim> claims =
                DatasetLeases.claims(List.of(claim("r1", "a", 100), claim("r1", tag, 105)));
        assertThat(claims).hasSize(1);
        assertThat(claims.get(0).lastMs()).isEqualTo(105);
        assertThat(claims.get(0).tag()).isEqualTo(tag);
    }

    /**
     * Issue 30 item 6: times are the broker's; a claim whose time the broker did not stamp (or a
     * reader whose own claim has none) proves no silence, so the claim stays in force.
     */
    @Test
    void aClaimWithoutBrokerTimeNeverLapsesBySilence() {
        long unknown = DatasetLeases.UNKNOWN_TIME;
        List<DatasetLeases.Claim> claims =
                DatasetLeases.claims(List.of(claim("r1", "a", unknown), claim("r2", "b", 999_999)));
        assertThat(DatasetLeases.holder(claims, 1_000_000, TIMEOUT, c -> false))
                .get()
                .extracting(DatasetLeases.Claim::runId)
                .isEqualTo("r1");
        List<DatasetLeases.Claim> known =
                DatasetLeases.claims(List.of(claim("r1", "a", 100), claim("r2", "b", unknown)));
        assertThat(DatasetLeases.holder(known, unknown, TIMEOUT, c -> false))
                .get()
                .extracting(DatasetLeases.Claim::runId)
                .as("the reader's own time unknown: nothing lapses")
                .isEqualTo("r1");
    }

    @Test
    void finishedMarksAreNotClaims() {
        assertThat(DatasetLeases.claims(List.of(LedgerMarker.finished("D", "r1", 5)))).isEmpty();
    }

    /**
     * Issue 39 item 3: a new holder that took the dataset over from a lapsed claim fences it (its
     * release); the stalled holder's late heartbeat then revives nothing, and that holder reads its
     * claim released. Without the fence the late heartbeat makes r1 the holder again while r2 runs.
     */
    @Test
    void aFencedClaimsLateHeartbeatDoesNotReviveIt() {
        List<LedgerMarker> before =
                List.of(claim("r1", "a", 100), claim("r2", "b", 100 + TIMEOUT + 1));
        List<DatasetLeases.Claim> claims = DatasetLeases.claims(before);
        DatasetLeases.Claim holder =
                DatasetLeases.holder(claims, 100 + TIMEOUT + 1, TIMEOUT, c -> false).orElseThrow();
        assertThat(holder.runId()).isEqualTo("r2");
        assertThat(DatasetLeases.superseded(claims, holder))
                .extracting(DatasetLeases.Claim::runId)
                .containsExactly("r1");
        List<LedgerMarker> after = new java.util.ArrayList<>(before);
        after.add(release("r1", "a", 100 + TIMEOUT + 2)); // r2 fences r1
        after.add(claim("r1", "a", 100 + TIMEOUT + 3)); // r1's late heartbeat
        List<DatasetLeases.Claim> now = DatasetLeases.claims(after);
        assertThat(DatasetLeases.holder(now, 100 + TIMEOUT + 4, TIMEOUT, c -> false))
                .get()
                .extracting(DatasetLeases.Claim::runId)
                .isEqualTo("r2");
        assertThat(DatasetLeases.released(now, "a")).isTrue();
        assertThat(DatasetLeases.released(now, "b")).isFalse();
        // without the fence, the late heartbeat makes r1 the holder again
        before = new java.util.ArrayList<>(before);
        before.add(claim("r1", "a", 100 + TIMEOUT + 3));
        assertThat(
                        DatasetLeases.holder(
                                DatasetLeases.claims(before),
                                100 + TIMEOUT + 4,
                                TIMEOUT,
                                c -> false))
                .get()
                .extracting(DatasetLeases.Claim::runId)
                .isEqualTo("r1");
    }
}
