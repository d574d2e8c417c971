package org.hotpate.core.sampling;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Sparse distributions reject duplicate and negative token ids in any order (the linear set check
 * of unsorted ids), and accept every distinct non-negative list — against a HashSet, on random
 * lists of 1 to 400 ids, clustered ids (colliding slots) included.
 */
class DistinctTokensTest {
    @Test
    void unsortedIdsAreCheckedLikeAHashSet() {
        Random rnd = new Random(38L);
        for (int trial = 0; trial < 3000; trial++) {
            int n = 1 + rnd.nextInt(400);
            int range = new int[] {n, 4 * n, 200_000}[trial % 3];
            int[] tokens = new int[n];
            Set<Integer> seen = new HashSet<>();
            boolean duplicate = false;
            for (int i = 0; i < n; i++) {
                tokens[i] = rnd.nextInt(range);
                duplicate |= !seen.add(tokens[i]);
            }
            if (trial % 7 == 0) {
                tokens[rnd.nextInt(n)] = -1 - rnd.nextInt(5);
            }
            boolean negative = false;
            for (int t : tokens) {
                negative |= t < 0;
            }
            double[] probs = new double[n];
            java.util.Arrays.fill(probs, 1.0 / (n + 1));
            if (negative) {
                assertThatThrownBy(() -> new TeacherDistribution.SparseProbabilities(tokens, probs))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("token ids must be >= 0");
            } else if (duplicate) {
                assertThatThrownBy(() -> new TeacherDistribution.SparseProbabilities(tokens, probs))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("duplicate token");
            } else {
                assertThatCode(() -> new TeacherDistribution.SparseProbabilities(tokens, probs))
                        .doesNotThrowAnyException();
            }
        }
    }
}
