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
}
