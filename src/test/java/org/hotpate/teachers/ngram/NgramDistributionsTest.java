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

    @Test
    void sharedBackoffNext_equalsTheModelsOwnNext() throws Exception {
        SplittableRandom r = new SplittableRandom(5);
        NgramModel pub = new NgramModel(3, V, EOT, new InMemoryContextStore(), null);
        for (int i = 0; i < 40; i++) {
            pub.add("", random(r, 10, 25));
        }
        for (NgramModel backoff : new NgramModel[] {pub, null}) {
            for (int t = 0; t < 10; t++) {
                NgramModel teacher =
                        new NgramModel(
                                3, V, EOT, new InMemoryContextStore(), backoff, t < 5 ? 1 : 0.4);
                for (int i = 0; i < 1 + t % 3; i++) {
                    int[] rec = random(r, 6, 35);
                    teacher.add("", rec);
                    teacher.add("c1", rec);
                }
                for (int[] h : new int[][] {{}, {2}, {3, 4}, random(r, 5, 30)}) {
                    for (String label : new String[] {"", "c1", "c0"}) {
                        for (int k : new int[] {1, 5, 100}) {
                            NgramModel.Next want = teacher.next(label, h, k);
                            NgramModel.Next got =
                                    NgramDistributions.next(
                                            teacher,
                                            label,
                                            h,
                                            k,
                                            NgramDistributions.SharedBackoff.at(backoff, h, V));
                            assertThat(got.tokens()).containsExactly(want.tokens());
                            for (int i = 0; i < want.probs().length; i++) {
                                assertThat(got.probs()[i])
                                        .isCloseTo(want.probs()[i], within(1e-12));
                            }
                        }
                    }
                }
            }
        }
    }
}
