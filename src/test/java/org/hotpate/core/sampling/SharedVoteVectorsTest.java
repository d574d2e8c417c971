package org.hotpate.core.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.hotpate.core.randomness.SeedDerivation;
import org.hotpate.core.randomness.StepRandomness;
import org.junit.jupiter.api.Test;

/**
 * Votes of the Java {@link CoordinatedSampler} on full (dense) distributions, shared with the
 * Python teacher worker: {@code clients/python/tests/vectors/coordinated_votes.json} holds the
 * distributions, seeds, teacher ids and the votes this class computes; the worker's
 * tests/test_prf.py must draw the same votes from the same rows. Regenerate with {@link #main}.
 */
class SharedVoteVectorsTest {
    static final Path FILE = Path.of("clients/python/tests/vectors/coordinated_votes.json");

    static int vote(double[] probs, long seed, int teacher) {
        return CoordinatedSampler.INSTANCE.vote(
                new TeacherDistribution.Dense(probs),
                StepRandomness.forStep(seed, probs.length),
                SeedDerivation.teacherKey(teacher));
    }

    @Test
    void theSharedVectorsAreTheJavaSamplersVotes() throws Exception {
        JsonNode cases = new ObjectMapper().readTree(FILE.toFile());
        assertThat(cases.size()).isGreaterThanOrEqualTo(8);
        int abstentions = 0;
        for (JsonNode c : cases) {
            double[] p = new double[c.path("probs").size()];
            for (int i = 0; i < p.length; i++) {
                p[i] = c.path("probs").get(i).asDouble();
            }
            int v = vote(p, c.path("seed").asLong(), c.path("teacher").asInt());
            assertThat(v).as(c.path("name").asText()).isEqualTo(c.path("vote").asInt());
            abstentions += v < 0 ? 1 : 0;
        }
        assertThat(abstentions).as("the residual case abstains at least once").isPositive();
    }

    /** Writes the vectors (fixed seeds): run once, commit the file. */
    public static void main(String[] args) throws Exception {
        ObjectMapper m = new ObjectMapper();
        ArrayNode out = m.createArrayNode();
        Random rnd = new Random(2026);
        long[] seeds = {
            SeedDerivation.stepSeed(42, "seq-0", 0, 0),
            -7104450792367271106L,
            0L,
            0x0123456789abcdefL
        };
        int k = 0;
        for (int vocab : new int[] {300, 1024}) {
            for (double peak : new double[] {0.0, 3.0, 8.0}) {
                for (int rep = 0; rep < 2; rep++) {
                    double[] p = new double[vocab];
                    double sum = 0;
                    for (int i = 0; i < vocab; i++) {
                        p[i] = Math.exp(peak * rnd.nextGaussian());
                        sum += p[i];
                    }
                    boolean residual = rep == 1 && peak == 0.0;
                    for (int i = 0; i < vocab; i++) {
                        p[i] = p[i] / sum * (residual ? 0.05 : 1.0);
                    }
                    for (int teacher : new int[] {0, 7, 511}) {
                        long seed = seeds[k++ % seeds.length];
                        ObjectNode c = out.addObject();
                        c.put(
                                "name",
                                "V" + vocab + " peak " + peak + " rep " + rep + " t" + teacher);
                        c.put("seed", seed);
                        c.put("teacher", teacher);
                        c.put("vote", vote(p, seed, teacher));
                        ArrayNode a = c.putArray("probs");
                        for (double x : p) {
                            a.add(x);
                        }
                    }
                }
            }
        }
        Files.writeString(FILE, m.writeValueAsString(out));
    }
}
