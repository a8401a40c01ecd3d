package io.gpuledger.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU and resident memory of processes over a measured window, from /proc (Linux only): CPU ticks
 * at its start and end, resident memory (VmRSS) once a second, the high-water mark (VmHWM, over the
 * process's life) at the end. The total adds the processes up second by second.
 */
final class Footprint {

    private static final long TICKS_PER_SECOND = ProcFiles.ticksPerSecond();

    private Footprint() {
    }

    /**
     * One process's use of the window, or the processes' together.
     *
     * @param cpuSeconds      its own CPU time, user and system
     * @param childCpuSeconds CPU time of children it started and has waited for
     * @param steadyKb        the mean of its resident memory over the window
     * @param maxKb           the most resident memory seen in the window
     * @param peakKb          its high-water mark since it started (a total: the sum of the processes')
     */
    record Usage(double seconds, double cpuSeconds, double childCpuSeconds, double steadyKb, long maxKb, long peakKb) {

        double cores() {
            return cpuSeconds / seconds;
        }
    }

    /** Each process's usage, in the order given, and the total. */
    record Window(Map<String, Usage> processes, Usage total) {

        Usage of(String process) {
            return processes.get(process);
        }
    }

    /**
     * Measures {@code processes} (name → pid) for {@code seconds}; fails when one stops meanwhile.
     */
    static Window measure(Map<String, Long> processes, int seconds) throws IOException, InterruptedException {
        Map<String, ProcFiles.Ticks> start = new LinkedHashMap<>();
        for (Map.Entry<String, Long> process : processes.entrySet()) {
            start.put(process.getKey(), ProcFiles.ticks(process.getValue()));
        }
        long begin = System.nanoTime();
        Map<String, List<Long>> resident = new LinkedHashMap<>();
        processes.keySet().forEach(name -> resident.put(name, new ArrayList<>()));
        List<Long> totals = new ArrayList<>();
        for (int s = 0; s < seconds; s++) {
            Thread.sleep(1000);
            long total = 0;
            for (Map.Entry<String, Long> process : processes.entrySet()) {
                if (!ProcessHandle.of(process.getValue()).map(ProcessHandle::isAlive).orElse(false)) {
                    throw new IllegalStateException(process.getKey() + " (process " + process.getValue()
                            + ") stopped during the measurement");
                }
                long kb = ProcFiles.residentKb(process.getValue());
                resident.get(process.getKey()).add(kb);
                total += kb;
            }
            totals.add(total);
        }
        double wall = (System.nanoTime() - begin) / 1e9;
        Map<String, Usage> usage = new LinkedHashMap<>();
        double cpu = 0;
        double childCpu = 0;
        long peak = 0;
        for (Map.Entry<String, Long> process : processes.entrySet()) {
            ProcFiles.Ticks end = ProcFiles.ticks(process.getValue());
            ProcFiles.Ticks before = start.get(process.getKey());
            double own = (end.own() - before.own()) / (double) TICKS_PER_SECOND;
            double children = (end.children() - before.children()) / (double) TICKS_PER_SECOND;
            List<Long> kb = resident.get(process.getKey());
            // The kernel folds each thread's resident-page count into VmHWM only now and then, so a
            // VmRSS read a moment earlier can be above it: the peak is at least what was seen.
            long hwm = Math.max(ProcFiles.peakResidentKb(process.getValue()), max(kb));
            usage.put(process.getKey(), new Usage(wall, own, children, mean(kb), max(kb), hwm));
            cpu += own;
            childCpu += children;
            peak += hwm;
        }
        return new Window(usage, new Usage(wall, cpu, childCpu, mean(totals), max(totals), peak));
    }

    private static double mean(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).average().orElse(0);
    }

    private static long max(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).max().orElse(0);
    }
}
