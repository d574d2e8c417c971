package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;

import java.io.Serializable;
import java.util.Arrays;
import org.hotpate.core.generation.FailPolicy;
import org.hotpate.core.generation.FinishReason;
import org.hotpate.model.StepRef;
import org.hotpate.model.StepResult;

/**
 * The progress of one sequence and the rules that move it (the sequence loop keeps it in keyed
 * state): the released tokens so far, the attempt awaited at the current position, the steps
 * answered, ⊥ results and public fallbacks, and whether it finished.
 *
 * <p>A result for another position or attempt than the awaited one (a duplicate, a superseded
 * attempt — it stays charged) changes nothing. A token is appended; the sequence finishes at the
 * stop token or stop string ({@link StopRule}) or at {@code max-steps}; a token that would end it
 * before {@code generation.min-tokens} tokens counts as a ⊥ ({@link EarlyStop}). A ⊥ follows the
 * {@link FailPolicy}: resample (the next attempt, while ⊥ attempts at the position are below {@code
 * max-attempts}; watchdog re-issues there do not count), fallback (the public model's token, no
 * charge), or stop. A refused release (BUDGET_EXHAUSTED) finishes the sequence and no successor
 * starts: the rest of its chain ends NOT_STARTED ({@link SequenceSchedule}). The watchdog re-issues
 * an awaited step that got no result as the next attempt, and after {@code max-reissues}
 * consecutive re-issues the sequence finishes as NO_QUORUM.
 */
