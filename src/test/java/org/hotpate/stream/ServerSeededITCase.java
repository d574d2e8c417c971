package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.model.StepResult;
import org.hotpate.protocol.RunShape;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.RunSession;
import org.hotpate.teachers.text.Gpt2TokenizerJson;
import org.hotpate.teachers.text.Tokenizer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code teacher.model: http} with {@code teacher.token-ids: true}, {@code teacher.vote:
 * server-seeded} and {@code teacher.batch} against a loopback server speaking vLLM's completions
 * format (prompt lists of token ids, {@code seed}, {@code "token_id:N"} answers). The server draws
 * like vLLM's V1 sampler with a per-request seed: an exponential race argmax p_j / q_j with q_j a
 * function of (seed, j) only, p_j its toy model (the prompt's own token frequencies). Checked:
 * every request is a seeded single sample of token-id prompts; every teacher of a step is sent the
 * step's public seed, and the seeds differ from step to step; the run completes with text in
 * GPT-2's vocabulary (tokenizer.json).
 */
class ServerSeededITCase {
    private static EmbeddedKafka kafka;
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void start() throws Exception {
        kafka = EmbeddedKafka.start();
        Files.createDirectories(Path.of("target", "it-records"));
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    @Test
    void everyTeacherOfAStepIsSentTheStepsSeedAndTheSeedsDifferPerStep() throws Exception {
        Path file =
                RecordsCorpus.write(
                        Path.of("target", "it-records", "seeded.jsonl"), "user", 40, 0, 0, 5);
        Path tokenizer = Gpt2TokenizerJson.write(Path.of("target", "fixtures", "gpt2"));
        List<JsonNode> requests = new CopyOnWriteArrayList<>();
        Map<Long, Integer> promptsPerSeed = new ConcurrentHashMap<>();
        HttpServer server =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.createContext(
                "/v1/completions",
                x -> {
                    JsonNode req = JSON.readTree(x.getRequestBody().readAllBytes());
                    requests.add(req);
                    JsonNode ps = req.path("prompt");
                    int prompts = ps.path(0).isArray() ? ps.size() : 1; // one prompt goes alone
                    promptsPerSeed.merge(req.path("seed").asLong(), prompts, Integer::sum);
                    byte[] b = answer(req).getBytes(StandardCharsets.UTF_8);
                    x.getResponseHeaders().add("Content-Type", "application/json");
                    x.sendResponseHeaders(200, b.length);
                    x.getResponseBody().write(b);
                    x.close();
                });
        server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4));
        server.start();
        try {
            JobConfig cfg =
                    JobSpec.parse(
                            """
                            name: seeded
                            records: {file: %s}
                            ensemble: {source: records, kind: heterogeneous}
                            tokenizer: {file: %s}
                            teacher: {model: http, url: "http://127.0.0.1:%d", model-name: llama, token-ids: true,
                                      vote: server-seeded, server: vllm, batch: 8, max-records: 4, concurrency: 16}
                            mechanism: {name: confident-gnmax, params: {sigma1: 2, threshold: 12, sigma2: 2}}
                            budget: {epsilon: 50.0, delta: 1.0e-6, dataset: i32-seeded-it, ledger-dir: target/it-ledger}
                            generation: {sequences: 3, concurrency: 3, max-steps: 5, max-attempts: 2, prompt: "the"}
                            kafka:
                              mode: external
                              bootstrap: %s
                              topics: {steps: seeded.steps, distributions: seeded.distributions, results: seeded.results,
                                       records: seeded.records, ledger: seeded.ledger, rejected: seeded.rejected,
                                       private-records: seeded.private}
                            flink: {parallelism: 2, checkpoint-interval-ms: 500}
                            output: {dir: target/it-out}
                            """
                                    .formatted(
                                            file,
                                            tokenizer,
                                            server.getAddress().getPort(),
                                            kafka.bootstrapServers()),
                            "seeded");
            try (RunSession run = RunSession.start(cfg, null)) {
                assertThat(run.await(Duration.ofSeconds(180), null)).isTrue();
                run.finish();
                int n = run.config().ensemble().teachers();
                assertThat(n).isEqualTo(40);
                assertThat(requests).isNotEmpty();
                for (JsonNode r : requests) {
                    assertThat(r.has("seed")).isTrue();
                    assertThat(r.path("max_tokens").asInt()).isEqualTo(1);
                    assertThat(r.path("n").asInt()).isEqualTo(1);
                    assertThat(r.path("return_tokens_as_token_ids").asBoolean()).isTrue();
                    assertThat(r.path("prompt").isArray()).isTrue();
                    JsonNode first = r.path("prompt").get(0);
                    assertThat(first.isArray() || first.isInt()).as("token ids").isTrue();
                }
                assertThat(requests)
                        .as("batched: fewer requests than prompts")
                        .hasSizeLessThan(promptsPerSeed.values().stream().mapToInt(i -> i).sum());
                RunShape shape = OperatorValues.runShape(run.config(), run.runId());
                List<StepResult> results = run.results();
                assertThat(results).isNotEmpty();
                Map<Long, StepResult> bySeed = new HashMap<>();
                for (StepResult r : results) {
                    long seed = shape.seed(r);
                    assertThat(bySeed.put(seed, r)).as("one seed per step").isNull();
                    assertThat(promptsPerSeed.get(seed))
                            .as("every teacher of step %s was sent its seed", r)
                            .isEqualTo(n);
                }
                assertThat(bySeed.keySet())
                        .as("every seed sent is a step's public seed")
                        .containsAll(promptsPerSeed.keySet());
                assertThat(run.tokens())
                        .as("the server's seeded votes were aggregated")
                        .isPositive();
                Tokenizer gpt2 = Tokenizer.named("r50k_base");
                // GPT-2 ids (the file tokenizer); the text is cut before the stop string "\n"
                assertThat(run.records())
                        .allMatch(rec -> gpt2.decode(rec.tokens()).startsWith(rec.text()));
            }
        } finally {
            server.stop(0);
        }
    }

    /** vLLM V1's seeded draw over a toy model: argmax p_j / q_j, q_j = Exp(1) of (seed, j). */
    private static String answer(JsonNode req) {
        long seed = req.path("seed").asLong();
        ObjectNode body = JSON.createObjectNode();
        ArrayNode choices = body.putArray("choices");
        JsonNode prompts = req.path("prompt");
        if (!prompts.get(0).isArray()) {
            prompts = JSON.createArrayNode().add(prompts); // one prompt, sent alone
        }
        for (int i = prompts.size() - 1; i >= 0; i--) { // out of order: matched by index
            Map<Integer, Integer> counts = new HashMap<>();
            for (JsonNode t : prompts.get(i)) {
                counts.merge(t.asInt(), 1, Integer::sum);
            }
            int best = -1;
            double bestScore = -1;
            for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
                double q = -Math.log(1 - new SplittableRandom(seed * 31 + e.getKey()).nextDouble());
                double score = e.getValue() / q;
                if (score > bestScore) {
                    best = e.getKey();
                    bestScore = score;
                }
            }
            ObjectNode c = choices.addObject();
            c.put("index", i);
            c.put("text", "?");
            ObjectNode lp = c.putObject("logprobs");
            lp.putArray("tokens").add("token_id:" + best);
            lp.putArray("token_logprobs").add(-1.0);
            c.put("finish_reason", "length");
        }
        return body.toString();
    }
}
