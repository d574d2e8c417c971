package org.hotpate.stream.config;

import org.hotpate.core.accounting.IndividualPlan;
import org.hotpate.protocol.AccountingMode;
import org.hotpate.protocol.BudgetPlan;
import org.hotpate.protocol.IndividualScheme;
import org.hotpate.protocol.PriorPlan;
import org.hotpate.protocol.PublicModel;
import org.hotpate.protocol.RunPlan;

/**
 * Where the stream layer binds a job's configuration to core and the protocol: the run's plan (its
 * mechanism, budget plan, accounting mode and prior), the prior's pre-charge and the public model.
 * Operators receive these objects; they never construct core objects from names themselves.
 */
public final class CoreBindings {
    private CoreBindings() {}

    /**
     * The run's plan ({@link JobConfig#plan}: built once, when the configuration is) from its
     * mechanism configured once ({@link MechanismChoice#resolve}): the budget plan on that
     * mechanism's worst case (what every budget filter admits on), the accounting mode on its
     * per-teacher plan, the prior's plan.
     */
    static RunPlan plan(JobConfig cfg, MechanismChoice.Resolved mechanism) {
        RunPlan.Choice choice = mechanism.choice();
        return new RunPlan(
                choice,
                new BudgetPlan(cfg.budget().terms(), mechanism.worstCase()),
                accountingMode(cfg, choice.perTeacherPlan()),
                priorPlan(cfg));
    }

    /**
     * The population prior's plan ({@code teacher.prior: dp-ngram}), or null: length = the
     * teachers' order.
     */
    static PriorPlan priorPlan(JobConfig cfg) {
        if (!cfg.ensemble().fromRecords() || !cfg.records().teacher().dpPrior()) {
            return null;
        }
        RecordsConfig.Teacher t = cfg.records().teacher();
        return new PriorPlan(t.order(), t.priorPerUser(), t.priorShare());
    }

    /**
     * What the run's filter charges before the first step — the prior's release, once the driver
     * released it ({@code teacher.prior-file} set) — or null. A run whose teachers use no prior is
     * charged none.
     */
    public static PriorPlan preCharge(JobConfig cfg) {
        RunPlan plan = cfg.plan();
        if (plan.prior() == null || cfg.records().teacher().priorFile().isEmpty()) {
            return null;
        }
        return plan.prior(); // RunBudget charges PriorPlan#charge for the run's dataset
    }

    /**
     * The run's per-teacher accounting: a per-teacher scheme (scheme-b charges at the vote,
     * scheme-a on the outcome), a vote cap ({@code budget.per-teacher-votes}), or none.
     */
    static AccountingMode accountingMode(JobConfig cfg, IndividualPlan plan) {
        if (plan != null) {
            IndividualScheme scheme =
                    new IndividualScheme(
                            plan,
                            cfg.budget().targetTeacherDelta(),
                            cfg.ensemble().effectiveVocabulary(),
                            publicModel(cfg.ensemble()));
            return plan.chargesAtVote()
                    ? new AccountingMode.ChargeAtVote(scheme)
                    : new AccountingMode.ChargeOnOutcome(scheme);
        }
        if (cfg.ensemble().heterogeneous() && cfg.budget().perTeacherVotes() > 0) {
            return new AccountingMode.VoteCap(cfg.budget().perTeacherVotes());
        }
        return new AccountingMode.EnsembleOnly();
    }

    /** The ensemble's public model (built where it is used; no private data). */
    public static PublicModel publicModel(JobConfig.Ensemble ensemble) {
        return () -> ensemble.simulated().publicModel();
    }
}
