package org.hotpate.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class FidelityTest {
    private static final List<String> PRIVATE =
            List.of("free money now", "free money today", "your free gift", "free money now");
    private static final List<String> PUBLIC =
            List.of("re: kernel update", "re: apt repository", "kernel update failed", "re: apt");

    @Test
    void privateTextScoresAbovePublicText() {
        Fidelity f = Fidelity.of(PRIVATE, PUBLIC);
        assertThat(f.score("free money now")).isPositive();
        assertThat(f.score("re: kernel update")).isNegative();
        assertThat(f.summarize(PRIVATE).fidelity()).isPositive();
        assertThat(f.summarize(PUBLIC).fidelity()).isNegative();
    }

    /** The score by hand: add-k bigrams over one shared vocabulary, per word, with the end. */
    @Test
    void scoreMatchesTheDefinitionByHand() {
        Fidelity f = Fidelity.of(List.of("a b"), List.of("a c"));
        // vocabulary {a, b, c} + end + unknown = 5; k = 0.1
        double k = Fidelity.K;
        double v = 5;
        double priv =
                Math.log((1 + k) / (1 + k * v)) // <s> a
                        + Math.log((1 + k) / (1 + k * v)) // a b
                        + Math.log((1 + k) / (1 + k * v)); // b </s>
        double pub =
                Math.log((1 + k) / (1 + k * v)) // <s> a
                        + Math.log((0 + k) / (1 + k * v)) // a b unseen
                        + Math.log((0 + k) / (0 + k * v)); // b never a context
        assertThat(f.score("A  b")).isCloseTo((priv - pub) / 2, within(1e-12));
    }

    @Test
    void textsWithoutWordsAreNotScoredButCounted() {
        Fidelity f = Fidelity.of(PRIVATE, PUBLIC);
        assertThat(f.score("   ")).isNaN();
        Fidelity.Summary s = f.summarize(List.of("free money", "", " "));
        assertThat(s.scored()).isEqualTo(1);
        assertThat(s.texts()).isEqualTo(3);
        assertThat(s.nonEmptyShare()).isCloseTo(1 / 3.0, within(1e-12));
        assertThat(f.summarize(List.of()).fidelity()).isNaN();
        assertThat(Fidelity.words(" Free\tMONEY\n")).containsExactly("free", "money");
    }

    @Test
    void needsSomeText() {
        assertThatThrownBy(() -> Fidelity.of(List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
