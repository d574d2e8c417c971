package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.hotpate.model.LedgerEntry;
import org.hotpate.model.LedgerKind;
import org.junit.jupiter.api.Test;

/** Each ledger kind fills its fields and marks the others "not applicable" (−1, NaN). */
class LedgerEntriesTest {
    private static final StepId STEP = new StepId("r", 3, 2, 1);

    @Test
    void aReleaseEntryNamesNoTeacherAndCarriesTheRunsAndTheDatasetsEpsilon() {
        LedgerEntry c =
                LedgerEntries.release(STEP, true, "gnmax", "{}", 0.5, 1e-6, 7, 12, 9, 0.9, 5);
        assertThat(c.kind()).isEqualTo(LedgerKind.CHARGE);
        assertThat(c.teacherId()).isEqualTo(-1);
        assertThat(c.votesCast()).isEqualTo(12);
        assertThat(c.releasedVotes()).isEqualTo(9);
        assertThat(c.datasetEpsilonAfter()).isEqualTo(0.9);
        assertThat(StepId.of(c)).isEqualTo(STEP);
        LedgerEntry refused =
                LedgerEntries.release(STEP, false, "gnmax", "{}", 0.5, 1e-6, 7, 12, 9, 0.9, 5);
        assertThat(refused.kind()).isEqualTo(LedgerKind.REFUSED);
        assertThat(refused.releasedVotes()).as("nothing released").isEqualTo(-1);
    }

    @Test
    void anAbandonedStepHasNoEpsilonAndNoReleases() {
        LedgerEntry a = LedgerEntries.abandoned(STEP, "gnmax", 4, 5);
        assertThat(a.kind()).isEqualTo(LedgerKind.ABANDONED);
        assertThat(a.votesCast()).isEqualTo(4);
        assertThat(a.releases()).isEqualTo(-1);
        assertThat(a.epsilonAfter()).isNaN();
        assertThat(a.datasetEpsilonAfter()).isNaN();
    }

    @Test
    void teacherAndFeedbackEntries() {
        LedgerEntry t =
                LedgerEntries.teacher(
                        LedgerKind.TEACHER_CHARGE, STEP, 9, "scheme-b", 0.7, 1e-6, 2, 5);
        assertThat(t.teacherId()).isEqualTo(9);
        assertThat(t.releases()).isEqualTo(2);
        assertThat(t.votesCast()).isEqualTo(-1);
        LedgerEntry f = LedgerEntries.feedback(STEP, "scheme-a", 3, 0, 5);
        assertThat(f.kind()).isEqualTo(LedgerKind.TEACHER_FEEDBACK);
        assertThat(f.votesCast()).isEqualTo(3);
        assertThat(f.releases()).isZero();
        assertThat(f.teacherId()).isEqualTo(-1);
    }
}
