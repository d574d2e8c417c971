package org.hotpate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.hotpate.core.generation.FailPolicy;
import org.hotpate.core.generation.FinishReason;
import org.hotpate.model.Outcome;
import org.hotpate.model.StepResult;
import org.junit.jupiter.api.Test;

/** A sequence's progress under the ⊥ policy, the stop rule and the watchdog. */
class SequenceProgressTest {
    private static final SequenceProgress.StopRule STOP_AT_9 = t -> t[t.length - 1] == 9;
    private static final SequenceProgress.Fallback FALLBACK_7 = failed -> 7;

    private static SequenceProgress.Policy policy(FailPolicy onFail) {
        return new SequenceProgress.Policy(onFail, 2, 3, 2, 4, 10);
    }

    private static StepResult result(int step, int attempt, Outcome o, int token) {
        return new StepResult("r", 0, step, attempt, o, token, "m", "", 0.1, Double.NaN, 3);
    }

    private static SequenceProgress.Next on(
            SequenceProgress p, StepResult r, FailPolicy onFail, int reissuesHere) {
        return p.onResult(r, policy(onFail), reissuesHere, STOP_AT_9, FALLBACK_7);
    }

    @Test
    void tokensAppendUntilMaxStepsOrTheStopRule() {
        SequenceProgress p = SequenceProgress.start();
        SequenceProgress.Next n = on(p, result(0, 0, Outcome.TOKEN, 4), FailPolicy.STOP, 0);
        assertThat(n.action()).isEqualTo(SequenceProgress.Action.ISSUE);
        assertThat(n.progress().tokens()).containsExactly(4);
        n = on(n.progress(), result(1, 0, Outcome.TOKEN, 5), FailPolicy.STOP, 0);
        n = on(n.progress(), result(2, 0, Outcome.TOKEN, 6), FailPolicy.STOP, 0);
        assertThat(n.action()).isEqualTo(SequenceProgress.Action.FINISH);
        assertThat(n.reason()).isEqualTo(FinishReason.MAX_STEPS);
        assertThat(n.progress().finished()).isTrue();
        assertThat(n.progress().steps()).isEqualTo(3);
        SequenceProgress.Next stop =
                on(SequenceProgress.start(), result(0, 0, Outcome.TOKEN, 9), FailPolicy.STOP, 0);
        assertThat(stop.reason()).isEqualTo(FinishReason.STOP_TOKEN);
    }

    @Test
    void aResultForAnotherPositionOrAttemptChangesNothing() {
        SequenceProgress p = SequenceProgress.start();
        assertThat(on(p, result(1, 0, Outcome.TOKEN, 4), FailPolicy.STOP, 0).action())
                .isEqualTo(SequenceProgress.Action.NONE);
        assertThat(on(p, result(0, 1, Outcome.TOKEN, 4), FailPolicy.STOP, 0).action())
                .isEqualTo(SequenceProgress.Action.NONE);
        SequenceProgress done =
                on(p, result(0, 0, Outcome.TOKEN, 9), FailPolicy.STOP, 0).progress();
        assertThat(on(done, result(1, 0, Outcome.TOKEN, 4), FailPolicy.STOP, 0).action())
                .as("a finished sequence")
                .isEqualTo(SequenceProgress.Action.NONE);
    }

    @Test
    void bottomFollowsThePolicy() {
        SequenceProgress p = SequenceProgress.start();
        SequenceProgress.Next stop = on(p, result(0, 0, Outcome.FAIL, -1), FailPolicy.STOP, 0);
        assertThat(stop.reason()).isEqualTo(FinishReason.FAIL_STOP);
        assertThat(stop.progress().fails()).isEqualTo(1);

        SequenceProgress.Next fallback =
                on(p, result(0, 0, Outcome.FAIL, -1), FailPolicy.FALLBACK, 0);
        assertThat(fallback.progress().tokens()).containsExactly(7);
        assertThat(fallback.progress().fallbacks()).isEqualTo(1);
        assertThat(fallback.progress().fails()).isEqualTo(1);

        SequenceProgress.Next again = on(p, result(0, 0, Outcome.FAIL, -1), FailPolicy.RESAMPLE, 0);
        assertThat(again.action()).isEqualTo(SequenceProgress.Action.ISSUE);
        assertThat(again.progress().attempt()).isEqualTo(1);
        SequenceProgress.Next out =
                on(again.progress(), result(0, 1, Outcome.FAIL, -1), FailPolicy.RESAMPLE, 0);
        assertThat(out.reason()).as("max-attempts 2 used").isEqualTo(FinishReason.FAIL_STOP);
        SequenceProgress.Next reissued =
                on(again.progress(), result(0, 1, Outcome.FAIL, -1), FailPolicy.RESAMPLE, 1);
        assertThat(reissued.action())
                .as("a watchdog re-issue at the position is not a ⊥ attempt")
                .isEqualTo(SequenceProgress.Action.ISSUE);
    }

