package org.hotpate.core.privacy;

import static org.hotpate.core.util.Preconditions.checkArgument;
import static org.hotpate.core.util.Preconditions.checkFinite;
import static org.hotpate.core.util.Preconditions.checkNonNegative;
import static org.hotpate.core.util.Preconditions.checkNotNull;
import static org.hotpate.core.util.Preconditions.checkPositive;
import static org.hotpate.core.util.Preconditions.checkProbability;

import java.util.List;

/**
 * What one release spent, described by the mechanism that made it (STYLE principle 4: mechanism ≠
 * accountant). Accountants compose events and must refuse event types they do not know.
 *
 * <p>An event is a <b>data-independent</b> description: it holds the mechanism's public parameters
 * and, where a mechanism's cost depends on its outcome (Confident-GNMax), only the released
 * outcome. It never carries vote counts or anything else computed from private data, so it may be
 * logged, published and sent between operators. (The data-dependent PATE analysis, which needed the
 * counts, is not an accounting mode any more: docs/privacy-accounting.md.)
 *
 * <p>Neighbouring relation unless an event says otherwise: replace one teacher's data, n fixed and
 * public (PRIVACY.md §0); a vote histogram then has L1 sensitivity 2, L2 sensitivity √2 and its max
 * count sensitivity 1.
 *
 * <p>Serializable: a job carries its mechanism's worst-case event in its operators' settings.
 */
public sealed interface PrivacyEvent extends java.io.Serializable {

    /** Nothing released that depends on private data (e.g. a public-model fallback token). */
    record NoOp() implements PrivacyEvent {}

    /** Several events released together (adaptive composition within one step). */
    record Composed(List<PrivacyEvent> events) implements PrivacyEvent {
        public Composed {
            events = List.copyOf(checkNotNull("events", events));
        }
    }

    /** Gaussian mechanism N(0, σ²) on a query of L2 sensitivity Δ: rdp(α) = αΔ²/(2σ²). */
    record Gaussian(double sigma, double l2Sensitivity) implements PrivacyEvent {
        public Gaussian {
            checkPositive("sigma", sigma);
            checkPositive("l2Sensitivity", l2Sensitivity);
        }
    }

    /** Discrete Gaussian N_Z(0, σ²) on an integer query of L2 sensitivity Δ (CKS 2020). */
    record DiscreteGaussian(double sigma, double l2Sensitivity) implements PrivacyEvent {
        public DiscreteGaussian {
            checkPositive("sigma", sigma);
            checkPositive("l2Sensitivity", l2Sensitivity);
        }
    }

    /** Continuous Laplace with scale b on a query of L1 sensitivity Δ (Mironov 2017, ε = Δ/b). */
    record Laplace(double scale, double l1Sensitivity) implements PrivacyEvent {
        public Laplace {
            checkPositive("scale", scale);
            checkPositive("l1Sensitivity", l1Sensitivity);
        }
    }

    /** An ε-DP release (pure DP), e.g. discrete Laplace with scale t on sensitivity Δ: ε = Δ/t. */
    record PureDp(double epsilon) implements PrivacyEvent {
        public PureDp {
            checkNonNegative("epsilon", epsilon);
        }
    }

    /** An (ε, δ)-DP release with no finer description (e.g. DP weighted sampling). */
    record ApproximateDp(double epsilon, double delta) implements PrivacyEvent {
        public ApproximateDp {
            checkNonNegative("epsilon", epsilon);
            checkProbability("delta", delta);
        }
    }

    /** A (ξ, ρ)-zCDP release: rdp(α) = ξ + ρα. */
    record Zcdp(double xi, double rho) implements PrivacyEvent {
        public Zcdp {
            checkNonNegative("xi", xi);
            checkNonNegative("rho", rho);
        }
    }

    /** Poisson-subsampled Gaussian with sampling rate q and noise multiplier z = σ/Δ. */
    record PoissonSubsampledGaussian(double samplingRate, double noiseMultiplier)
            implements PrivacyEvent {
        public PoissonSubsampledGaussian {
            checkProbability("samplingRate", samplingRate);
            checkPositive("noiseMultiplier", noiseMultiplier);
        }
    }

