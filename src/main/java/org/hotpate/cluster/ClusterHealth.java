package org.hotpate.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Whether a {@link LocalCluster} is up: the probes (the broker answers a metadata request, the
 * JobManager's REST API reports its slots) and what the commands that use a running cluster ask
 * ({@link #requireRunning}, {@link #status}).
 */
public final class ClusterHealth {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ClusterHealth() {}

    /**
     * The cluster in {@code dir} if its JobManager answers and its broker runs; warns on {@code
     * warn} about TaskManagers that are down. Throws with the command that starts it otherwise.
     */
    public static ClusterInfo requireRunning(Path dir, PrintStream warn) {
        Path d = dir.toAbsolutePath().normalize();
        ClusterInfo info = ClusterInfo.read(d);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        boolean kafkaUp = Members.ours(d, "kafka", info.kafka().pid()).isPresent();
        int slots = registeredSlots(http, info);
        if (!kafkaUp || slots < 0) {
            throw new IllegalStateException(
                    "the cluster in "
                            + d
                            + " is not running ("
                            + (kafkaUp ? "" : "no broker process; ")
                            + (slots < 0
                                    ? "the JobManager at " + info.rest() + " does not answer"
                                    : "")
                            + "): start it with ./hotpate cluster start --dir "
                            + dir);
        }
        for (ClusterInfo.Member t : info.taskmanagers()) {
            if (Members.ours(d, t.name(), t.pid()).isEmpty() && warn != null) {
                warn.println(
                        "hotpate: "
                                + t.name()
                                + " of "
                                + d
                                + " is not running; ./hotpate cluster start --dir "
                                + dir
                                + " restarts it");
            }
        }
        return info;
    }

    /** Which members of the cluster in {@code dir} are running, one line each. */
    public static String status(Path dir) {
        Path d = dir.toAbsolutePath().normalize();
        ClusterInfo info = ClusterInfo.read(d);
        StringBuilder sb = new StringBuilder();
        for (ClusterInfo.Member m : info.members()) {
            boolean up = Members.ours(d, m.name(), m.pid()).isPresent();
            sb.append(
                    String.format(
                            "%-15s pid %-8d %s%n",
                            m.name(), m.pid(), up ? "running" : "NOT RUNNING"));
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        int slots = registeredSlots(http, info);
        sb.append(
                String.format(
                        "jobmanager REST %s: %s%n",
                        info.rest(), slots < 0 ? "not answering" : slots + " slots registered"));
        sb.append("kafka bootstrap ").append(info.bootstrap()).append('\n');
        return sb.toString();
    }

    /** Whether the broker answers a metadata request with at least one node. */
    static boolean kafkaAnswers(Admin admin) {
        try {
            return !admin.describeCluster(new DescribeClusterOptions().timeoutMs(2000))
                    .nodes()
                    .get()
                    .isEmpty();
        } catch (Exception e) {
            return false;
        }
    }

    /** Slots registered at the JobManager, or -1 when its REST API does not answer yet. */
    static int registeredSlots(HttpClient http, ClusterInfo info) {
        Optional<JsonNode> o = getJson(http, info.rest() + "/overview");
        return o.map(n -> n.path("slots-total").asInt(-1)).orElse(-1);
    }

    /** The JSON body of a 200 answer to GET {@code url}; empty on any other answer or none. */
    static Optional<JsonNode> getJson(HttpClient http, String url) {
        try {
            HttpResponse<String> r =
                    http.send(
                            HttpRequest.newBuilder(URI.create(url))
                                    .timeout(Duration.ofSeconds(3))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? Optional.of(JSON.readTree(r.body())) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
