package org.hotpate.protocol;

import org.hotpate.core.privacy.PrivacyEvent;
import org.hotpate.model.Outcome;
import org.hotpate.model.StepRef;
import org.hotpate.model.StepResult;

/**
 * The accountant's rule for one release candidate: charge before emit. A candidate is charged to
 * the run's budget ({@link RunBudget#admit}: admitted on the mechanism's worst case, charged with
 * its realized event) unless the run is already exhausted — a refusal is final: every later
 * candidate of the run is refused too (hard stop). Only a charged candidate's token, public event
 * and noisy count become visible; a refused one is a BUDGET_EXHAUSTED result with nothing of it.
 *
 * @param runEpsilon the run's ε after the decision (+∞ for a non-private run)
 * @param datasetEpsilon the dataset's ε over all runs after it (+∞ for a non-private run)
 */
public record Admission(boolean charged, double runEpsilon, double datasetEpsilon) {

    /** The decision on {@code realized} for a run that is {@code exhausted} or not. */
    public static Admission decide(
            RunBudget budget,
            boolean exhausted,
            PrivacyEvent realized,
            boolean differentiallyPrivate) {
        boolean charged = !exhausted && budget.admit(realized);
        return new Admission(
                charged,
                differentiallyPrivate ? budget.runEpsilon() : Double.POSITIVE_INFINITY,
                differentiallyPrivate ? budget.datasetEpsilon() : Double.POSITIVE_INFINITY);
    }

    /** TOKEN or FAIL (⊥) when charged, else BUDGET_EXHAUSTED. */
    public Outcome outcome(int token) {
        return !charged ? Outcome.BUDGET_EXHAUSTED : token >= 0 ? Outcome.TOKEN : Outcome.FAIL;
    }

    /**
     * The public result of the step: only released or public values — the outcome, the token and
     * the public part of the event and the noisy count if charged, the run's ε and n.
     */
    public StepResult result(
            StepRef step,
            int token,
            String mechanism,
            String publicEvent,
            double noisyCount,
            int teachers) {
        return new StepResult(
                step.runId(),
                step.sequenceId(),
                step.step(),
                step.attempt(),
                outcome(token),
                charged ? token : -1,
                mechanism,
                charged ? publicEvent : "",
                runEpsilon,
                charged ? noisyCount : Double.NaN,
                teachers);
    }
}
