package org.hotpate.teachers.ngram;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * Interpolated Witten–Bell against probabilities computed by hand. Vocabulary 10, end-of-text 9,
 * order 2 (bigrams), records [1 2] and [1 3], padded to [BOS 1 2 EOT] and [BOS 1 3 EOT]:
 *
 * <pre>
 * context ()    : 1:2 2:1 3:1 9:2   c = 6, N1+ = 4
 * context (BOS) : 1:2               c = 2, N1+ = 1
 * context (1)   : 2:1 3:1           c = 2, N1+ = 2
 * context (2)   : 9:1;  context (3): 9:1
 * </pre>
 */
class NgramModelTest {
    private static final double EPS = 1e-12;

    private static NgramModel privateModel(NgramModel backoff) throws Exception {
        NgramModel m = new NgramModel(2, 10, 9, new InMemoryContextStore(), backoff);
        m.add("", new int[] {1, 2});
        m.add("", new int[] {1, 3});
        return m;
    }

    @Test
    void shouldMatchHandComputedProbabilitiesWithUniformBackoff() throws Exception {
        NgramModel m = privateModel(null);
        // P0(1) = (2 + 4·0.1)/(6 + 4) = 0.24;  P(1|BOS) = (2 + 1·0.24)/(2 + 1) = 2.24/3
        assertThat(m.probability("", new int[0], 1)).isCloseTo(2.24 / 3, within(EPS));
        // P0(2) = (1 + 0.4)/10 = 0.14;  P(2|BOS) = (0 + 0.14)/3
        assertThat(m.probability("", new int[0], 2)).isCloseTo(0.14 / 3, within(EPS));
        // P(2|1) = (1 + 2·0.14)/(2 + 2) = 0.32
        assertThat(m.probability("", new int[] {1}, 2)).isCloseTo(0.32, within(EPS));
        // P0(5) = 0.4/10 = 0.04;  P(5|1) = (0 + 2·0.04)/4 = 0.02
        assertThat(m.probability("", new int[] {1}, 5)).isCloseTo(0.02, within(EPS));
        // an unseen context backs off entirely: P(9|7) = P0(9) = (2 + 0.4)/10 = 0.24
        assertThat(m.probability("", new int[] {7}, 9)).isCloseTo(0.24, within(EPS));
        // only the last order-1 tokens matter: P(2 | 5 1) = P(2 | 1)
        assertThat(m.probability("", new int[] {5, 1}, 2)).isCloseTo(0.32, within(EPS));
    }

    @Test
    void shouldSumToOneOverTheVocabulary() throws Exception {
        NgramModel m = privateModel(null);
        for (int[] h : new int[][] {{}, {1}, {2}, {7}}) {
            double sum = 0;
            for (int w = 0; w < 10; w++) {
                sum += m.probability("", h, w);
            }
            assertThat(sum).isCloseTo(1.0, within(1e-12));
        }
    }

    @Test
    void shouldBottomOutInThePublicModel() throws Exception {
        // public model trained on [4]: () 4:1 9:1 (c=2, N1+=2); (BOS) 4:1; (4) 9:1
        NgramModel pub = new NgramModel(2, 10, 9, new InMemoryContextStore(), null);
        pub.add("", new int[] {4});
        // Ppub0(1) = (0 + 2·0.1)/4 = 0.05;  Ppub(1|BOS) = (0 + 1·0.05)/2 = 0.025
        assertThat(pub.probability("", new int[0], 1)).isCloseTo(0.025, within(EPS));
        NgramModel m = privateModel(pub);
        // P0(1) = (2 + 4·0.025)/10 = 0.21;  P(1|BOS) = (2 + 0.21)/3
        assertThat(m.probability("", new int[0], 1)).isCloseTo(2.21 / 3, within(EPS));
        // the public model's tokens become candidates: token 4 is listed after BOS
        NgramModel.Next next = m.next("", new int[0], 10);
        assertThat(next.tokens()).contains(4);
        // and the public store never sees private counts
        assertThat(pub.probability("", new int[0], 2)).isCloseTo(0.05 / 2, within(EPS));
    }

