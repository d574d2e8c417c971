package org.hotpate.teachers.ngram;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NgramDistributionsTest {
    private static final int V = 40;
    private static final int EOT = 39;

    private static int[] random(SplittableRandom r, int len, int alphabet) {
        int[] t = new int[len];
        for (int i = 0; i < len; i++) {
            t[i] = r.nextInt(alphabet);
        }
        return t;
    }

    @Test
    void denseEqualsProbabilityTokenByToken_andSumsToOne() throws Exception {
        SplittableRandom r = new SplittableRandom(3);
        NgramModel pub = new NgramModel(3, V, EOT, new InMemoryContextStore(), null);
        for (int i = 0; i < 30; i++) {
            pub.add("", random(r, 8, 20));
        }
        for (int[] h : new int[][] {{}, {1}, {4, 5}, {7, 8, 9}}) {
            double[] d = NgramDistributions.dense(pub, "", h, V);
            double sum = 0;
            for (int w = 0; w < V; w++) {
                assertThat(d[w]).isCloseTo(pub.probability("", h, w), within(1e-12));
                sum += d[w];
            }
            assertThat(sum).isCloseTo(1, within(1e-9));
        }
    }
}
