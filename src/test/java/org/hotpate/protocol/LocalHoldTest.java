package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LocalHoldTest {
    private static final String REST = "http://127.0.0.1:8081";
    private static final LocalHold.Holder ON_CLUSTER = new LocalHold.Holder("r1", 42, "j1", REST);

    private static Optional<List<LocalHold.Job>> listed(LocalHold.Job... jobs) {
        return Optional.of(List.of(jobs));
    }

    @Test
    void aHolderRoundTripsThroughTheLockFileAndReadsTheOldFormat() {
        assertThat(LocalHold.Holder.parse(ON_CLUSTER.format())).contains(ON_CLUSTER);
        LocalHold.Holder embedded = LocalHold.Holder.embedded("r1", 42);
        assertThat(embedded.format()).isEqualTo("r1 pid 42"); // what 4a555fd wrote
        assertThat(LocalHold.Holder.parse("r1 pid 42\n")).contains(embedded);
        assertThat(LocalHold.Holder.parse("")).isEmpty();
        assertThat(LocalHold.Holder.parse("garbage")).isEmpty();
        assertThatThrownBy(() -> new LocalHold.Holder("r1", 1, "j1", null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aJobThatIsNotInATerminalStateStillHoldsTheDataset() {
        for (String state :
                List.of(
                        "INITIALIZING",
                        "CREATED",
                        "RUNNING",
                        "RESTARTING",
                        "FAILING",
                        "CANCELLING",
                        "SUSPENDED",
                        "RECONCILING")) {
            assertThat(
                            LocalHold.verdict(
                                    ON_CLUSTER,
                                    listed(new LocalHold.Job("j1", "hotpate r1", state))))
                    .as(state)
                    .isEqualTo(LocalHold.Verdict.RUNNING);
        }
    }

    @Test
    void aJobThatEndedOrIsUnknownToItsJobManagerFreesTheDataset() {
        for (String state : List.of("FINISHED", "CANCELED", "FAILED")) {
            assertThat(
                            LocalHold.verdict(
                                    ON_CLUSTER,
                                    listed(new LocalHold.Job("j1", "hotpate r1", state))))
                    .as(state)
                    .isEqualTo(LocalHold.Verdict.ENDED);
        }
        assertThat(
                        LocalHold.verdict(
                                ON_CLUSTER,
                                listed(new LocalHold.Job("j2", "hotpate r1", "RUNNING"))))
                .as("another job (a later resume of the run) is not this holder's")
                .isEqualTo(LocalHold.Verdict.ENDED);
        assertThat(LocalHold.verdict(ON_CLUSTER, listed())).isEqualTo(LocalHold.Verdict.ENDED);
    }

    @Test
    void aJobManagerThatCannotBeAskedHoldsTheDatasetFailClosed() {
        LocalHold.Verdict v = LocalHold.verdict(ON_CLUSTER, Optional.empty());
        assertThat(v).isEqualTo(LocalHold.Verdict.UNKNOWN);
        assertThat(v.holds()).isTrue();
    }

    @Test
    void anEmbeddedHolderEndedWithItsDriver() {
        assertThat(LocalHold.verdict(LocalHold.Holder.embedded("r1", 42), Optional.empty()))
                .isEqualTo(LocalHold.Verdict.ENDED);
        assertThat(LocalHold.verdict(null, Optional.empty())).isEqualTo(LocalHold.Verdict.ENDED);
    }

    @Test
    void aPendingSubmissionIsFoundByTheRunsJobName() {
        LocalHold.Holder pending = new LocalHold.Holder("r1", 42, LocalHold.PENDING, REST);
        assertThat(
                        LocalHold.verdict(
                                pending,
                                listed(
                                        new LocalHold.Job("j0", "hotpate r0", "RUNNING"),
                                        new LocalHold.Job(
                                                "j9", LocalHold.jobName("r1"), "CREATED"))))
                .isEqualTo(LocalHold.Verdict.RUNNING);
        assertThat(
                        LocalHold.verdict(
                                pending, listed(new LocalHold.Job("j0", "hotpate r0", "RUNNING"))))
                .as("never submitted")
                .isEqualTo(LocalHold.Verdict.ENDED);
        assertThat(LocalHold.verdict(pending, Optional.empty()))
                .isEqualTo(LocalHold.Verdict.UNKNOWN);
    }
}