    /**
     * An RDP bound stated by the mechanism at a finite list of orders: rdp(orders[i]) ≤ rdp[i]
     * (e.g. one PMixED step, Poisson-subsampled by Eq. 12, valid at the integer orders 2..α). The
     * accountant never interpolates: at an order α between listed ones it charges the value at the
     * smallest listed order ≥ α (sound, because RDP is non-decreasing in the order), and above the
     * largest listed order it charges +∞ — the event gives no bound there, so that order can never
     * be the one a conversion uses. {@code mechanism} names the release for reports; it carries no
     * data. Neighbouring relation: the one the producing mechanism states (add/remove for PMixED).
     */
    record TabulatedRdp(String mechanism, double[] orders, double[] rdp) implements PrivacyEvent {
        public TabulatedRdp {
            checkNotNull("mechanism", mechanism);
            checkNotNull("orders", orders);
            checkNotNull("rdp", rdp);
            checkArgument(orders.length > 0, "orders must not be empty");
            checkArgument(
                    orders.length == rdp.length,
                    "orders and rdp must have the same length; got "
                            + orders.length
                            + " and "
                            + rdp.length);
            orders = orders.clone();
            rdp = rdp.clone();
            for (int i = 0; i < orders.length; i++) {
                checkArgument(
                        orders[i] > 1 && Double.isFinite(orders[i]),
                        "orders must be > 1 and finite; got " + orders[i]);
                checkArgument(
                        i == 0 || orders[i] > orders[i - 1],
                        "orders must be strictly ascending; got "
                                + orders[i - Math.min(i, 1)]
                                + " then "
                                + orders[i]);
                checkArgument(rdp[i] >= 0, "rdp values must be >= 0; got " + rdp[i]);
            }
        }

        /** The bound this event gives at {@code order} (see the record's Javadoc); may be +∞. */
        public double rdpAt(double order) {
            for (int i = 0; i < orders.length; i++) {
                if (order <= orders[i]) {
                    return rdp[i];
                }
            }
            return Double.POSITIVE_INFINITY;
        }

        @Override
        public double[] orders() {
            return orders.clone();
        }

        @Override
        public double[] rdp() {
            return rdp.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof TabulatedRdp t
                    && t.mechanism.equals(mechanism)
                    && java.util.Arrays.equals(t.orders, orders)
                    && java.util.Arrays.equals(t.rdp, rdp);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(
                    mechanism, java.util.Arrays.hashCode(orders), java.util.Arrays.hashCode(rdp));
        }

        @Override
        public String toString() {
            return "TabulatedRdp["
                    + mechanism
                    + ", orders="
                    + java.util.Arrays.toString(orders)
                    + ", rdp="
                    + java.util.Arrays.toString(rdp)
                    + "]";
        }
    }

    /**
     * GNMax (PATE 2018): argmax of counts + N(0, σ²) on every token of the vocabulary; rdp(α) =
     * α/σ² (L2 sensitivity √2).
     */
    record Gnmax(double sigma) implements PrivacyEvent {
        public Gnmax {
            checkPositive("sigma", sigma);
        }
    }

    /** LNMax (PATE 2017): argmax of counts + Lap(b) on every token; pure ε = 2/b. */
    record Lnmax(double scale) implements PrivacyEvent {
        public Lnmax {
            checkPositive("scale", scale);
        }
    }

    /**
     * Confident-GNMax (PATE 2018 Alg. 1): threshold step max c + N(0, σ1²) ≥ T (rdp α/(2σ1²)),
     * then, if answered, GNMax with σ2 (rdp α/σ2²). {@code answered} is the released outcome (⊥ or
     * a token), so charging it reveals nothing beyond the release; the step's worst case is {@code
     * answered = true}.
     */
    record ConfidentGnmax(double sigma1, double threshold, double sigma2, boolean answered)
            implements PrivacyEvent {
        public ConfidentGnmax {
            checkPositive("sigma1", sigma1);
            checkFinite("threshold", threshold);
            checkPositive("sigma2", sigma2);
        }
    }

    /**
     * A release of a mechanism with <b>no</b> differential-privacy guarantee (the evaluation
     * references TARGMAX_T and TWS_T). Its cost is +∞ at every order, so a filter with a finite
     * budget never admits it and an accountant that composes it reports ε = ∞.
     */
    record NotPrivate(String mechanism) implements PrivacyEvent {
        public NotPrivate {
            checkNotNull("mechanism", mechanism);
        }
    }
}
