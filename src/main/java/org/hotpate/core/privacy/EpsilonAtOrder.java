package org.hotpate.core.privacy;

/** A converted ε and the Rényi order that attained it (NaN order when no order is finite). */
public record EpsilonAtOrder(double epsilon, double order) {}
