package org.hotpate.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code D/cluster.json} says about a local cluster: the pid of every process, the
 * JobManager's REST address, the broker's bootstrap address, the Prometheus endpoint of every Flink
 * process, and (extra keys) the fixed ports and slots a restart reuses. The required shape is
 *
 * <pre>
 * {"jobmanager": {"pid": P, "rest": "http://127.0.0.1:PORT"}, "taskmanagers": [{"pid": P}, …],
 *  "kafka": {"pid": P, "bootstrap": "127.0.0.1:PORT"}}
 * </pre>
 *
 * @param jobmanager the JobManager (pid, metrics port, log)
 * @param taskmanagers the TaskManagers in start order
 * @param kafka the broker
 * @param ports fixed ports by name: {@code rest}, {@code jobmanager-rpc}, {@code kafka}, {@code
 *     kafka-controller}
 * @param slots task slots per TaskManager
 */
public record ClusterInfo(
        Member jobmanager,
        List<Member> taskmanagers,
        Member kafka,
        Map<String, Integer> ports,
        int slots) {
    static final String FILE = "cluster.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    public ClusterInfo {
        taskmanagers = List.copyOf(taskmanagers);
        ports = Map.copyOf(ports);
    }

    /**
     * One process of the cluster.
     *
     * @param name {@code jobmanager}, {@code taskmanager-<i>} or {@code kafka}
     * @param pid its process id (-1: not started)
     * @param metricsPort its Prometheus reporter port (0: none)
     */
    public record Member(String name, long pid, int metricsPort) {
        Member withPid(long newPid) {
            return new Member(name, newPid, metricsPort);
        }

        Member withMetricsPort(int port) {
            return new Member(name, pid, port);
        }
    }

    /** {@code http://127.0.0.1:<rest port>}. */
    public String rest() {
        return "http://127.0.0.1:" + ports.get("rest");
    }

    /** {@code 127.0.0.1:<kafka port>}. */
    public String bootstrap() {
        return "127.0.0.1:" + ports.get("kafka");
    }

    /** Every member, JobManager first, broker last. */
    public List<Member> members() {
        List<Member> all = new ArrayList<>();
        all.add(jobmanager);
        all.addAll(taskmanagers);
        all.add(kafka);
        return all;
    }

    /** The Prometheus endpoints of the Flink processes, by member name. */
    public Map<String, String> metricsEndpoints() {
        Map<String, String> m = new TreeMap<>();
        for (Member x : members()) {
            if (x.metricsPort() > 0) {
                m.put(x.name(), metricsUrl(x));
            }
        }
        return m;
    }

    private static String metricsUrl(Member m) {
        return "http://127.0.0.1:" + m.metricsPort() + "/metrics";
    }

    /** Reads {@code dir/cluster.json}; a clear error when there is none or it is not ours. */
    public static ClusterInfo read(Path dir) {
        Path f = dir.resolve(FILE);
        if (!Files.isRegularFile(f)) {
            throw new IllegalStateException(
                    "no cluster in "
                            + dir
                            + " ("
                            + FILE
                            + " is missing): start one with ./hotpate cluster start --dir "
                            + dir);
        }
        try {
            JsonNode root = JSON.readTree(f.toFile());
            List<Member> tms = new ArrayList<>();
            for (JsonNode t : root.path("taskmanagers")) {
                tms.add(member(t, "taskmanager-" + (tms.size() + 1)));
            }
            Map<String, Integer> ports = new TreeMap<>();
            root.path("ports")
                    .fields()
                    .forEachRemaining(e -> ports.put(e.getKey(), e.getValue().asInt()));
            return new ClusterInfo(
                    member(root.path("jobmanager"), "jobmanager"),
                    tms,
                    member(root.path("kafka"), "kafka"),
                    ports,
                    root.path("slots").asInt());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(
                    f + " is not a hotpate cluster file: " + e.getMessage(), e);
        }
    }

    private static Member member(JsonNode n, String name) {
        if (!n.has("pid")) {
            throw new IllegalArgumentException(name + " has no pid");
        }
        return new Member(
                n.path("name").asText(name), n.get("pid").asLong(), n.path("metricsPort").asInt(0));
    }

    /** Writes {@code dir/cluster.json} atomically (a reader never sees half a file). */
    public void write(Path dir) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode jm = node(jobmanager, dir);
        jm.put("rest", rest());
        root.set("jobmanager", jm);
        ArrayNode tms = root.putArray("taskmanagers");
        taskmanagers.forEach(t -> tms.add(node(t, dir)));
        ObjectNode k = node(kafka, dir);
        k.put("bootstrap", bootstrap());
        root.set("kafka", k);
        root.put("slots", slots);
        root.set("ports", JSON.valueToTree(new TreeMap<>(ports)));
        root.put("checkpoints", dir.resolve("checkpoints").toUri().toString());
        root.put("savepoints", dir.resolve("savepoints").toUri().toString());
        try {
            Path tmp = dir.resolve(FILE + ".tmp");
            JSON.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), root);
            Files.move(
                    tmp,
                    dir.resolve(FILE),
                    StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode node(Member m, Path dir) {
        ObjectNode o = JSON.createObjectNode();
        o.put("pid", m.pid());
        o.put("name", m.name());
        if (m.metricsPort() > 0) {
            o.put("metrics", metricsUrl(m));
            o.put("metricsPort", m.metricsPort());
        }
        o.put("log", dir.resolve("logs").resolve(m.name() + ".log").toString());
        return o;
    }

    ClusterInfo withTaskmanagers(List<Member> tms) {
        return new ClusterInfo(jobmanager, tms, kafka, ports, slots);
    }

    ClusterInfo withJobmanager(Member jm) {
        return new ClusterInfo(jm, taskmanagers, kafka, ports, slots);
    }

    ClusterInfo withKafka(Member k) {
        return new ClusterInfo(jobmanager, taskmanagers, k, ports, slots);
    }
}
