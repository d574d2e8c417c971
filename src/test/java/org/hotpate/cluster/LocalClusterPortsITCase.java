package org.hotpate.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 25: {@code cluster start} chooses free ports and its member processes bind them seconds
 * later, so another process can take one in between (the JobManager then died with "Could not start
 * actor system on any port" and the start exited 1). Here the race is made certain: the test's port
 * source hands out a port that is free and then takes it itself with a ServerSocket — another
 * listener on it — before any member is launched. The start must still succeed on fresh ports, with
 * nothing left of the failed attempt; and a start that cannot succeed leaves no process, no
 * cluster.json and no configuration behind.
 */
class LocalClusterPortsITCase {
    private final List<ServerSocket> held = new ArrayList<>();
    private Path dir;

    @AfterEach
    void cleanUp() throws IOException {
        if (dir != null && Files.isDirectory(dir)) {
            LocalCluster.stop(dir, Duration.ofSeconds(10), null);
        }
        for (ServerSocket s : held) {
            s.close();
        }
    }

    /**
     * A port source that takes the port it hands out for a purpose in {@code take}, the first
     * {@code take.get(purpose)} times that purpose is asked for.
     */
    private ClusterPorts.PortSource taking(Map<String, Integer> take, Map<String, Integer> log) {
        Map<String, Integer> asked = new TreeMap<>();
        return purpose -> {
            int p = Members.freePort();
            int n = asked.merge(purpose, 1, Integer::sum);
            if (n <= take.getOrDefault(purpose, 0)) {
                held.add(listenOn(p));
                log.put(purpose + "#" + n, p);
            }
            return p;
        };
    }

    private static ServerSocket listenOn(int port) {
        try {
            ServerSocket s = new ServerSocket();
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void startSucceedsWhenItsPreferredPortsAreTakenBeforeTheMembersBindThem() throws Exception {
        dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "it-ports-");
        Map<String, Integer> taken = new TreeMap<>();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        // The JobManager's RPC port (the issue's case) and the broker's port at the first
        // attempt; taskmanager-1's Prometheus port at both.
        ClusterInfo info =
                LocalCluster.start(
                        LocalCluster.Settings.of(dir, 2, 2),
                        new PrintStream(progress, true, StandardCharsets.UTF_8),
                        taking(
                                Map.of("jobmanager-rpc", 1, "kafka", 1, "metrics taskmanager-1", 2),
                                taken));
        String said = progress.toString(StandardCharsets.UTF_8);
        System.err.println(said);
        assertThat(taken).hasSize(4);
        assertThat(said).contains("could not bind its port").contains("fresh ports");
        assertThat(info.ports().values())
                .as("fresh ports, none of those taken")
                .doesNotContainAnyElementsOf(taken.values());
        assertThat(info.taskmanagers().get(0).metricsPort())
                .as("taskmanager-1 reports the Prometheus port it bound, not the one taken")
                .isNotEqualTo(taken.get("metrics taskmanager-1#2"));
        assertThat(Members.all(dir))
                .as("exactly the four members run: nothing is left of the first attempt")
                .hasSize(4);
        for (ClusterInfo.Member m : info.members()) {
            assertThat(Members.ours(dir, m.name(), m.pid())).as(m.name()).isPresent();
        }
        HttpClient http = HttpClient.newHttpClient();
        assertThat(ClusterHealth.registeredSlots(http, info)).isEqualTo(4);
        // Each Flink process reports the Prometheus port it bound, and it answers there.
        for (ClusterInfo.Member m : info.members()) {
            if (!m.name().equals("kafka")) {
                assertThat(m.metricsPort()).as(m.name()).isPositive();
                assertThat(
                                http.send(
                                                java.net.http.HttpRequest.newBuilder(
                                                                java.net.URI.create(
                                                                        "http://127.0.0.1:"
                                                                                + m.metricsPort()
                                                                                + "/metrics"))
                                                        .build(),
                                                java.net.http.HttpResponse.BodyHandlers.ofString())
                                        .body())
                        .as(m.name() + " metrics")
                        .contains("flink_");
            }
        }
        assertThat(ClusterInfo.read(dir).ports()).isEqualTo(info.ports());
        assertThat(LocalCluster.stop(dir, Duration.ofSeconds(20), null)).hasSize(4);
        assertThat(Members.all(dir)).isEmpty();
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aStartThatCannotSucceedLeavesNoHalfStartedClusterBehind() throws Exception {
        dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "it-ports-");
        Map<String, Integer> taken = new TreeMap<>();
        // Every attempt loses the JobManager's RPC port.
        assertThatThrownBy(
                        () ->
                                LocalCluster.start(
                                        LocalCluster.Settings.of(dir, 1, 1),
                                        System.err,
                                        taking(Map.of("jobmanager-rpc", 100), taken)))
                .isInstanceOf(ClusterPorts.PortTakenException.class)
                .hasMessageContaining("jobmanager");
        assertThat(taken).hasSize(LocalCluster.START_ATTEMPTS);
        assertThat(Members.all(dir)).as("no process of the failed start").isEmpty();
        assertThat(dir.resolve("cluster.json")).doesNotExist();
        assertThat(dir.resolve("conf/config.yaml")).doesNotExist();
        assertThat(dir.resolve("conf/kafka.properties")).doesNotExist();
        try (var s = Files.list(dir.resolve("kafka"))) {
            assertThat(s).as("no broker storage").isEmpty();
        }
        assertThat(dir.resolve("logs/jobmanager.log")).exists(); // what happened stays readable
    }
}
