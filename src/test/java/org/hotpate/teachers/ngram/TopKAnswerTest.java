package org.hotpate.teachers.ngram;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link TopKAnswer} (the walks that score only candidates able to reach the k-th) against the
 * exhaustive definition, bit for bit, on corpora shaped like the records runs': prolific users with
 * skewed (Zipf-like) vocabularies and empty-context counts above {@link TopKAnswer#CAP}, small
 * users, public models with long runs of equally rare tokens, every order, backoff weight and k.
 */
class TopKAnswerTest {

    /** Skewed token ids: small ids are frequent, as words are. */
    private static int zipf(Random rnd, int bound) {
        return Math.min(bound - 1, (int) Math.floor(Math.pow(bound, rnd.nextDouble())) - 1);
    }

    private static int[] record(Random rnd, int bound, int length, boolean skewed) {
        int[] t = new int[length];
        for (int i = 0; i < length; i++) {
            t[i] = skewed ? zipf(rnd, bound) : rnd.nextInt(bound);
        }
        return t;
    }

    @Test
    void answersEqualTheExhaustiveDefinitionOnRecordsLikeCorpora() throws Exception {
        Random rnd = new Random(20261128L);
        int compared = 0;
        for (int trial = 0; trial < 24; trial++) {
            int vocab = new int[] {30, 200, 1500}[trial % 3];
            int eot = vocab - 1;
            int order = 1 + trial % 4;
            NgramModel pub = null;
            if (trial % 4 != 3) {
                pub = new NgramModel(Math.min(order, 2), vocab, eot, store(), null);
                // uniform public text: many tokens seen once (long runs of equal P_pub)
                for (int r = 0; r < 5 + rnd.nextInt(300); r++) {
                    pub.add("", record(rnd, eot, 1 + rnd.nextInt(10), trial % 2 == 0));
                }
            }
            double weight = new double[] {1.0, 0.5, 0.3, 0.05}[trial % 4];
            List<NgramModel> teachers = new ArrayList<>();
            for (int u = 0; u < 6; u++) {
                NgramModel m = new NgramModel(order, vocab, eot, store(), pub, weight);
                // from nothing to a prolific user (counts far above CAP for the frequent ids)
                int records = new int[] {0, 1, 3, 20, 150, 600}[u];
                for (int r = 0; r < records; r++) {
                    m.add(r % 5 == 4 ? "x" : "", record(rnd, eot, 1 + rnd.nextInt(9), u % 2 == 1));
                }
                teachers.add(m);
            }
            for (int q = 0; q < 12; q++) {
                int[] history = record(rnd, vocab, rnd.nextInt(4), q % 2 == 0);
                String label = q % 6 == 5 ? "x" : "";
                for (NgramModel m : teachers) {
                    for (int k : new int[] {1, 3, 16, 64, 400}) {
                        assertSame(m, label, history, k, "trial " + trial);
                        compared++;
                    }
                }
            }
        }
        assertThat(compared).isEqualTo(24 * 12 * 6 * 5);
    }

    /**
     * Tables not built by {@code add} (a longer context's follower with no empty-context count, an
     * empty context with no longer ones, equal counts everywhere): still the exhaustive answer.
     */
    @Test
    void tablesNotBuiltByAddStillAnswerTheExhaustiveDefinition() throws Exception {
        Random rnd = new Random(38L);
        int vocab = 120;
        int compared = 0;
        for (int trial = 0; trial < 40; trial++) {
            NgramModel pub = new NgramModel(2, vocab, vocab - 1, store(), null);
            for (int r = 0; r < 1 + rnd.nextInt(60); r++) {
                pub.add("", record(rnd, vocab - 1, 1 + rnd.nextInt(6), false));
            }
            InMemoryContextStore s = store();
            NgramModel m = new NgramModel(3, vocab, vocab - 1, s, pub, trial % 2 == 0 ? 1 : 0.5);
            int[] history = {rnd.nextInt(vocab - 1), rnd.nextInt(vocab - 1)};
            for (int m0 = 0; m0 < 3; m0++) {
                if (rnd.nextInt(4) == 0) {
                    continue; // this level never seen
                }
                s.put(
                        ContextKey.of("", history, history.length - m0, history.length),
                        randomTable(rnd, vocab, 1 + rnd.nextInt(m0 == 0 ? 100 : 8), trial % 3));
            }
            for (int k : new int[] {1, 2, 7, 64}) {
                assertSame(m, "", history, k, "trial " + trial);
                compared++;
            }
        }
        assertThat(compared).isEqualTo(40 * 4);
    }

    /**
     * An own token whose bound equals the k-th exactly must still be scored: it ties and has the
     * smaller id. Dyadic numbers so the tie is exact: |V| = 32; public unigram 1:9 2:1 3:1 4:1 (c =
     * 12, N1+ = 4, so P_pub(w) = (c_pub(w) + 1/8) / 16); own unigram 4:1 6:2 and fourteen tokens
     * 10..23 once (c = 17, N1+ = 16, so P(w) = (c(w) + c_pub(w) + 1/8) / 33). Token 4 and token 6
     * both score 2.125/33; the public walk stops in the run of P_pub 1.125/16 before token 4, so
     * the own walk meets token 6 (count 2) first and token 4's bound equals the k-th.
     */
    @Test
    void anOwnTokenThatTiesTheKthExactlyIsStillScored() throws Exception {
        InMemoryContextStore pubStore = store();
        pubStore.put(
                ContextKey.of("", new int[0], 0, 0),
                new FollowerTable(new int[] {1, 2, 3, 4}, new int[] {9, 1, 1, 1}, 12));
        NgramModel pub = new NgramModel(1, 32, 31, pubStore, null);
        InMemoryContextStore own = store();
        int[] tokens = new int[16];
        int[] counts = new int[16];
        tokens[0] = 4;
        counts[0] = 1;
        tokens[1] = 6;
        counts[1] = 2;
        for (int i = 2; i < 16; i++) {
            tokens[i] = 8 + i;
            counts[i] = 1;
        }
        own.put(ContextKey.of("", new int[0], 0, 0), new FollowerTable(tokens, counts, 17));
        NgramModel m = new NgramModel(1, 32, 31, own, pub, 1.0);
        assertSame(m, "", new int[0], 2, "tie");
        assertThat(m.next("", new int[0], 2).tokens()).containsExactly(1, 4);
        assertThat(m.next("", new int[0], 2).probs()[1]).isEqualTo(2.125 / 33);
    }

    /**
     * A public-only token that ties the k-th of the candidates scored so far exactly is still taken
     * (it has the smaller id). Dyadic numbers: |V| = 32, public unigram 2:3 (P_pub(2) = (3 +
     * 1/32)/4, P_pub(w) = (1/32)/4 otherwise); own bigram after token 5, followers 6 10 11 12 once
     * each, and the same four once each in the empty context. Token 6 (a longer context's follower,
     * scored first) and public-only token 2 both score 0.189453125.
     */
    @Test
    void aPublicOnlyTokenThatTiesTheKthExactlyIsStillTaken() throws Exception {
        InMemoryContextStore pubStore = store();
        pubStore.put(
                ContextKey.of("", new int[0], 0, 0),
                new FollowerTable(new int[] {2}, new int[] {3}, 3));
        NgramModel pub = new NgramModel(1, 32, 31, pubStore, null);
        InMemoryContextStore own = store();
        FollowerTable once =
                new FollowerTable(new int[] {6, 10, 11, 12}, new int[] {1, 1, 1, 1}, 4);
        own.put(ContextKey.of("", new int[0], 0, 0), once);
        own.put(ContextKey.of("", new int[] {5}, 0, 1), once);
        NgramModel m = new NgramModel(2, 32, 31, own, pub, 1.0);
        assertSame(m, "", new int[] {5}, 1, "tie");
        assertThat(m.next("", new int[] {5}, 2).tokens()).containsExactly(2, 6);
        assertThat(m.next("", new int[] {5}, 2).probs()).containsExactly(0.189453125, 0.189453125);
    }

    private static FollowerTable randomTable(Random rnd, int vocab, int size, int countShape) {
        int[] tokens = rnd.ints(0, vocab).distinct().limit(size).sorted().toArray();
        int[] counts = new int[tokens.length];
        long total = 0;
        for (int i = 0; i < counts.length; i++) {
            counts[i] =
                    countShape == 0 ? 1 : countShape == 1 ? 1 + rnd.nextInt(3) : 1 + zipf(rnd, 500);
            total += counts[i];
        }
        return new FollowerTable(tokens, counts, total);
    }

    private static void assertSame(NgramModel m, String label, int[] history, int k, String what)
            throws Exception {
        NgramModel.Next fast = m.next(label, history, k);
        NgramModel.Next slow = m.nextExhaustive(label, history, k);
        String at = what + " history " + Arrays.toString(history) + " k " + k;
        assertThat(fast.tokens()).as(at).containsExactly(slow.tokens());
        assertThat(fast.probs()).as(at).containsExactly(slow.probs());
    }

    private static InMemoryContextStore store() {
        return new InMemoryContextStore();
    }
}
