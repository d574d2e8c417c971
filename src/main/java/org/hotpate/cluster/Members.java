package org.hotpate.cluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The processes of a local cluster: launching a member JVM, recognising one (every member carries
 * {@code -Dhotpate.cluster=<dir>} and {@code -Dhotpate.member=<name>} on its command line, so a
 * recycled pid is never mistaken for it), stopping members, free ports, and log tails for errors.
 */
final class Members {
    private Members() {}

    static final String CLUSTER_PROPERTY = "-Dhotpate.cluster=";
    static final String MEMBER_PROPERTY = "-Dhotpate.member=";

    /** Starts {@code java jvmArgs -cp classpath mainClass args}, output appended to {@code out}. */
    static Process launch(
            Path dir,
            String name,
            List<String> jvmArgs,
            String classpath,
            String mainClass,
            List<String> args,
            Path out)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // The markers first: they identify the process whatever the rest of its command line.
        cmd.add(CLUSTER_PROPERTY + dir);
        cmd.add(MEMBER_PROPERTY + name);
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);
        Files.writeString(
                out,
                "\n# " + java.time.Instant.now() + " " + String.join(" ", cmd) + "\n",
                StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
    }

    /** The live process {@code pid} if it is member {@code name} of the cluster in {@code dir}. */
    static Optional<ProcessHandle> ours(Path dir, String name, long pid) {
        if (pid <= 0) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(h -> isMember(h, dir, name));
    }

    /**
     * Every live process that belongs to the cluster in {@code dir} (whatever cluster.json says).
     */
    static List<ProcessHandle> all(Path dir) {
        return ProcessHandle.allProcesses()
                .filter(h -> h.pid() != ProcessHandle.current().pid())
                .filter(h -> isMember(h, dir, null))
                .toList();
    }

    private static boolean isMember(ProcessHandle h, Path dir, String name) {
        String[] args = h.info().arguments().orElse(new String[0]);
        boolean inCluster = false;
        boolean named = name == null;
        for (String a : args) {
            inCluster |= a.equals(CLUSTER_PROPERTY + dir);
            named |= name != null && a.equals(MEMBER_PROPERTY + name);
        }
        return inCluster && named;
    }

    /**
     * Stops the processes: SIGTERM (each shuts down gracefully), then SIGKILL for any still alive
     * after {@code grace}; returns the pids that are still alive after that (normally none).
     */
    static List<Long> stop(List<ProcessHandle> processes, Duration grace) {
        processes.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        for (ProcessHandle h : processes) {
            long left = Math.max(0, deadline - System.nanoTime());
            try {
                h.onExit().get(left, java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (Exception timedOut) {
                h.destroyForcibly();
            }
        }
        List<Long> alive = new ArrayList<>();
        for (ProcessHandle h : processes) {
            try {
                h.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
                alive.add(h.pid());
            }
        }
        return alive;
    }

    /** The lowest port {@link #freePort} picks from. */
    static final int LOWEST_PORT = 20000;

    /**
     * A port that is free on 127.0.0.1 right now, picked at random below the kernel's ephemeral
     * range ({@code net.ipv4.ip_local_port_range}, 32768 and up by default) when that leaves room:
     * the kernel hands ports of that range to every outgoing connection of every process at any
     * moment (Kafka and Flink clients of other builds on the machine), which is how a port chosen
     * free was found taken when a member bound it. Someone may still take the port before the
     * member binds it; {@link LocalCluster#start} then starts again on fresh ports.
     */
    static int freePort() {
        int below = ephemeralLow();
        java.util.Random r = java.util.concurrent.ThreadLocalRandom.current();
        for (int i = 0; below - LOWEST_PORT > 1000 && i < 100; i++) {
            int p = LOWEST_PORT + r.nextInt(below - LOWEST_PORT - ClusterPorts.METRICS_PORT_RANGE);
            if (isFree(p)) {
                return p;
            }
        }
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first port of the kernel's ephemeral range (32768 when it cannot be read). */
    static int ephemeralLow() {
        try {
            // Read line by line: a /proc file reports size 0, and a read sized by it comes short.
            try (java.io.BufferedReader r =
                    Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
                return Integer.parseInt(r.readLine().trim().split("\\s+")[0]);
            }
        } catch (IOException | RuntimeException e) {
            return 32768;
        }
    }

    /** The size of {@code file} in bytes (0 when it does not exist). */
    static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }

    /** What {@code file} holds from byte {@code offset} on, as text ("" when unreadable). */
    static String readFrom(Path file, long offset) {
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(file.toFile(), "r")) {
            long n = Math.max(0, f.length() - offset);
            byte[] b = new byte[(int) Math.min(n, 8L << 20)];
            f.seek(f.length() - b.length);
            f.readFully(b);
            return new String(b, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** Whether {@code port} can be bound on 127.0.0.1 (no other process listens there). */
    static boolean isFree(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The last {@code n} lines of {@code file} (empty when it does not exist). */
    static String tail(Path file, int n) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }
}
