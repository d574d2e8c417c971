package org.hotpate.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** js_bigram, distinct_2, the embedding, classifier accuracy and the utility row, by hand. */
class TextMetricsTest {
    @Test
    void jsBigram_identicalIsZero_disjointIsOne_handExampleIsHalf() {
        List<int[]> a = List.of(new int[] {0, 1, 2}, new int[] {5, 6});
        assertThat(TextMetrics.jsBigram(a, a)).isZero();
        assertThat(TextMetrics.jsBigram(a, List.of(new int[] {7, 8, 9}))).isEqualTo(1.0);
        // A: (0,1) ½, (1,2) ½; B: (0,1) ½, (1,3) ½; M: ½, ¼, ¼ → each KL = ½·log2(2) = ½
        assertThat(TextMetrics.jsBigram(List.of(new int[] {0, 1, 2}), List.of(new int[] {0, 1, 3})))
                .isCloseTo(0.5, within(1e-12));
        // bigrams never cross texts: [0],[1] has none
        assertThat(TextMetrics.jsBigram(List.of(new int[] {0}, new int[] {1}), a)).isEqualTo(1.0);
    }

    @Test
    void jsBigram_emptySets() {
        assertThat(TextMetrics.jsBigram(List.of(), List.of())).isZero();
        assertThat(TextMetrics.jsBigram(List.of(), List.of(new int[] {1, 2}))).isEqualTo(1.0);
        assertThat(TextMetrics.jsBigram(List.of(new int[] {1, 2}), List.of(new int[0])))
                .isEqualTo(1.0);
    }

    @Test
    void distinct2_handExample() {
        // (0,1), (1,0), (0,1): 2 distinct of 3
        assertThat(TextMetrics.distinct2(List.of(new int[] {0, 1, 0, 1})))
                .isCloseTo(2.0 / 3, within(1e-12));
        assertThat(TextMetrics.distinct2(List.of(new int[] {4, 5}, new int[] {4, 5})))
                .isEqualTo(0.5);
        assertThat(TextMetrics.distinct2(List.of(new int[] {4}))).isZero();
        assertThat(TextMetrics.distinct2(List.of())).isZero();
    }

    @Test
    void embedding_isDeterministicNormalisedAndSimilarForSimilarText() {
        TextEmbedding e = new TextEmbedding(256);
        double[] a = e.embed("Cheap meds, buy now!");
        double[] b = e.embed("cheap MEDS buy now");
        double[] c = e.embed("Meeting notes for the quarterly review");
        assertThat(a).containsExactly(b);
        double n = 0;
        for (double x : a) {
            n += x * x;
        }
        assertThat(n).isCloseTo(1, within(1e-12));
        assertThat(org.hotpate.core.util.Vectors.cosine(a, e.embed("buy cheap meds now")))
                .isGreaterThan(org.hotpate.core.util.Vectors.cosine(a, c));
        assertThat(e.embed("!!! ...")).containsOnly(0.0);
        assertThat(TextEmbedding.words("Hello, World 42x"))
                .containsExactly("hello", "world", "42x");
        // FNV-1a 64 known answers
        assertThat(TextEmbedding.fnv1a64("")).isEqualTo(0xcbf29ce484222325L);
        assertThat(TextEmbedding.fnv1a64("a")).isEqualTo(0xaf63dc4c8601ec8cL);
    }

    @Test
    void classifierAccuracy_andNullWithoutLabels() {
        List<int[]> train = List.of(new int[] {0, 0}, new int[] {1, 1});
        List<int[]> test = List.of(new int[] {0}, new int[] {1}, new int[] {0, 1, 1});
        assertThat(ClassifierAccuracy.of(train, new int[] {0, 1}, test, new int[] {0, 1, 0}, 2, 2))
                .isCloseTo(2.0 / 3, within(1e-12));
        assertThat(ClassifierAccuracy.of(train, null, test, new int[] {0, 1, 0}, 2, 2)).isNull();
        assertThat(ClassifierAccuracy.of(List.of(), new int[0], test, new int[] {0, 1, 0}, 2, 2))
                .isNull();
    }

    @Test
    void utilityRow_usesTheIssuesJsonKeys() throws Exception {
        String json =
                new ObjectMapper()
                        .writeValueAsString(
                                new UtilityRow(
                                        "pmixed", 3.9, 120, 10, 0.4, 0.7, null, 1.2, -0.5, 0.9));
        assertThat(json)
                .isEqualTo(
                        "{\"method\":\"pmixed\",\"epsilon\":3.9,\"tokens\":120,\"records\":10,"
                                + "\"js_bigram\":0.4,\"distinct_2\":0.7,\"accuracy\":null,"
                                + "\"canary_exposure\":1.2,\"fidelity\":-0.5,"
                                + "\"non_empty_share\":0.9}");
    }
}
