package org.hotpate.protocol;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkState;

import java.io.Serializable;
import org.hotpate.core.accounting.EnsembleBudgetFilter;
import org.hotpate.core.prior.DpNgramExtraction;
import org.hotpate.core.privacy.PrivacyEvent;

/**
 * The population prior a records run releases before its first step ({@code teacher.prior:
 * dp-ngram}): a DP n-gram table ({@link DpNgramExtraction}) that every teacher then backs off to.
 * Planned from public inputs only — the run's {@link BudgetPlan} (its terms and the mechanism's
 * worst case) fixes the run filter's order α and its Rényi budget B (as if there were no prior);
 * the prior spends {@code share}·B at α (σ² = α·length·k / (share·B)) and a δ term of at most δ/20
 * (its threshold ρ is the smallest that keeps it so). The run's filter charges the prior's event
 * before anything else ({@link RunBudget}), so the run's (ε, δ) covers the prior and every release
 * after it: adaptive composition in one Rényi filter (Feldman &amp; Zrnic 2021, Thm 3.1, the filter
 * the run already keeps), plus the δ term (docs/proofs/dp-ngram-prior.md).
 *
 * @param length the longest n-gram (the teachers' order)
 * @param perUser k, the distinct n-grams of each length a user contributes
 * @param share the share of B the prior spends, in (0, 1)
 */
public record PriorPlan(int length, int perUser, double share) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The share of δ the prior's δ term may use. */
    public static final double DELTA_SHARE = 1.0 / 20;

    public PriorPlan {
        checkArgument(
                share > 0 && share < 1, "teacher.prior-share must be in (0, 1); got " + share);
        checkArgument(perUser >= 1, "teacher.prior-per-user must be >= 1; got " + perUser);
        checkArgument(length >= 1 && length <= 8, "prior length must be in [1, 8]; got " + length);
    }

    /** The extraction this run releases on a dataset no capped run planned ({@link #claim}). */
    public DpNgramExtraction extraction(BudgetPlan budget) {
        return extraction(budget, null);
    }

    /**
     * The extraction this run releases (its σ, ρ and k), for these public inputs: ρ keeps the δ
     * term at the claim's ε ({@link #claim}) at or below δ/20. {@code dataset}: the earlier runs
     * (their plan fixes the dataset's cap); null: none.
     */
    public DpNgramExtraction extraction(BudgetPlan budget, DatasetPrior dataset) {
        BudgetTerms terms = budget.terms();
        EnsembleBudgetFilter.Config c = budget.runConfig();
        checkState(
                c != null, "a population prior needs a finite budget.epsilon and a DP mechanism");
        return DpNgramExtraction.plan(
                length,
                perUser,
                c.order(),
                share * c.rdpBudget(),
                claim(terms, dataset),
                terms.delta() * DELTA_SHARE);
    }

    /**
     * The ε at which the run charges the prior's δ term (1 + e^ε)·η: the largest ε claimed for
     * anything the prior's data is in — the run's budget.epsilon, or the dataset's cap when the
     * dataset has one (its filter then charges the same term; the dataset never ends above its
     * cap). Without a cap the dataset's own term is composed at its ε over every run ({@link
     * DatasetPrior#epsilon}), not here.
     */
    public static double claim(BudgetTerms terms, DatasetPrior dataset) {
        double e = terms.epsilon();
        if (dataset != null && dataset.hasPlan()) {
            return Math.max(e, dataset.plan()[0]);
        }
        return terms.datasetCapped() ? Math.max(e, terms.datasetEpsilon()) : e;
    }

    /** What the release costs on a dataset no capped run planned ({@link #charge}). */
    public PrivacyEvent event(BudgetPlan budget) {
        return charge(budget, null).event();
    }

    /**
     * What the release costs: the run filter (and the dataset's, with a cap) charges {@link
     * Charge#event()} first; the ledger records {@link Charge#slack()} (η) beside the RDP.
     */
    public Charge charge(BudgetPlan budget, DatasetPrior dataset) {
        DpNgramExtraction x = extraction(budget, dataset);
        double e = claim(budget.terms(), dataset);
        return new Charge(
                x.event(e),
                x.thresholdSlack(),
                DpNgramExtraction.couplingDelta(e, x.thresholdSlack()));
    }

    /**
     * The prior's charge: its event (the levels' Gaussians and the δ term {@code coupling} = (1 +
     * e^claim)·η), and η itself ({@code slack}).
     */
    public record Charge(PrivacyEvent event, double slack, double coupling)
            implements Serializable {
        private static final long serialVersionUID = 1L;
    }
}
