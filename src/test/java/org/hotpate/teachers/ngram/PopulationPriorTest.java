package org.hotpate.teachers.ngram;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.hotpate.core.prior.DpNgramExtraction.Gram;
import org.hotpate.core.prior.DpNgramExtraction.Released;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PopulationPriorTest {
    private static final int V = 100;
    private static final int EOT = 0;

    private static Released table() {
        Map<Gram, Long> uni = new HashMap<>();
        uni.put(new Gram(new int[] {5}), 300L);
        uni.put(new Gram(new int[] {6}), 100L);
        uni.put(new Gram(new int[] {EOT}), 200L);
        Map<Gram, Long> bi = new HashMap<>();
        bi.put(new Gram(new int[] {-1, 5}), 180L);
        bi.put(new Gram(new int[] {5, 6}), 90L);
        return new Released(List.of(uni, bi));
    }

    @Test
    void model_isWittenBellOverTheReleasedCounts() throws Exception {
        NgramModel m = PopulationPrior.model(table(), V, EOT);
        assertThat(m.order()).isEqualTo(2);
        // after 5: the bigram table {6: 90} (1 distinct) over the unigrams {5: 300, 6: 100, 0: 200}
        double uni6 = (100 + 3 * (1.0 / V)) / (600 + 3);
        double p = (90 + 1 * uni6) / (90 + 1);
        assertThat(m.probability("", new int[] {5}, 6))
                .isCloseTo(p, org.assertj.core.data.Offset.offset(1e-12));
        // at the start the begin-marker context is used
        NgramModel.Next first = m.next("", new int[0], 1);
        assertThat(first.tokens()).containsExactly(5);
    }

    @Test
    void writeThenRead_roundTrips(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("prior.jsonl");
        PopulationPrior.write(table(), f);
        Released back = PopulationPrior.read(f);
        assertThat(back.levels()).isEqualTo(table().levels());
        assertThat(Files.readAllLines(f).get(0)).isEqualTo("{\"gram\":[0],\"count\":200}");
    }

    @Test
    void read_malformedLine_namesIt(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("prior.jsonl");
        Files.writeString(f, "{\"gram\":[1],\"count\":3}\n{\"gram\":[]}\n");
        assertThatThrownBy(() -> PopulationPrior.read(f)).hasMessageContaining("line 2");
    }

    @Test
    void model_tokenOutsideTheVocabulary_throws() {
        Released bad = new Released(List.of(Map.of(new Gram(new int[] {V + 1}), 5L)));
        assertThatThrownBy(() -> PopulationPrior.model(bad, V, EOT))
                .hasMessageContaining("outside the vocabulary");
    }
}
