package org.hotpate.stream.teachers;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.functions.async.RichAsyncFunction;
import org.hotpate.model.Distribution;
import org.hotpate.model.TeacherQuery;
import org.hotpate.teachers.http.CompletionProtocol;
import org.hotpate.teachers.text.Tokenizer;

/**
 * Asks an OpenAI-compatible {@code /v1/completions} endpoint for teachers' next tokens (Flink async
 * I/O, {@code AsyncDataStream.unorderedWait} with capacity {@code teacher.concurrency}). Queries of
 * one step (one public seed) are sent together, {@code teacher.batch} prompts per request (a batch
 * leaves when full or {@value #LINGER_MS} ms after its first query). Each request has a timeout of
 * {@code teacher.timeout-ms}, cut to what is left before the earliest deadline of its batch; a
 * failed request (error status, timeout, unparseable body) is retried up to {@code teacher.retries}
 * times with exponential backoff from 100 ms, never past the deadline. A teacher whose call still
 * fails <b>abstains</b>: it sends an empty distribution (so the step need not wait for it) and the
 * {@code httpAbstentions} metric counts it. Answers: the top-K log-probabilities as a sparse
 * distribution (the mass past the server's K abstains), or with {@code teacher.vote: server-seeded}
 * the token the server sampled with {@code seed} = the step's public seed, as probability 1 ({@link
 * CompletionProtocol#parseBatch}).
 */
public final class HttpTeacherFunction extends RichAsyncFunction<TeacherQuery, Distribution> {
    private static final long serialVersionUID = 1L;
    private static final long BACKOFF_MS = 100;
    static final long LINGER_MS = 5;

    /** What the function needs from the job config. */
    public record Settings(
            String url,
            String modelName,
            String apiKeyEnv,
            int topK,
            long timeoutMs,
            int retries,
            String tokenizer,
            boolean tokenIds,
            int batch,
            boolean serverSeeded,
            int vocabularySize)
            implements java.io.Serializable {

        /** One prompt per request, top-K answers, text prompts (the behaviour before batching). */
        public static Settings simple(
                String url,
                String modelName,
                String apiKeyEnv,
                int topK,
                long timeoutMs,
                int retries,
                String tokenizer) {
            return new Settings(
                    url,
                    modelName,
                    apiKeyEnv,
                    topK,
                    timeoutMs,
                    retries,
                    tokenizer,
                    false,
                    1,
                    false,
                    Tokenizer.named(tokenizer).vocabularySize());
        }
    }

    private record Pending(TeacherQuery query, ResultFuture<Distribution> result) {}

    private final Settings settings;
    private transient HttpClient client;
    private transient Tokenizer tokenizer;
    private transient String apiKey;
    private transient Counter abstentions;
    private transient Counter requests;
    private transient Map<Long, List<Pending>> open; // by public seed; guarded by itself

    public HttpTeacherFunction(Settings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext ctx) {
        client =
                HttpClient.newBuilder()
                        .connectTimeout(Duration.ofMillis(settings.timeoutMs()))
                        .build();
        tokenizer = Tokenizer.named(settings.tokenizer());
        apiKey = settings.apiKeyEnv().isEmpty() ? null : System.getenv(settings.apiKeyEnv());
        abstentions = getRuntimeContext().getMetricGroup().counter("httpAbstentions");
        requests = getRuntimeContext().getMetricGroup().counter("httpRequests");
        open = new HashMap<>();
    }

    @Override
    public void asyncInvoke(TeacherQuery q, ResultFuture<Distribution> result) {
        Pending p = new Pending(q, result);
        if (settings.batch() == 1) {
            send(List.of(p));
            return;
        }
        List<Pending> full = null;
        boolean first;
        synchronized (open) {
            List<Pending> b = open.computeIfAbsent(q.publicSeed(), k -> new ArrayList<>());
            first = b.isEmpty();
            b.add(p);
            if (b.size() >= settings.batch()) {
                full = open.remove(q.publicSeed());
            }
        }
        if (full != null) {
            send(full);
        } else if (first) {
            CompletableFuture.delayedExecutor(LINGER_MS, TimeUnit.MILLISECONDS)
                    .execute(() -> flush(q.publicSeed()));
        }
    }

