package org.hotpate.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.hotpate.cli.ServeTeacherCommand;
import org.hotpate.io.EmbeddedKafka;
import org.hotpate.model.Distribution;
import org.hotpate.model.TeacherQuery;
import org.hotpate.stream.config.JobConfig;
import org.hotpate.stream.config.JobSpec;
import org.hotpate.stream.driver.RunSession;
import org.hotpate.stream.teachers.HttpTeacherFunction;
import org.hotpate.teachers.http.CompletionServer;
import org.hotpate.teachers.text.Tokenizer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** HTTP teachers over real loopback HTTP: serve-teacher behind a job, and the failure paths. */
class HttpTeacherITCase {
    private static EmbeddedKafka kafka;

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
    void aJobAsksServeTeacherOverLoopbackAndDecodesText() throws Exception {
        Path file =
                RecordsCorpus.write(
                        Path.of("target", "it-records", "http.jsonl"), "user", 60, 0, 0, 4);
        Tokenizer tok = Tokenizer.named("cl100k_base");
        try (CompletionServer server =
                CompletionServer.start(
                        ServeTeacherCommand.load(file, "user", "text", tok, 3), tok, "ngram", 0)) {
            JobConfig cfg =
                    JobSpec.parse(
                            """
                            name: http
                            records: {file: %s}
                            ensemble: {source: records, kind: heterogeneous}
                            teacher: {model: http, url: "http://127.0.0.1:%d", model-name: ngram, top-k: 20, max-records: 4, concurrency: 16}
                            mechanism: {name: confident-gnmax, params: {sigma1: 2, threshold: 20, sigma2: 2}}
                            budget: {epsilon: 50.0, delta: 1.0e-6}
                            generation: {sequences: 3, concurrency: 3, max-steps: 5, max-attempts: 2, prompt: "the"}
                            kafka:
                              mode: external
                              bootstrap: %s
                              topics: {steps: http.steps, distributions: http.distributions, results: http.results,
                                       records: http.records, ledger: http.ledger, rejected: http.rejected,
                                       private-records: http.private}
                            flink: {parallelism: 2, checkpoint-interval-ms: 500}
                            output: {dir: target/it-out}
                            """
                                    .formatted(file, server.port(), kafka.bootstrapServers()),
                            "http");
            try (RunSession run = RunSession.start(cfg, null)) {
                assertThat(run.await(Duration.ofSeconds(180), null)).isTrue();
                run.finish();
                assertThat(run.records()).hasSize(3);
                assertThat(run.records()).noneMatch(r -> r.text().contains("<tok"));
                assertThat(run.records()).allMatch(r -> r.prompt().equals("the"));
                assertThat(run.tokens()).as("the endpoint's answers were aggregated").isPositive();
            }
        }
    }

    /** A server that fails (500) or hangs: every teacher abstains, retries are bounded. */
    @Test
    void failingOrSlowEndpointsMakeTeachersAbstainWithBoundedRetries() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HttpServer s =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        s.createContext(
                "/v1/completions",
                x -> {
                    calls.incrementAndGet();
                    x.getRequestBody().readAllBytes();
                    if (x.getRequestURI().toString().contains("slow")) {
                        try {
                            Thread.sleep(1500);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    byte[] b = "{\"error\":\"boom\"}".getBytes(StandardCharsets.UTF_8);
                    x.sendResponseHeaders(500, b.length);
                    x.getResponseBody().write(b);
                    x.close();
                });
        s.start();
        try {
            String base = "http://127.0.0.1:" + s.getAddress().getPort();
            // a deadline far off: this case counts retries, and a job that starts slowly on a
            // loaded machine must not pass the deadline before its first call (seen: 0 of 9)
            List<Distribution> failed = ask(base, 2, 60_000);
            assertThat(failed).hasSize(3).allMatch(d -> d.tokens().length == 0);
            assertThat(calls.get()).as("1 try + 2 retries per teacher").isEqualTo(9);
            calls.set(0);
            List<Distribution> slow = ask(base + "/slow", 5, 800);
            assertThat(slow).hasSize(3).allMatch(d -> d.tokens().length == 0);
            assertThat(calls.get()).as("no retry past the deadline").isLessThanOrEqualTo(3);
        } finally {
            s.stop(0);
        }
    }

    private static List<Distribution> ask(String url, int retries, long deadlineIn)
            throws Exception {
        long deadline = System.currentTimeMillis() + deadlineIn + 3000; // + job start-up
        List<TeacherQuery> qs = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            qs.add(new TeacherQuery("r", 0, 0, 0, t, "hello", new int[0], 42L, deadline));
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        List<Distribution> out = new ArrayList<>();
        AsyncDataStream.unorderedWait(
                        env.fromData(qs).returns(Types.POJO(TeacherQuery.class)),
                        new HttpTeacherFunction(
                                HttpTeacherFunction.Settings.simple(
                                        url, "m", "", 5, 1000, retries, "cl100k_base")),
                        30_000,
                        TimeUnit.MILLISECONDS,
                        4)
                .executeAndCollect()
                .forEachRemaining(out::add);
        return out;
    }
}
