package org.hotpate.core.privacy;

import static org.hotpate.core.util.Preconditions.checkOpenUnit;
import static org.hotpate.core.util.Preconditions.checkPositive;

/** An (ε, δ) budget: ε &gt; 0 finite, 0 &lt; δ &lt; 1. */
public record PrivacyBudget(double epsilon, double delta) implements java.io.Serializable {
    public PrivacyBudget {
        checkPositive("epsilon", epsilon);
        checkOpenUnit("delta", delta);
    }
}