    @Test
    void shouldListTopKCountedTokensAndLeaveTheUniformShareToAbstain() throws Exception {
        NgramModel m = privateModel(null);
        // after 1: P(2)=P(3)=0.32, P(1)=(0+2·0.24)/4=0.12, P(9)=(0+2·0.24)/4=0.12; rest 6 × 0.02
        NgramModel.Next all = m.next("", new int[] {1}, 64);
        assertThat(all.tokens()).containsExactly(2, 3, 1, 9);
        assertThat(all.probs()[0]).isCloseTo(0.32, within(EPS));
        assertThat(all.probs()[3]).isCloseTo(0.12, within(EPS));
        double listed = 0;
        for (double p : all.probs()) {
            listed += p;
        }
        assertThat(listed).isCloseTo(0.88, within(EPS)); // residual 0.12 abstains
        NgramModel.Next top2 = m.next("", new int[] {1}, 2);
        assertThat(top2.tokens()).containsExactly(2, 3);
    }

    @Test
    void shouldKeepLabelsApart() throws Exception {
        NgramModel m = new NgramModel(2, 10, 9, new InMemoryContextStore(), null);
        m.add("ham", new int[] {1});
        m.add("spam", new int[] {2});
        assertThat(m.next("ham", new int[0], 1).tokens()).containsExactly(1);
        assertThat(m.next("spam", new int[0], 1).tokens()).containsExactly(2);
    }

    @Test
    void followerTablesMergeCounts() {
        FollowerTable t = FollowerTable.EMPTY.plus(5, 1).plus(2, 2).plus(5, 1);
        assertThat(t.tokens()).containsExactly(2, 5);
        assertThat(t.counts()).containsExactly(2, 2);
        FollowerTable u = t.plusAll(new int[] {1, 5, 7}, new int[] {1, 3, 1});
        assertThat(u.tokens()).containsExactly(1, 2, 5, 7);
        assertThat(u.counts()).containsExactly(1, 2, 5, 1);
        assertThat(u.total()).isEqualTo(9);
        assertThat(u.distinct()).isEqualTo(4);
    }

    /**
     * The fast top-k (shared public ranking, early stop) equals the exhaustive definition exactly —
     * same tokens, same order, bit-identical probabilities — on random models with many ties (small
     * vocabulary, small counts), with and without a public model, for every k.
     */
    @Test
    void fastTopKEqualsTheExhaustiveDefinition() throws Exception {
        java.util.Random rnd = new java.util.Random(20260101L);
        int vocab = 40;
        int eot = 39;
        int compared = 0;
        for (int trial = 0; trial < 30; trial++) {
            int order = 1 + rnd.nextInt(4);
            NgramModel pub = null;
            if (trial % 3 != 0) {
                pub = new NgramModel(order, vocab, eot, new InMemoryContextStore(), null);
                for (int r = 0; r < 1 + rnd.nextInt(40); r++) {
                    pub.add("", randomTokens(rnd, vocab - 1, 1 + rnd.nextInt(8)));
                }
            }
            double weight = new double[] {1.0, 0.5, 0.3}[trial % 3];
            NgramModel m =
                    new NgramModel(order, vocab, eot, new InMemoryContextStore(), pub, weight);
            for (int r = 0; r < rnd.nextInt(6); r++) {
                m.add(r % 2 == 0 ? "" : "x", randomTokens(rnd, vocab - 1, 1 + rnd.nextInt(6)));
            }
            for (int q = 0; q < 20; q++) {
                int[] history = randomTokens(rnd, vocab, rnd.nextInt(5));
                String label = q % 4 == 0 ? "x" : "";
                for (int k : new int[] {1, 2, 3, 5, 8, 64}) {
                    NgramModel.Next fast = m.next(label, history, k);
                    NgramModel.Next slow = m.nextExhaustive(label, history, k);
                    assertThat(fast.tokens())
                            .as(
                                    "trial %d history %s k %d",
                                    trial, java.util.Arrays.toString(history), k)
                            .containsExactly(slow.tokens());
                    assertThat(fast.probs()).containsExactly(slow.probs());
                    compared++;
                }
            }
        }
        assertThat(compared).isEqualTo(30 * 20 * 6);
    }

