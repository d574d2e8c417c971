package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkOpenUnit;

import java.io.Serializable;

/**
 * The public terms of a run's ensemble budget: its own ε ({@code budget.epsilon}; +∞ only for a
 * non-private reference mechanism), its δ, and its dataset's ε over all runs ({@code
 * budget.dataset-epsilon}; +∞ = no dataset cap).
 */
public record BudgetTerms(double epsilon, double delta, double datasetEpsilon)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    public BudgetTerms {
        checkArgument(
                epsilon > 0,
                "budget.epsilon must be > 0 (or .inf, for a non-private run); got " + epsilon);
        checkOpenUnit("budget.delta", delta);
        checkArgument(
                datasetEpsilon > 0,
                "budget.dataset-epsilon must be > 0 (or .inf: no dataset cap); got "
                        + datasetEpsilon);
    }

    /** Whether the run has its own cap (a finite ε). */
    public boolean runCapped() {
        return Double.isFinite(epsilon);
    }

    /** Whether the dataset has a cap over all runs (a finite ε). */
    public boolean datasetCapped() {
        return Double.isFinite(datasetEpsilon);
    }

    /**
     * Whether the dataset {@code p} has a cap: this run asks for one, or an earlier run fixed one
     * (its plan). A cap, once planned, binds every later run — one with {@code
     * budget.dataset-epsilon: .inf} included — or any run could lift it.
     */
    public boolean datasetCapped(DatasetPrior p) {
        return datasetCapped() || p.hasPlan();
    }

    /**
     * Whether this run would plan the dataset's cap after the dataset was already used without one
     * (issue 23): the order and the cap would be chosen after earlier runs' outputs were seen, so
     * the cap would not be a guarantee. A dataset's cap is planned at its first run or never.
     */
    public boolean capPlannedAfterUse(DatasetPrior p) {
        return datasetCapped() && !p.hasPlan() && p.runs() > 0 && !p.nonPrivate();
    }
}
