package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.RecordsSpec;
import org.hotpate.stream.ops.SequenceText;
import org.hotpate.teachers.text.Tokenizer;
import org.junit.jupiter.api.Test;

class SequenceTextTest {
    private static final Tokenizer TOK = Tokenizer.named("cl100k_base");

    @Test
    void shouldCutBeforeTheFirstStopStringAndStopAtEndOfText() {
        SequenceText t = new SequenceText("cl100k_base", List.of("\n", "END"));
        assertThat(t.cut(TOK.encode("hello world")).stopped()).isFalse();
        SequenceText.Cut c = t.cut(TOK.encode("hello\nworld"));
        assertThat(c.stopped()).isTrue();
        assertThat(c.text()).isEqualTo("hello");
        assertThat(t.cut(TOK.encode("a END b")).text()).isEqualTo("a ");
        int[] eot = {TOK.encode("bye")[0], TOK.endOfText()};
        assertThat(t.cut(eot)).isEqualTo(new SequenceText.Cut("bye", true));
        assertThat(t.stopToken(-1)).isEqualTo(TOK.endOfText());
        assertThat(t.stopToken(5)).isEqualTo(5);
    }

    /** The public stop set of min-tokens: end-of-text, the stop token, every token with "\n". */
    @Test
    void stopTokensAreEndOfTextAndEveryTokenHoldingAStopString() {
        SequenceText t = new SequenceText("cl100k_base", List.of("\n"));
        int[] stops = t.stopTokens(-1);
        assertThat(stops).contains(TOK.endOfText());
        for (String s : List.of("\n", ".\n", "\n\n")) {
            for (int id : TOK.encode(s)) {
                assertThat(stops).as("a token of %s", s.replace("\n", "\\n")).contains(id);
            }
        }
        assertThat(stops).doesNotContain(TOK.encode("hello")[0]);
        assertThat(new SequenceText("cl100k_base", List.of()).stopTokens(7))
                .containsExactly(7, TOK.endOfText());
        assertThat(SequenceText.NUMBERS.stopTokens(-1)).isEmpty();
        assertThat(SequenceText.NUMBERS.stopTokens(12)).containsExactly(12);
    }

    @Test
    void simulatedRunsKeepRenderingNumbers() {
        assertThat(SequenceText.NUMBERS.cut(new int[] {123, 1005}).text())
                .isEqualTo("123 <tok1005>");
        assertThat(SequenceText.NUMBERS.stopToken(-1)).isEqualTo(-1);
    }

    @Test
    void recordsKeysParseWithTheirDefaults() throws Exception {
        java.nio.file.Path f =
                java.nio.file.Files.createTempFile(java.nio.file.Path.of("target"), "r", ".jsonl");
        JobConfig c =
                JobSpec.parse(
                        "records: {file: "
                                + f
                                + ", user-field: maintainer}\nensemble: {source: records, kind: heterogeneous}\n"
                                + "generation: {stop: [\"\\n\", \"END\"]}\n",
                        "x");
        assertThat(c.records().fields().userField()).isEqualTo("maintainer");
        assertThat(c.records().fields().textField()).isEqualTo("text");
        assertThat(c.records().maxPerUser()).isEqualTo(1000);
        assertThat(c.records().topic()).isEqualTo("hotpate.private-records");
        assertThat(c.records().stop()).containsExactly("\n", "END");
        assertThat(c.records().teacher().order()).isEqualTo(3);
        // the dataset of a records run is its topic, unless budget.dataset names it
        assertThat(c.datasetId()).isEqualTo("records-hotpate.private-records");
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        "records: {file: "
                                                + f
                                                + "}\nensemble: {source: records, kind:"
                                                + " heterogeneous}\nkafka: {security-protocol:"
                                                + " SASL_PLAINTEXT, sasl: {username: job}}\n",
                                        "x"))
                .hasMessageContaining("ensemble.source: records")
                .hasMessageContaining("SASL_PLAINTEXT");
        assertThat(c.ensemble().vocabularySize()).isEqualTo(100277);
        assertThat(c.generation().stepDeadlineMs()).isEqualTo(60_000);
        assertThat(JobSpec.parse("", "x").records().stop()).containsExactly("\n");
    }

    @Test
    void badRecordsKeysAreNamed() {
        assertThatThrownBy(
                        () ->
                                RecordsSpec.checkFiles(
                                        JobSpec.parse(
                                                "ensemble: {source: records}\nrecords: {file: /no/such.jsonl}",
                                                "x")))
                .hasMessageContaining("records.file");
        assertThatThrownBy(() -> JobSpec.parse("tokenizer: gpt2", "x"))
                .hasMessageContaining("tokenizer");
        assertThatThrownBy(() -> JobSpec.parse("generation: {stop: [1]}", "x"))
                .hasMessageContaining("generation.stop");
        assertThatThrownBy(() -> JobSpec.parse("ensemble: {source: records, vocabulary: 5}", "x"))
                .hasMessageContaining("ensemble.vocabulary");
        assertThatThrownBy(() -> JobSpec.parse("teacher: {model: http}", "x"))
                .hasMessageContaining("teacher.url");
        assertThatThrownBy(
                        () ->
                                JobSpec.parse(
                                        "ensemble: {source: records}\ngeneration: {on-fail: fallback}",
                                        "x"))
                .hasMessageContaining("generation.on-fail");
    }
}