    @Test
    void aRefusedReleaseFinishesTheSequenceAndStartsNoSuccessor() {
        SequenceProgress.Next n =
                on(
                        SequenceProgress.start(),
                        result(0, 0, Outcome.BUDGET_EXHAUSTED, -1),
                        FailPolicy.RESAMPLE,
                        0);
        assertThat(n.reason()).isEqualTo(FinishReason.BUDGET_EXHAUSTED);
        SequenceProgress.Policy p = policy(FailPolicy.RESAMPLE);
        assertThat(p.successor(3, FinishReason.BUDGET_EXHAUSTED)).isEqualTo(-1);
        assertThat(p.successor(3, FinishReason.MAX_STEPS)).isEqualTo(7);
        assertThat(p.successor(6, FinishReason.MAX_STEPS)).as("only 10 sequences").isEqualTo(-1);
    }

    @Test
    void theWatchdogReissuesTheAwaitedStep_andGivesUpAsNoQuorum() {
        SequenceProgress p = SequenceProgress.start();
        SequenceProgress.Policy policy = policy(FailPolicy.RESAMPLE);
        SequenceProgress.Next r = p.onWatchdog(new StepId("r", 0, 0, 0), 0, policy);
        assertThat(r.action()).isEqualTo(SequenceProgress.Action.REISSUE);
        assertThat(r.progress().attempt()).isEqualTo(1);
        assertThat(r.progress().onWatchdog(new StepId("r", 0, 0, 0), 1, policy).action())
                .as("the sequence moved on")
                .isEqualTo(SequenceProgress.Action.NONE);
        SequenceProgress.Next give = r.progress().onWatchdog(new StepId("r", 0, 0, 1), 2, policy);
        assertThat(give.reason()).isEqualTo(FinishReason.NO_QUORUM);
        assertThat(give.progress().finished()).isTrue();
    }

    /** generation.first-attempts: more ⊥ attempts at the first position, max-attempts after. */
    @Test
    void theFirstPositionHasItsOwnAttempts() {
        SequenceProgress.Policy p =
                new SequenceProgress.Policy(FailPolicy.RESAMPLE, 2, 5, 2, 4, 10, 0, 4);
        assertThat(p.attemptsAt(0)).isEqualTo(4);
        assertThat(p.attemptsAt(1)).isEqualTo(2);
        SequenceProgress s = SequenceProgress.start();
        for (int a = 0; a < 3; a++) {
            SequenceProgress.Next n =
                    s.onResult(result(0, a, Outcome.FAIL, -1), p, 0, STOP_AT_9, FALLBACK_7);
            assertThat(n.action()).as("attempt %d", a).isEqualTo(SequenceProgress.Action.ISSUE);
            s = n.progress();
        }
        assertThat(s.onResult(result(0, 3, Outcome.FAIL, -1), p, 0, STOP_AT_9, FALLBACK_7).reason())
                .isEqualTo(FinishReason.FAIL_STOP);
        SequenceProgress one =
                SequenceProgress.start()
                        .onResult(result(0, 0, Outcome.TOKEN, 4), p, 0, STOP_AT_9, FALLBACK_7)
                        .progress();
        SequenceProgress.Next later =
                one.onResult(result(1, 0, Outcome.FAIL, -1), p, 0, STOP_AT_9, FALLBACK_7);
        assertThat(later.action()).isEqualTo(SequenceProgress.Action.ISSUE);
        assertThat(
                        later.progress()
                                .onResult(
                                        result(1, 1, Outcome.FAIL, -1), p, 0, STOP_AT_9, FALLBACK_7)
                                .reason())
                .as("max-attempts after the first position")
                .isEqualTo(FinishReason.FAIL_STOP);
    }
}
