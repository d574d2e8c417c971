package org.hotpate.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU time of this JVM's threads over a window (ThreadMXBean thread CPU time), grouped by thread
 * role: Flink task threads by task name ({@code "vote (1/2)#0"} → {@code "vote"}), Kafka and other
 * threads with their trailing numbers removed. In the embedded benchmark the broker, the job and
 * the teacher worker all run in this JVM, so this says where the process's CPU goes. Native threads
 * (RocksDB compaction and flush) are not Java threads and show only in the process total.
 */
final class ThreadCpu {
    private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

    /** CPU nanoseconds per live thread id, with the thread's name. */
    record Snapshot(
            long processCpuNs,
            long wallNs,
            Map<Long, String> names,
            Map<Long, Long> cpuNs,
            long[] machineJiffies,
            Map<String, Long> nativeTicks) {}

    private ThreadCpu() {}

    static Snapshot snapshot() {
        Map<Long, String> names = new HashMap<>();
        Map<Long, Long> cpu = new HashMap<>();
        if (MX.isThreadCpuTimeSupported() && !MX.isThreadCpuTimeEnabled()) {
            MX.setThreadCpuTimeEnabled(true);
        }
        long[] ids = MX.getAllThreadIds();
        ThreadInfo[] infos = MX.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            if (infos[i] == null) {
                continue;
            }
            long ns = MX.getThreadCpuTime(ids[i]);
            if (ns >= 0) {
                names.put(ids[i], infos[i].getThreadName());
                cpu.put(ids[i], ns);
            }
        }
        return new Snapshot(
                processCpuNs(), System.nanoTime(), names, cpu, machineJiffies(), nativeTicks());
    }

    /**
     * Cores used per thread role between two snapshots (CPU seconds / wall seconds), largest first,
     * plus {@code "(process)"} — the whole process including native threads.
     */
    static Map<String, Double> cores(Snapshot a, Snapshot b) {
        double wall = (b.wallNs() - a.wallNs()) / 1e9;
        Map<String, Double> byRole = new HashMap<>();
        for (Map.Entry<Long, Long> e : b.cpuNs().entrySet()) {
            long before = a.cpuNs().getOrDefault(e.getKey(), 0L);
            double s = (e.getValue() - before) / 1e9;
            byRole.merge(role(b.names().get(e.getKey())), s / wall, Double::sum);
        }
        Map<String, Double> out = new LinkedHashMap<>();
        double process = (b.processCpuNs() - a.processCpuNs()) / 1e9 / wall;
        long[] ja = a.machineJiffies();
        long[] jb = b.machineJiffies();
        if (ja != null && jb != null && jb[0] > ja[0]) {
            double busy = (double) (jb[1] - ja[1]) / (jb[0] - ja[0]);
            double cores = busy * Runtime.getRuntime().availableProcessors();
            out.put("(machine)", cores);
            out.put("(other processes)", Math.max(0, cores - process));
        }
        out.put("(process)", process);
        for (Map.Entry<String, Long> e : b.nativeTicks().entrySet()) {
            long before = a.nativeTicks().getOrDefault(e.getKey(), 0L);
            byRole.put(e.getKey(), (e.getValue() - before) / USER_HZ / wall);
        }
        byRole.entrySet().stream()
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    /** The role of a thread: its name without subtask index and trailing numbers. */
    static String role(String name) {
        String r = name;
        int paren = r.indexOf(" (");
        if (paren > 0) {
            r = r.substring(0, paren);
        }
        int bar = r.indexOf(" | ");
        if (bar > 0) {
            r = r.substring(0, bar);
        }
        return r.replaceAll("[-_#: ]*\\d+$", "").replaceAll("[-_#: ]*\\d+$", "");
    }

    private static long processCpuNs() {
        if (ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }

    static final String JIT = "(native) JIT compilers";

    /**
     * Watches the JIT compiler threads: warm-up ends only once they are nearly idle, since while
     * they compile (for a minute or more after a broker, Flink and Kafka clients start in one JVM)
     * they take a third of a core or more from what is measured.
     */
    static final class JitWatch {
        private final java.util.ArrayDeque<double[]> samples = new java.util.ArrayDeque<>();
        private final double spanS;

        JitWatch(double spanS) {
            this.spanS = spanS;
        }

        /** Records a sample at time {@code t} (seconds) and returns the JIT cores over the span. */
        double sample(double t) {
            long ticks = nativeTicks().getOrDefault(JIT, -1L);
            if (ticks < 0) {
                return 0; // no /proc: nothing to wait for
            }
            samples.addLast(new double[] {t, ticks});
            while (samples.size() > 2 && t - samples.peekFirst()[0] > spanS) {
                samples.removeFirst();
            }
            double[] first = samples.peekFirst();
            return t - first[0] < spanS / 2
                    ? Double.POSITIVE_INFINITY
                    : (ticks - first[1]) / USER_HZ / (t - first[0]);
        }
    }

    /** Below this many cores of JIT compilation, warm-up may end. */
    static final double JIT_QUIET_CORES = 0.15;

    /** /proc reports thread times in USER_HZ ticks, 100 per second on Linux. */
    private static final double USER_HZ = 100.0;

    /**
     * CPU ticks of this process's native (non-Java) threads by kind, from /proc/self/task: GC
     * workers, the VM thread, JIT compilers and RocksDB's background threads (flush, compaction).
     * Java threads are left out (ThreadMXBean counts them). Empty where there is no /proc.
     */
    static Map<String, Long> nativeTicks() {
        Map<String, Long> out = new HashMap<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (Exception e) {
                    continue; // the thread ended
                }
                int open = stat.indexOf('(');
                int close = stat.lastIndexOf(')');
                String kind = nativeKind(stat.substring(open + 1, close));
                if (kind != null) {
                    String[] f = stat.substring(close + 2).split(" ");
                    out.merge(kind, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
                }
            }
        } catch (Exception e) {
            // no /proc
        }
        return out;
    }

    /** The kind of a native thread by its OS name (15 characters at most), or null. */
    static String nativeKind(String comm) {
        if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
            return "(native) GC threads";
        } else if (comm.equals("VM Thread")) {
            return "(native) VM thread (safepoints)";
        } else if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
            return JIT;
        } else if (comm.startsWith("rocksdb")) {
            return "(native) RocksDB background";
        }
        return null;
    }

    /**
     * Total and busy jiffies of all CPUs (/proc/stat: busy = all but idle and iowait), or null
     * where there is no /proc.
     */
    static long[] machineJiffies() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
                if (line.startsWith("cpu ")) {
                    String[] f = line.trim().split("\\s+");
                    long total = 0;
                    for (int i = 1; i < f.length && i <= 8; i++) {
                        total += Long.parseLong(f[i]);
                    }
                    long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
                    return new long[] {total, total - idle};
                }
            }
        } catch (Exception e) {
            // no /proc: leave the machine figures out
        }
        return null;
    }

    /** The 1-minute load average of the machine (/proc/loadavg), or the JVM's view of it. */
    static double loadAverage() {
        try {
            String s = Files.readString(Path.of("/proc/loadavg"));
            return Double.parseDouble(s.trim().split("\\s+")[0]);
        } catch (Exception e) {
            return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        }
    }
}
