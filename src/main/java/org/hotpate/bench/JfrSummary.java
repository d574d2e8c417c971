package org.hotpate.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * {@code ./hotpate bench jfr FILE.jfr}: a plain-text summary of a JFR recording of the pipeline
 * benchmark (docs/performance.md). Execution samples (threads running Java) and native samples
 * whose top frame is RocksDB's JNI (threads inside RocksDB; other native samples are threads
 * blocked in I/O and are left out) are counted per thread role; for each, the top self frames and
 * the samples attributed to each cost category of the issue (Avro decoding, the keyed shuffle's
 * serialization, the chained copy of object reuse off, RocksDB state access...; see {@link
 * #CATEGORIES}). Allocation samples give the allocation rate by class and thread role; GC pauses
 * and per-thread CPU load complete it.
 */
public final class JfrSummary {
    /**
     * Cost categories in priority order: a sample is attributed to the first category any frame of
     * its stack matches (so RocksDB calls made while snapshotting count as checkpointing, and the
     * Philox blocks of a step table as the step table, not the vote kernel); a sample matching none
     * is "other". The shares of a thread role add up to 100%.
     */
    static final Map<String, Pattern> CATEGORIES = new LinkedHashMap<>();

    static {
        CATEGORIES.put(
                "checkpointing (snapshots, RocksDB checkpoint, barriers)",
                Pattern.compile(
                        ".*\\.snapshotState|.*SnapshotStrategy.*|org\\.rocksdb\\.Checkpoint\\..*"
                                + "|.*AsyncCheckpointRunnable.*|.*SubtaskCheckpointCoordinatorImpl.*"
                                + "|.*CheckpointBarrierHandler.*|.*\\.prepareSnapshotPreBarrier"));
        CATEGORIES.put(
                "RocksDB state access (JNI + Flink's RocksDB state and key/value serialization)",
                Pattern.compile("org\\.rocksdb\\..*|org\\.apache\\.flink\\.state\\.rocksdb\\..*"));
        CATEGORIES.put(
                "step table build (StepRandomness.forStep)",
                Pattern.compile("org\\.hotpate\\.core\\.randomness\\.StepRandomness\\.forStep"));
        CATEGORIES.put(
                "Avro decode into boxed lists (AvroWire.decode*, Avro readers)",
                Pattern.compile(
                        "org\\.hotpate\\.io\\.AvroWire\\.decode.*"
                                + "|org\\.apache\\.avro\\..*(Reader|Decoder).*"));
        CATEGORIES.put(
                "Avro encode (AvroWire.encode*, Avro writers)",
                Pattern.compile(
                        "org\\.hotpate\\.io\\.AvroWire\\.encode.*|org\\.apache\\.avro\\..*(Writer|Encoder).*"));
        CATEGORIES.put(
                "mechanism + DP noise (core.mechanism, core.noise, SecureRandom)",
                Pattern.compile(
                        "org\\.hotpate\\.core\\.mechanism\\..*|org\\.hotpate\\.core\\.noise\\..*"));
        CATEGORIES.put(
                "payload validation (TeacherDistribution construction, Distribution.toCore)",
                Pattern.compile(
                        "org\\.hotpate\\.core\\.sampling\\.TeacherDistribution.*"
                                + "|org\\.hotpate\\.model\\.Distribution\\.toCore"));
        CATEGORIES.put(
                "teacher key (SeedDerivation.teacherKey: SHA-256 per vote)",
                Pattern.compile("org\\.hotpate\\.core\\.randomness\\.SeedDerivation\\.teacherKey"));
        CATEGORIES.put(
                "vote kernel (core.sampling, shared randomness per vote)",
                Pattern.compile(
                        "org\\.hotpate\\.core\\.sampling\\..*|org\\.hotpate\\.core\\.randomness\\..*"));
        CATEGORIES.put(
                "chained copy (object reuse off: CopyingChainingOutput, serializer copy)",
                Pattern.compile(
                        "org\\.apache\\.flink\\..*CopyingChainingOutput\\..*|org\\.apache\\.flink\\..*Serializer\\.copy"));
        CATEGORIES.put(
                "record deserialization (network input of keyBy/broadcast edges)",
                Pattern.compile(
                        "org\\.apache\\.flink\\..*\\.deserialize|org\\.apache\\.flink\\..*SpanningWrapper\\..*"
                                + "|org\\.apache\\.flink\\.core\\.memory\\.DataInputDeserializer\\..*"));
        CATEGORIES.put(
                "record serialization (network output of keyBy/broadcast edges)",
                Pattern.compile(
                        "org\\.apache\\.flink\\..*\\.serialize|org\\.apache\\.flink\\..*RecordWriter.*"
                                + "|org\\.apache\\.flink\\.core\\.memory\\.DataOutputSerializer\\..*"));
        CATEGORIES.put(
                "Kafka clients and broker",
                Pattern.compile("org\\.apache\\.kafka\\..*|kafka\\..*"));
        CATEGORIES.put(
                "operator logic (other org.hotpate code)", Pattern.compile("org\\.hotpate\\..*"));
    }

    static final String OTHER = "other (Flink runtime, JDK)";

    private JfrSummary() {}

    /** Samples of one thread role. */
    private static final class Role {
        long samples;
        long nativeRocksDb;
        final Map<String, Long> selfFrames = new HashMap<>();
        final Map<String, Long> categories = new HashMap<>();
        double cpuLoadSum;
        long cpuLoadEvents;
    }

    /**
     * The benchmark's measured window, written into its recording (JFR's disk chunks can hold
     * earlier data of the same JVM; the summary keeps only events inside this window).
     */
    @jdk.jfr.Name("org.hotpate.BenchWindow")
    @jdk.jfr.Label("Benchmark window")
    @jdk.jfr.Description("The measured steady-state window of ./hotpate bench pipeline")
    public static final class WindowEvent extends jdk.jfr.Event {
        @jdk.jfr.Label("Payload")
        public String payload;
    }

    public static void print(Path file, int top, PrintStream out) throws IOException {
        Instant from = null;
        Instant to = null;
        try (RecordingFile f = new RecordingFile(file)) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                if (e.getEventType().getName().equals("org.hotpate.BenchWindow")) {
                    from = e.getStartTime();
                    to = e.getEndTime();
                }
            }
        }
        Map<String, Role> roles = new HashMap<>();
        Map<String, Long> allocByClass = new HashMap<>();
        Map<String, Long> allocByRole = new HashMap<>();
        long allocTotal = 0;
        long samples = 0;
        long gcCount = 0;
        Duration gcPauses = Duration.ZERO;
        Instant first = null;
        Instant last = null;
        try (RecordingFile f = new RecordingFile(file)) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                Instant t = e.getStartTime();
                if (from != null && (t.isBefore(from) || t.isAfter(to))) {
                    continue;
                }
                first = first == null || t.isBefore(first) ? t : first;
                last = last == null || t.isAfter(last) ? t : last;
                switch (e.getEventType().getName()) {
                    case "jdk.ExecutionSample" -> {
                        sample(roles, e, false);
                        samples++;
                    }
                    case "jdk.NativeMethodSample" -> {
                        RecordedStackTrace st = e.getStackTrace();
                        if (st != null
                                && !st.getFrames().isEmpty()
                                && frame(st.getFrames().get(0)).startsWith("org.rocksdb.")) {
                            sample(roles, e, true);
                            samples++;
                        }
                    }
                    case "jdk.ObjectAllocationSample" -> {
                        long w = e.getLong("weight");
                        allocTotal += w;
                        allocByClass.merge(
                                e.getClass("objectClass") == null
                                        ? "?"
                                        : e.getClass("objectClass").getName(),
                                w,
                                Long::sum);
                        allocByRole.merge(role(e.getThread("eventThread")), w, Long::sum);
                    }
                    case "jdk.ThreadCPULoad" -> {
                        Role r =
                                roles.computeIfAbsent(
                                        role(e.getThread("eventThread")), k -> new Role());
                        r.cpuLoadSum += e.getFloat("user") + e.getFloat("system");
                        r.cpuLoadEvents++;
                    }
                    case "jdk.GarbageCollection" -> {
                        gcCount++;
                        gcPauses = gcPauses.plus(e.getDuration("sumOfPauses"));
                    }
                    default -> {}
                }
            }
        }
        double seconds = first == null ? 0 : Duration.between(first, last).toMillis() / 1000.0;
        out.printf(
                "JFR %s: %.1f s%s, %,d samples (Java execution + RocksDB native)%n",
                file,
                seconds,
                from == null ? " (whole recording)" : " (the benchmark window)",
                samples);
        out.printf(
                "GC: %d collections, %.0f ms of pauses (%.1f%% of the time)%n",
                gcCount, gcPauses.toMillis() * 1.0, 100.0 * gcPauses.toMillis() / 1000 / seconds);
        out.printf(
                "allocation (sampled weight): %.0f MB/s%n",
                allocTotal / 1e6 / Math.max(seconds, 1e-9));

        List<Map.Entry<String, Role>> byRole =
                roles.entrySet().stream()
                        .filter(en -> en.getValue().samples > 0)
                        .sorted((a, b) -> Long.compare(b.getValue().samples, a.getValue().samples))
                        .toList();
        out.println();
        out.println(
                "samples by thread role (share of all samples; RocksDB-native part; mean CPU load in"
                        + " cores of this machine)");
        for (Map.Entry<String, Role> en : byRole) {
            Role r = en.getValue();
            out.printf(
                    "  %5.1f%%  %-60s native-rocksdb %4.1f%%  cpu %s%n",
                    100.0 * r.samples / samples,
                    trim(en.getKey(), 60),
                    100.0 * r.nativeRocksDb / samples,
                    r.cpuLoadEvents == 0
                            ? "n/a"
                            : String.format(
                                    "%.2f",
                                    r.cpuLoadSum
                                            / r.cpuLoadEvents
                                            * Runtime.getRuntime().availableProcessors()));
        }
        out.println();
        out.println("cost categories (share of all samples attributed to it)");
        Map<String, Long> cats = new HashMap<>();
        roles.values().forEach(r -> r.categories.forEach((k, v) -> cats.merge(k, v, Long::sum)));
        for (String c : categoryNames()) {
            out.printf("  %5.1f%%  %s%n", 100.0 * cats.getOrDefault(c, 0L) / samples, c);
        }
        Map<String, Long> self = new HashMap<>();
        roles.values().forEach(r -> r.selfFrames.forEach((k, v) -> self.merge(k, v, Long::sum)));
        out.println();
        out.println("top self frames (all threads)");
        printTop(out, self, samples, top, "  ");
        for (Map.Entry<String, Role> en : byRole.subList(0, Math.min(6, byRole.size()))) {
            Role r = en.getValue();
            out.println();
            out.printf(
                    "[%s] %,d samples (%.1f%%)%n",
                    en.getKey(), r.samples, 100.0 * r.samples / samples);
            out.println("  categories (share of this role's samples):");
            for (String c : categoryNames()) {
                long v = r.categories.getOrDefault(c, 0L);
                if (v * 100 >= r.samples) {
                    out.printf("    %5.1f%%  %s%n", 100.0 * v / r.samples, c);
                }
            }
            out.println("  top self frames:");
            printTop(out, r.selfFrames, r.samples, top, "    ");
        }
        out.println();
        out.println("allocation by class (share of sampled weight)");
        printTop(out, allocByClass, allocTotal, top, "  ");
        out.println("allocation by thread role");
        printTop(out, allocByRole, allocTotal, Math.min(top, 8), "  ");
    }

    private static void sample(Map<String, Role> roles, RecordedEvent e, boolean rocksDb) {
        Role r = roles.computeIfAbsent(role(e.getThread("sampledThread")), k -> new Role());
        r.samples++;
        if (rocksDb) {
            r.nativeRocksDb++;
        }
        RecordedStackTrace st = e.getStackTrace();
        if (st == null || st.getFrames().isEmpty()) {
            return;
        }
        List<RecordedFrame> frames = st.getFrames();
        r.selfFrames.merge(frame(frames.get(0)), 1L, Long::sum);
        r.categories.merge(category(frames), 1L, Long::sum);
    }

    /** The first category (in priority order) that any frame matches, else {@link #OTHER}. */
    static String category(List<RecordedFrame> frames) {
        for (Map.Entry<String, Pattern> c : CATEGORIES.entrySet()) {
            for (RecordedFrame fr : frames) {
                if (c.getValue().matcher(frame(fr)).matches()) {
                    return c.getKey();
                }
            }
        }
        return OTHER;
    }

    private static List<String> categoryNames() {
        List<String> names = new java.util.ArrayList<>(CATEGORIES.keySet());
        names.add(OTHER);
        return names;
    }

    private static String frame(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }

    private static String role(RecordedThread t) {
        if (t == null) {
            return "?";
        }
        String name = t.getJavaName() != null ? t.getJavaName() : t.getOSName();
        return name == null ? "?" : ThreadCpu.role(name);
    }

    private static void printTop(
            PrintStream out, Map<String, Long> counts, long total, int top, String indent) {
        counts.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .limit(top)
                .forEach(
                        en ->
                                out.printf(
                                        "%s%5.1f%%  %s%n",
                                        indent,
                                        100.0 * en.getValue() / Math.max(1, total),
                                        en.getKey()));
    }

    private static String trim(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 1) + "…";
    }
}
