package io.gpuledger.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A benchmark's run followed from outside, as an operator follows consumer lag: a point every
 * 200 ms with the input records done so far (a group's committed offsets) and the CPU time each
 * watched process has used (user and system, JIT and GC included; other load on the machine does
 * not change it the way it changes rates). Figures are read between two points: over the whole
 * run, or from the first point past a warm-up.
 */
final class RunTrace {

    static final Duration POLL = Duration.ofMillis(200);

    private final Map<String, Long> processes;
    private final List<Point> points = new ArrayList<>();
    private final long begin = System.nanoTime();

    private record Point(long nanos, long done, long[] cpuNanos) {
    }

    /** Starts the trace now, with a first point of nothing done; {@code processes}: name → pid, in order. */
    RunTrace(Map<String, Long> processes) {
        this.processes = new LinkedHashMap<>(processes);
        mark(0);
    }

    /** Adds a point now, with {@code done} input records so far. */
    void mark(long done) {
        long[] cpu = processes.values().stream().mapToLong(pid -> cpu(pid).toNanos()).toArray();
        points.add(new Point(System.nanoTime() - begin, done, cpu));
    }

    /**
     * Marks a point every 200 ms, with {@code done} read each time, until {@code finished} holds
     * after one; fails, saying {@code why}, when a watched process stops or the run outlasts {@code limit}.
     */
    void follow(LongSupplier done, BooleanSupplier finished, Duration limit, Supplier<String> why)
            throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        do {
            boolean stopped = processes.values().stream()
                    .anyMatch(pid -> ProcessHandle.of(pid).map(process -> !process.isAlive()).orElse(true));
            if (stopped || System.nanoTime() > deadline) {
                throw new IllegalStateException((stopped ? "a process of the run stopped" : "the run outlasted "
                        + limit.toMinutes() + " minutes") + " before the end of its input; " + why.get());
            }
            Thread.sleep(POLL.toMillis());
            mark(done.getAsLong());
        } while (!finished.getAsBoolean());
    }

    /** Input records done at the latest point. */
    long done() {
        return last().done();
    }

    /** Seconds from the start to the latest point. */
    double seconds() {
        return last().nanos() / 1e9;
    }

    /** Every record done at the latest point, over the time from the start to it. */
    Measure all() {
        return new Measure(last().done(), last().nanos());
    }

    /** From the start to the first point at which {@code records} were done; null before that. */
    Measure until(long records) {
        return points.stream().filter(point -> point.done() >= records).findFirst()
                .map(point -> new Measure(point.done(), point.nanos())).orElse(null);
    }

    /**
     * The records done after the first {@code warmup}, from the first point past them to the
     * latest; null when no point falls between the warm-up and the end.
     */
    Measure after(long warmup) {
        Point warm = warmPoint(warmup);
        return warm == null ? null : new Measure(last().done() - warm.done(), last().nanos() - warm.nanos());
    }

    /** CPU seconds {@code process} used from the start to the latest point. */
    double cpuSeconds(String process) {
        return cpuSeconds(process, points.get(0));
    }

    /** CPU seconds {@code process} used from the first point past {@code warmup} records to the latest; 0 when none. */
    double cpuSecondsAfter(String process, long warmup) {
        Point warm = warmPoint(warmup);
        return warm == null ? 0 : cpuSeconds(process, warm);
    }

    private double cpuSeconds(String process, Point from) {
        int index = new ArrayList<>(processes.keySet()).indexOf(process);
        if (index < 0) {
            throw new IllegalArgumentException("not a watched process: " + process);
        }
        return (last().cpuNanos()[index] - from.cpuNanos()[index]) / 1e9;
    }

    private Point warmPoint(long warmup) {
        long end = last().done();
        return points.stream().filter(point -> point.done() >= warmup && point.done() < end).findFirst().orElse(null);
    }

    private Point last() {
        return points.get(points.size() - 1);
    }

    /** CPU time a process has used so far, user and system; zero where the platform does not say. */
    static Duration cpu(long pid) {
        return ProcessHandle.of(pid).flatMap(process -> process.info().totalCpuDuration()).orElse(Duration.ZERO);
    }
}
