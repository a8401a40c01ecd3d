package io.gpuledger.bench;

import io.gpuledger.streams.CostEngineConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CPU a JVM's threads have used, by part: the demo's one JVM holds broker, cost engine and
 * simulated fleet, and only its threads' names tell their CPU apart. Read from the JVM's own
 * thread dump ({@code jcmd PID Thread.print}), which gives each thread's full name and CPU time;
 * {@code /proc} cuts names to 15 characters.
 */
final class ThreadCpu {

    /** A thread dump's header line: {@code "name" ... cpu=12.34ms ...}. */
    private static final Pattern THREAD = Pattern.compile("^\"(.*)\"[^\\n]*? cpu=([0-9.]+)ms", Pattern.MULTILINE);

    private ThreadCpu() {
    }

    /** Milliseconds of CPU each thread of {@code pid} has used, by name (threads of one name added up). */
    static Map<String, Double> byThread(long pid) throws IOException, InterruptedException {
        Process jcmd = new ProcessBuilder("jcmd", String.valueOf(pid), "Thread.print").redirectErrorStream(true)
                .start();
        String dump = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!jcmd.waitFor(30, TimeUnit.SECONDS) || jcmd.exitValue() != 0) {
            throw new IOException("jcmd " + pid + " Thread.print failed: " + dump.lines().findFirst().orElse(""));
        }
        return parse(dump);
    }

    static Map<String, Double> parse(String dump) {
        Map<String, Double> millis = new LinkedHashMap<>();
        Matcher matcher = THREAD.matcher(dump);
        while (matcher.find()) {
            millis.merge(matcher.group(1), Double.parseDouble(matcher.group(2)), Double::sum);
        }
        return millis;
    }

    /**
     * The CPU seconds used between two dumps, by part ({@code partOf} names a thread's part); a
     * thread that ended meanwhile is left out, one that started counts from zero.
     */
    static Map<String, Double> between(Map<String, Double> before, Map<String, Double> after,
            Function<String, String> partOf) {
        Map<String, Double> seconds = new LinkedHashMap<>();
        after.forEach((thread, millis) -> seconds.merge(partOf.apply(thread),
                Math.max(0, millis - before.getOrDefault(thread, 0.0)) / 1000, Double::sum));
        return seconds;
    }

    /** The part of the demo's JVM a thread works for, by its name. */
    static String demoPart(String thread) {
        if (thread.contains("fleet-simulator") || thread.contains("demo-fleet")) {
            return "simulated fleet";
        }
        if (thread.contains(CostEngineConfig.DEFAULT_APPLICATION_ID)) {
            return "cost engine";
        }
        return jvmPart(thread).orElse(thread.equals("main") ? "demo's summary line" : "embedded broker");
    }

    /** The part of the alert service a thread works for, by its name. */
    static String alertsPart(String thread) {
        if (thread.startsWith("alerts-fleet")) {
            return "reading the engine's topics";
        }
        if (thread.startsWith("alerts-capacity")) {
            return "reading capacity notices";
        }
        if (thread.startsWith("executor-thread") || thread.startsWith("vert.x")) {
            return "HTTP (API and metrics) and the series sweep";
        }
        return jvmPart(thread).orElse("the rest");
    }

    /** The JVM's own work: compiling and collecting. */
    private static Optional<String> jvmPart(String thread) {
        if (thread.contains("CompilerThread")) {
            return Optional.of("JIT compiler");
        }
        if (thread.startsWith("GC Thread") || thread.startsWith("G1 ") || thread.equals("VM Thread")) {
            return Optional.of("garbage collector");
        }
        return Optional.empty();
    }
}