public record SequenceProgress(
        int[] tokens, int attempt, int steps, int fails, int fallbacks, boolean finished)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The run's sequence policy ({@code generation.*}). */
    public record Policy(
            FailPolicy onFail,
            int maxAttempts,
            int maxSteps,
            int maxReissues,
            int concurrency,
            int sequences,
            int minTokens,
            int firstAttempts)
            implements Serializable {
        public Policy {
            checkNotNull("onFail", onFail);
            checkPositive("maxAttempts", maxAttempts);
            checkPositive("firstAttempts", firstAttempts);
            checkPositive("maxSteps", maxSteps);
            checkPositive("concurrency", concurrency);
            checkPositive("sequences", sequences);
            checkArgument(minTokens >= 0, "minTokens must be >= 0; got " + minTokens);
        }

        /** Without {@code generation.min-tokens}. */
        public Policy(
                FailPolicy onFail,
                int maxAttempts,
                int maxSteps,
                int maxReissues,
                int concurrency,
                int sequences) {
            this(
                    onFail,
                    maxAttempts,
                    maxSteps,
                    maxReissues,
                    concurrency,
                    sequences,
                    0,
                    maxAttempts);
        }

        /**
         * ⊥ attempts allowed at {@code position} under resample: {@code first-attempts} at the
         * first position (where a diverse ensemble agrees least), {@code max-attempts} after it.
         */
        public int attemptsAt(int position) {
            return position == 0 ? firstAttempts : maxAttempts;
        }

        /**
         * Which sequences start when, and which never start ({@code sequences}, {@code
         * concurrency}).
         */
        public SequenceSchedule schedule() {
            return new SequenceSchedule(sequences, concurrency);
        }

        /**
         * The sequence that starts when {@code sequenceId} finishes for {@code reason}: {@code
         * sequenceId + concurrency} if there is one, and none after a refused release ({@link
         * SequenceSchedule#successor}).
         */
        public long successor(long sequenceId, FinishReason reason) {
            return schedule().successor(sequenceId, reason);
        }
    }

    /**
     * Whether appending a token ends the sequence (the stop token, or a stop string in the text).
     */
    @FunctionalInterface
    public interface StopRule extends Serializable {
        /** Whether {@code tokens}, whose last token was just appended, end the sequence. */
        boolean stops(int[] tokens);
    }

    /**
     * The public-model token after a ⊥ at {@code failed} ({@code generation.on-fail: fallback}).
     */
    @FunctionalInterface
    public interface Fallback {
        int token(StepRef failed);
    }

    /** What the loop does next. */
    public enum Action {
        /** Nothing: the result or timer is not about the awaited step. */
        NONE,
        /** Issue the awaited step ({@link Next#progress()}'s position and attempt). */
        ISSUE,
        /** Re-issue the awaited position as the watchdog's next attempt. */
        REISSUE,
        /** The sequence finished ({@link Next#reason()}): emit its record, start its successor. */
        FINISH
    }

    /** The progress after a result or a watchdog timer, and what to do. */
    public record Next(SequenceProgress progress, Action action, FinishReason reason) {}

    /** A sequence before its first result. */
    public static SequenceProgress start() {
        return new SequenceProgress(new int[0], 0, 0, 0, 0, false);
    }

    /** The position awaited (the number of tokens so far). */
    public int position() {
        return tokens.length;
    }

    /** Whether {@code s} is the step the sequence awaits (its position and attempt). */
    public boolean awaits(StepRef s) {
        return !finished && s.step() == position() && s.attempt() == attempt;
    }

    /**
     * The next progress after result {@code r}; {@code reissuesHere} are the watchdog's re-issues
     * at the position (they do not count as ⊥ attempts).
     */
    public Next onResult(
            StepResult r, Policy policy, int reissuesHere, StopRule stop, Fallback fallback) {
        if (!awaits(r)) {
            return new Next(this, Action.NONE, null); // a duplicate or stale result
        }
        int answered = steps + 1;
        switch (r.outcome()) {
            case TOKEN:
                if (!endsTooEarly(r.token(), policy, stop)) {
                    return append(r.token(), answered, fails, fallbacks, policy, stop);
                }
                // a stop before generation.min-tokens: the release stays charged, counts as ⊥
                // fall through
            case FAIL:
                if (policy.onFail() == FailPolicy.FALLBACK) {
                    return append(
                            fallback.token(r), answered, fails + 1, fallbacks + 1, policy, stop);
                }
                if (policy.onFail() == FailPolicy.RESAMPLE
                        && r.attempt() - reissuesHere + 1 < policy.attemptsAt(position())) {
                    return new Next(
                            new SequenceProgress(
                                    tokens, r.attempt() + 1, answered, fails + 1, fallbacks, false),
                            Action.ISSUE,
                            null);
                }
                return finish(answered, fails + 1, FinishReason.FAIL_STOP);
            default: // BUDGET_EXHAUSTED: nothing was released; the run is over for this sequence
                return finish(answered, fails, FinishReason.BUDGET_EXHAUSTED);
        }
    }

    /** Whether appending {@code token} would end the sequence before {@code min-tokens}. */
    private boolean endsTooEarly(int token, Policy policy, StopRule stop) {
        if (tokens.length >= policy.minTokens()) {
            return false;
        }
        int[] next = Arrays.copyOf(tokens, tokens.length + 1);
        next[next.length - 1] = token;
        return stop.stops(next);
    }

    private Next append(
            int token, int answered, int failed, int fallen, Policy policy, StopRule stop) {
        int[] next = Arrays.copyOf(tokens, tokens.length + 1);
        next[next.length - 1] = token;
        boolean stopped = stop.stops(next);
        if (stopped || next.length >= policy.maxSteps()) {
            return new Next(
                    new SequenceProgress(next, 0, answered, failed, fallen, true),
                    Action.FINISH,
                    stopped ? FinishReason.STOP_TOKEN : FinishReason.MAX_STEPS);
        }
        return new Next(
                new SequenceProgress(next, 0, answered, failed, fallen, false), Action.ISSUE, null);
    }

    private Next finish(int answered, int failed, FinishReason reason) {
        return new Next(
                new SequenceProgress(tokens, attempt, answered, failed, fallbacks, true),
                Action.FINISH,
                reason);
    }

    /**
     * The watchdog's timer for {@code watched} (its position and attempt), after {@code
     * consecutive} re-issues without any result: nothing if the sequence moved on; NO_QUORUM after
     * {@code max-reissues}; otherwise the same position as the next attempt.
     */
    public Next onWatchdog(StepRef watched, int consecutive, Policy policy) {
        if (!awaits(watched)) {
            return new Next(this, Action.NONE, null);
        }
        if (consecutive >= policy.maxReissues()) {
            return new Next(
                    new SequenceProgress(tokens, attempt, steps, fails, fallbacks, true),
                    Action.FINISH,
                    FinishReason.NO_QUORUM);
        }
        return new Next(
                new SequenceProgress(tokens, watched.attempt() + 1, steps, fails, fallbacks, false),
                Action.REISSUE,
                null);
    }
}
