package org.hotpate.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.hotpate.io.AvroWire;
import org.hotpate.model.Distribution;
import org.hotpate.model.PayloadKind;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.Topic;
import org.junit.jupiter.api.Test;

/** The benchmark's payloads: real encoded teacher answers of the sizes the issue names. */
class BenchWorkloadTest {
    private static final BenchWorkload.Shape SHAPE = new BenchWorkload.Shape(100, 4, 1000, 2, 2);

    private static Distribution[] decoded(BenchWorkload w, int[] bytes) throws Exception {
        JobConfig cfg = w.config("t", SHAPE, "target/tmp/bench-out");
        byte[][][] records = w.encodedAnswers(cfg, "bench-t-run", 50);
        Distribution[] out = new Distribution[records.length];
        for (int i = 0; i < records.length; i++) {
            assertThat(new String(records[i][0], "UTF-8")).isEqualTo(Integer.toString(i));
            bytes[0] += records[i][1].length;
            out[i] = AvroWire.decodeDistribution(records[i][1]);
            assertThat(out[i].teacherId()).isEqualTo(i);
        }
        bytes[0] /= records.length;
        return out;
    }

    @Test
    void sparsePayloadsAreAboutOneAndEightKilobytesOverALlamaVocabulary() throws Exception {
        int[] small = {0};
        for (Distribution d : decoded(BenchWorkload.SPARSE_1KB, small)) {
            assertThat(d.kind()).isEqualTo(PayloadKind.SPARSE);
            assertThat(d.tokens()).hasSize(80);
            for (int t : d.tokens()) {
                assertThat(t).isBetween(128_256 - 1050, 128_255);
            }
        }
        assertThat(small[0]).isBetween(900, 1100);
        int[] large = {0};
        for (Distribution d : decoded(BenchWorkload.SPARSE_8KB, large)) {
            assertThat(d.tokens()).hasSize(740);
        }
        assertThat(large[0]).isBetween(7600, 8600);
    }

    @Test
    void modelVotesAreComputedByTheTeacherWithTheSharedRandomness() throws Exception {
        int[] bytes = {0};
        Distribution[] votes = decoded(BenchWorkload.MODEL_VOTE, bytes);
        assertThat(bytes[0]).isLessThan(100);
        long distinct =
                java.util.Arrays.stream(votes).mapToInt(Distribution::voteToken).distinct().count();
        for (Distribution d : votes) {
            assertThat(d.kind()).isEqualTo(PayloadKind.MODEL_VOTE);
            assertThat(d.voteToken()).isBetween(-1, 128_255);
        }
        // Coordinated votes of Planet-Z teachers cluster on a few tokens but are not all equal.
        assertThat(distinct).isGreaterThan(1).isLessThan(votes.length);
    }

    @Test
    void theJobSpecIsValidAndNamesItsTopics() {
        JobConfig cfg = BenchWorkload.SPARSE_8KB.config("x1", SHAPE, "target/tmp/bench-out");
        assertThat(cfg.ensemble().teachers()).isEqualTo(100);
        assertThat(cfg.ensemble().source()).isEqualTo(JobConfig.TeacherSource.EXTERNAL);
        assertThat(cfg.ensemble().vocabularySize()).isEqualTo(BenchWorkload.VOCABULARY);
        assertThat(cfg.generation().concurrency()).isEqualTo(4);
        assertThat(cfg.kafka().topics().name(Topic.DISTRIBUTIONS))
                .isEqualTo("bench-x1.distributions");
        assertThat(cfg.mechanism().name()).isEqualTo("gnmax");
        assertThatThrownBy(() -> BenchWorkload.byName("sparse-2kb"))
                .hasMessageContaining("sparse-1kb, sparse-8kb, model-vote");
        assertThat(PipelineRun.defaultConcurrency(10_000)).isEqualTo(22);
        assertThat(PipelineRun.defaultConcurrency(100_000)).isEqualTo(3);
        assertThat(PipelineRun.defaultConcurrency(10)).isEqualTo(64);
    }
}
