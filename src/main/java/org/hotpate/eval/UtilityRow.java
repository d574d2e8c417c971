package org.hotpate.eval;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One row of {@code utility.json} (issue 14): the method, the ε it spent, the private tokens and
 * records it produced, and its metrics. {@code accuracy} and {@code canary_exposure} are null when
 * they do not apply (no labels; no canaries planted). {@code fidelity} ({@link Fidelity}: does the
 * text read like the private records rather than the public ones) is null without a public file or
 * for a labeller; {@code non_empty_share} (the share of the requested sequences whose record has at
 * least one private token) is null for methods that do not generate per sequence. Serialised by
 * Jackson with the keys the issue fixes.
 */
public record UtilityRow(
        @JsonProperty("method") String method,
        @JsonProperty("epsilon") double epsilon,
        @JsonProperty("tokens") long tokens,
        @JsonProperty("records") long records,
        @JsonProperty("js_bigram") double jsBigram,
        @JsonProperty("distinct_2") double distinct2,
        @JsonProperty("accuracy") Double accuracy,
        @JsonProperty("canary_exposure") Double canaryExposure,
        @JsonProperty("fidelity") Double fidelity,
        @JsonProperty("non_empty_share") Double nonEmptyShare) {}