    /**
     * The public side of a context is cached on the public model and shared by every private model
     * backing off to it: interleaved teachers each still answer their own exhaustive definition,
     * and a public model that learns more after a view was built is read again.
     */
    @Test
    void teachersSharingOneBackoffEachAnswerTheirExhaustiveDefinition() throws Exception {
        java.util.Random rnd = new java.util.Random(7L);
        int vocab = 60;
        int eot = 59;
        NgramModel pub = new NgramModel(2, vocab, eot, new InMemoryContextStore(), null);
        for (int r = 0; r < 50; r++) {
            pub.add("", randomTokens(rnd, vocab - 1, 1 + rnd.nextInt(9)));
        }
        java.util.List<NgramModel> teachers = new java.util.ArrayList<>();
        for (int t = 0; t < 6; t++) {
            NgramModel m =
                    new NgramModel(3, vocab, eot, new InMemoryContextStore(), pub, t < 3 ? 1 : 0.5);
            for (int r = 0; r < 1 + t; r++) {
                m.add("", randomTokens(rnd, vocab - 1, 1 + rnd.nextInt(6)));
            }
            teachers.add(m);
        }
        int compared = 0;
        for (int round = 0; round < 2; round++) {
            for (int q = 0; q < 15; q++) {
                int[] history = randomTokens(rnd, vocab - 1, rnd.nextInt(4));
                for (NgramModel m : teachers) {
                    NgramModel.Next fast = m.next("", history, 64);
                    assertThat(fast.tokens())
                            .containsExactly(m.nextExhaustive("", history, 64).tokens());
                    assertThat(fast.probs())
                            .containsExactly(m.nextExhaustive("", history, 64).probs());
                    compared++;
                }
            }
            // the public model learns a new token after every view above was built
            pub.add("", new int[] {vocab - 2, vocab - 2, vocab - 2});
        }
        assertThat(compared).isEqualTo(2 * 15 * 6);
        assertThat(teachers.get(0).next("", new int[] {vocab - 2}, 64).tokens())
                .contains(vocab - 2);
    }

    /**
     * With backoff weight γ the model keeps its own counts' mass and hands the backoff only γ of
     * its share: Σ_w P(w | h) = 1 − (1 − γ)·Π d/(t + d) over the non-empty levels, and the unlisted
     * remainder abstains.
     */
    @Test
    void backoffWeightScalesOnlyThePublicShare() throws Exception {
        NgramModel pub = new NgramModel(2, 10, 9, new InMemoryContextStore(), null);
        pub.add("", new int[] {1, 2, 3});
        pub.add("", new int[] {2, 2, 4});
        for (double gamma : new double[] {1.0, 0.5, 0.2}) {
            NgramModel m = new NgramModel(2, 10, 9, new InMemoryContextStore(), pub, gamma);
            m.add("", new int[] {5, 6});
            for (int[] h : new int[][] {{}, {5}, {7}}) {
                double sum = 0;
                for (int w = 0; w < 10; w++) {
                    sum += m.probability("", h, w);
                }
                double backoffShare = 1;
                for (FollowerTable t : m.tables("", h)) {
                    if (t.total() > 0) {
                        backoffShare *= t.distinct() / (double) (t.total() + t.distinct());
                    }
                }
                assertThat(sum).isCloseTo(1 - (1 - gamma) * backoffShare, within(1e-12));
            }
        }
        assertThatThrownBy(() -> new NgramModel(2, 10, 9, new InMemoryContextStore(), pub, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("teacher.public-weight");
    }

    /** A public model trained after a private model answered is seen by the next answer. */
    @Test
    void aChangedPublicModelIsNotServedFromTheCache() throws Exception {
        NgramModel pub = new NgramModel(2, 10, 9, new InMemoryContextStore(), null);
        pub.add("", new int[] {4});
        NgramModel m = privateModel(pub);
        assertThat(m.next("", new int[] {1}, 10).tokens()).doesNotContain(6);
        pub.add("", new int[] {6, 6, 6});
        assertThat(m.next("", new int[] {1}, 10).tokens()).contains(6);
    }

    private static int[] randomTokens(java.util.Random rnd, int bound, int n) {
        int[] t = new int[n];
        for (int i = 0; i < n; i++) {
            t[i] = rnd.nextInt(bound);
        }
        return t;
    }
}
