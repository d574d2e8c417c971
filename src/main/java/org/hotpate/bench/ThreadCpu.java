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
            long[] machineJiffies) {}

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
        return new Snapshot(processCpuNs(), System.nanoTime(), names, cpu, machineJiffies());
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
