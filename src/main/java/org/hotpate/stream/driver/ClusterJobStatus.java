package org.hotpate.stream.driver;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.hotpate.protocol.LocalHold;

/** A job's state as a Flink JobManager's REST API reports it ({@code GET /jobs/<id>}). */
final class ClusterJobStatus {
    private static final Set<String> ENDED = Set.of("FINISHED", "CANCELED", "FAILED");
    private static final ObjectMapper JSON = new ObjectMapper();

    private ClusterJobStatus() {}

    /**
     * Whether job {@code jobId} on the JobManager at {@code restBase} ({@code http://host:port})
     * may still run: true unless the JobManager reports it in a terminal state or does not know it
     * (404). A JobManager that cannot be reached, or answers without a state, may still run it:
     * true — a lease is never taken from a job whose state cannot be read (issue 30 item 6).
     */
    static boolean mayRun(String restBase, String jobId) {
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            HttpResponse<String> r =
                    http.send(
                            HttpRequest.newBuilder(URI.create(restBase + "/jobs/" + jobId))
                                    .timeout(Duration.ofSeconds(10))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 404) {
                return false;
            }
            if (r.statusCode() != 200) {
                return true; // the JobManager answers but cannot say: keep the claim
            }
            String state = JSON.readTree(r.body()).path("state").asText("");
            return !ENDED.contains(state);
        } catch (java.io.IOException e) {
            return true; // cannot be read: it may still run (fail closed)
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    /** The jobs a JobManager lists, or why they could not be read ({@code jobs} empty). */
    record Listing(Optional<List<LocalHold.Job>> jobs, String error) {}

    /**
     * Every job the JobManager at {@code restBase} lists ({@code GET /jobs/overview}); an
     * unreachable JobManager or an unreadable answer gives an empty listing with the reason — the
     * caller decides (the local ledger's hold fails closed, {@link LocalHold#verdict}).
     */
    static Listing jobs(String restBase) {
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            HttpResponse<String> r =
                    http.send(
                            HttpRequest.newBuilder(URI.create(restBase + "/jobs/overview"))
                                    .timeout(Duration.ofSeconds(10))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return new Listing(Optional.empty(), "HTTP " + r.statusCode());
            }
            var root = JSON.readTree(r.body()).path("jobs");
            if (!root.isArray()) {
                return new Listing(Optional.empty(), "no job list in the answer");
            }
            List<LocalHold.Job> out = new ArrayList<>();
            for (var j : root) {
                out.add(
                        new LocalHold.Job(
                                j.path("jid").asText(),
                                j.path("name").asText(),
                                j.path("state").asText()));
            }
            return new Listing(Optional.of(out), null);
        } catch (java.io.IOException | IllegalArgumentException e) {
            return new Listing(Optional.empty(), String.valueOf(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Listing(Optional.empty(), "interrupted");
        }
    }
}