    private void flush(long seed) {
        List<Pending> b;
        synchronized (open) {
            b = open.remove(seed);
        }
        if (b != null && !b.isEmpty()) {
            send(b);
        }
    }

    private void send(List<Pending> batch) {
        List<TeacherQuery> qs = batch.stream().map(Pending::query).toList();
        attempt(qs, 0)
                .whenComplete(
                        (ds, e) -> {
                            for (int i = 0; i < batch.size(); i++) {
                                Distribution d = ds != null ? ds.get(i) : abstain(qs.get(i));
                                batch.get(i).result().complete(List.of(d));
                            }
                        });
    }

    private CompletableFuture<List<Distribution>> attempt(List<TeacherQuery> qs, int i) {
        long deadline = qs.stream().mapToLong(TeacherQuery::deadlineMs).min().orElse(0);
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) {
            return CompletableFuture.failedFuture(new IllegalStateException("past the deadline"));
        }
        String uri = settings.url().replaceAll("/+$", "") + "/v1/completions";
        List<Object> prompts = new ArrayList<>();
        for (TeacherQuery q : qs) {
            prompts.add(settings.tokenIds() ? q.promptIds() : q.prompt());
        }
        String body =
                CompletionProtocol.request(
                        settings.modelName(),
                        prompts,
                        settings.topK(),
                        settings.tokenIds(),
                        settings.serverSeeded()
                                ? OptionalLong.of(qs.get(0).publicSeed())
                                : OptionalLong.empty());
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(uri))
                        .timeout(Duration.ofMillis(Math.min(settings.timeoutMs(), left)))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body));
        if (apiKey != null && !apiKey.isEmpty()) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        requests.inc();
        return client.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString())
                .thenApply(
                        r -> {
                            if (r.statusCode() / 100 != 2) {
                                throw new IllegalStateException("HTTP " + r.statusCode());
                            }
                            List<CompletionProtocol.Answer> as =
                                    CompletionProtocol.parseBatch(
                                            r.body(),
                                            qs.size(),
                                            tokenizer,
                                            settings.vocabularySize(),
                                            settings.serverSeeded());
                            List<Distribution> ds = new ArrayList<>(qs.size());
                            for (int j = 0; j < qs.size(); j++) {
                                TeacherQuery q = qs.get(j);
                                ds.add(
                                        Distribution.sparse(
                                                q.runId(),
                                                q.sequenceId(),
                                                q.step(),
                                                q.attempt(),
                                                q.teacherId(),
                                                as.get(j).tokens(),
                                                as.get(j).probs()));
                            }
                            return ds;
                        })
                .exceptionallyCompose(
                        e -> {
                            long backoff = BACKOFF_MS << Math.min(i, 10);
                            if (i >= settings.retries()
                                    || System.currentTimeMillis() + backoff >= deadline) {
                                return CompletableFuture.failedFuture(e);
                            }
                            return CompletableFuture.supplyAsync(
                                            () -> null,
                                            CompletableFuture.delayedExecutor(
                                                    backoff, TimeUnit.MILLISECONDS))
                                    .thenCompose(x -> attempt(qs, i + 1));
                        });
    }

    /** Flink's own timeout: abstain rather than fail the job. */
    @Override
    public void timeout(TeacherQuery q, ResultFuture<Distribution> result) {
        result.complete(List.of(abstain(q)));
    }

    private Distribution abstain(TeacherQuery q) {
        abstentions.inc();
        return Distribution.sparse(
                q.runId(),
                q.sequenceId(),
                q.step(),
                q.attempt(),
                q.teacherId(),
                new int[0],
                new double[0]);
    }
}
