package org.hotpate.core.accounting;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkNotNull;

import org.hotpate.core.privacy.Conversion;
import org.hotpate.core.privacy.OrderGrid;
import org.hotpate.core.privacy.PrivacyBudget;

/**
 * Planning of {@link EnsembleBudgetFilter.Config}: which order of the grid, and which δ share,
 * admit the most releases of a given worst-case cost. Inputs are public, so the plan is
 * data-independent and can be fixed before the run (see {@link EnsembleBudgetFilter}).
 */
final class FilterPlanning {
    private FilterPlanning() {}

    /**
     * The order (of the grid) and δ share that admit the most releases of the given worst-case
     * cost; ties go to the order with the smaller ε after that many releases, then to the smaller
     * order. The inputs are public, so the plan is data-independent.
     */
    static EnsembleBudgetFilter.Config plan(
            PrivacyBudget budget,
            OrderGrid grid,
            Conversion conversion,
            double[] rdpPerRelease,
            double deltaPerRelease) {
        checkNotNull("grid", grid);
        EnsembleBudgetFilter.Config best = null;
        long bestN = -1;
        double bestEps = Double.POSITIVE_INFINITY;
        for (int i = 0; i < grid.size(); i++) {
            EnsembleBudgetFilter.Config c =
                    planAtOrder(
                            budget,
                            grid,
                            conversion,
                            grid.order(i),
                            rdpPerRelease,
                            deltaPerRelease);
            long n = maxReleases(c, rdpPerRelease, deltaPerRelease);
            double e =
                    EnsembleBudgetFilter.epsilonAfter(
                                    c, rdpPerRelease, deltaPerRelease, Math.max(n, 1))
                            .epsilon();
            if (n > bestN || (n == bestN && e < bestEps)) {
                best = c;
                bestN = n;
                bestEps = e;
            }
        }
        return best;
    }

    /**
     * The largest N such that N releases of the given cost fit at {@code config}'s fixed order and
     * δ share ({@link EnsembleBudgetFilter#maxReleases(EnsembleBudgetFilter.Config, double[],
     * double)}).
     */
    static long maxReleases(
            EnsembleBudgetFilter.Config config, double[] rdpPerRelease, double deltaPerRelease) {
        checkNotNull("config", config);
        checkNotNull("rdpPerRelease", rdpPerRelease);
        checkArgument(
                rdpPerRelease.length == config.grid().size(), "rdpPerRelease must match the grid");
        double r = rdpPerRelease[config.orderIndex()];
        double b = config.rdpBudget();
        long n = EnsembleBudgetFilter.MAX_RELEASES;
        if (r > 0) {
            n = b < 0 ? 0 : (long) Math.min(EnsembleBudgetFilter.MAX_RELEASES, Math.floor(b / r));
            while (n > 0 && n * r > b) {
                n--;
            }
            while (n < EnsembleBudgetFilter.MAX_RELEASES && (n + 1) * r <= b) {
                n++;
            }
        } else if (!(r == 0 && 0 <= b)) {
            return 0; // NaN/∞ cost, or nothing fits
        }
        if (deltaPerRelease > 0) {
            long nd =
                    (long)
                            Math.min(
                                    EnsembleBudgetFilter.MAX_RELEASES,
                                    Math.floor(config.approxDeltaShare() / deltaPerRelease));
            while (nd > 0 && nd * deltaPerRelease > config.approxDeltaShare()) {
                nd--;
            }
            n = Math.min(n, nd);
        }
        return n;
    }

    /**
     * The δ share at a given order that admits the most releases of the given cost: 0 when releases
     * have no δ part, else N·δ·(1 + 10⁻⁶) for the largest feasible N (the slack absorbs the
     * rounding of the running Σδ). Used for a dataset's first use, whose order is the first run's.
     */
    static EnsembleBudgetFilter.Config planAtOrder(
            PrivacyBudget budget,
            OrderGrid grid,
            Conversion conversion,
            double order,
            double[] rdpPerRelease,
            double deltaPerRelease) {
        checkNotNull("budget", budget);
        checkNotNull("grid", grid);
        checkNotNull("rdpPerRelease", rdpPerRelease);
        checkArgument(rdpPerRelease.length == grid.size(), "rdpPerRelease must match the grid");
        checkArgument(
                deltaPerRelease >= 0 && deltaPerRelease <= 1,
                "deltaPerRelease must be in [0, 1]; got " + deltaPerRelease);
        if (deltaPerRelease == 0) {
            return new EnsembleBudgetFilter.Config(budget, grid, conversion, order, 0);
        }
        double r = rdpPerRelease[EnsembleBudgetFilter.Config.indexOf(grid, order)];
        long lo = 0;
        long hi = 1;
        while (hi <= EnsembleBudgetFilter.MAX_RELEASES
                && fitsWithShare(budget, grid, conversion, order, r, deltaPerRelease, hi)) {
            lo = hi;
            hi *= 2;
        }
        while (hi - lo > 1) {
            long mid = lo + (hi - lo) / 2;
            if (fitsWithShare(budget, grid, conversion, order, r, deltaPerRelease, mid)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return new EnsembleBudgetFilter.Config(
                budget, grid, conversion, order, share(lo, deltaPerRelease));
    }

    private static double share(long n, double deltaPerRelease) {
        return n * deltaPerRelease * (1 + 1e-6);
    }

    private static boolean fitsWithShare(
            PrivacyBudget budget,
            OrderGrid grid,
            Conversion conversion,
            double order,
            double rdpPerRelease,
            double deltaPerRelease,
            long n) {
        double share = share(n, deltaPerRelease);
        if (!(share < budget.delta())) {
            return false;
        }
        EnsembleBudgetFilter.Config c =
                new EnsembleBudgetFilter.Config(budget, grid, conversion, order, share);
        return n * rdpPerRelease <= c.rdpBudget();
    }
}
