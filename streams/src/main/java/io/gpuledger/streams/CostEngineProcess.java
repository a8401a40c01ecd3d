package io.gpuledger.streams;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@link CostEngineMain} started as a child JVM, with its output in a log file of its own: how benchmarks
 * and tests run the engine apart from the broker and from themselves, and how they crash it.
 *
 * <pre>{@code
 * try (CostEngineProcess engine = CostEngineProcess.start(classpath, List.of("-Xmx512m"), args, log)) {
 *     engine.awaitRunning(Duration.ofSeconds(60));
 * }
 * }</pre>
 */
public final class CostEngineProcess implements AutoCloseable {

    private final Process process;
    private final Path log;

    private CostEngineProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * @param classpath  where the engine's classes and their dependencies are; a JVM's own
     *                   {@code java.class.path} will do when it holds the streams module
     * @param jvmOptions such as {@code -Xmx512m}
     * @param arguments  {@link CostEngineMain}'s options
     */
    public static CostEngineProcess start(String classpath, List<String> jvmOptions, List<String> arguments, Path log)
            throws IOException {
        return start(classpath, jvmOptions, arguments, log, Map.of());
    }

    /**
     * The same, with {@code environment} added: the engine's Kafka client settings
     * ({@code GPULEDGER_KAFKA_*}), say, as a deployment gives them.
     */
    public static CostEngineProcess start(String classpath, List<String> jvmOptions, List<String> arguments, Path log,
            Map<String, String> environment) throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        ProcessBuilder builder = new ProcessBuilder(command(classpath, jvmOptions, arguments)).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        // The engine reads the environment too; only the command line and the caller may speak to it here.
        builder.environment().remove("KAFKA_BOOTSTRAP_SERVERS");
        builder.environment().keySet().removeIf(name -> name.startsWith("GPULEDGER_"));
        builder.environment().putAll(environment);
        return new CostEngineProcess(builder.start(), log);
    }

    /**
     * The engine's command line. It ends on its first OutOfMemoryError, for whoever started it to
     * see it gone, rather than running on without the stream thread that hit it. It serves no
     * metrics unless {@code arguments} name a {@code --metrics-port}: engines run side by side
     * would all ask for the same default port.
     */
    static List<String> command(String classpath, List<String> jvmOptions, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-XX:+ExitOnOutOfMemoryError");
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classpath, CostEngineMain.class.getName()));
        command.addAll(arguments);
        if (!arguments.contains("--metrics-port")) {
            command.addAll(List.of("--metrics-port", "0"));
        }
        return command;
    }

    /** Waits until the engine has printed {@link CostEngineMain#RUNNING}: its tasks assigned and its state restored. */
    public void awaitRunning(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!hasRun()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the cost engine exited with status " + process.exitValue()
                        + " before it ran; its log: " + log + "\n" + tail());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the cost engine did not reach RUNNING within "
                        + timeout.toSeconds() + " s; its log: " + log + "\n" + tail());
            }
            Thread.sleep(100);
        }
    }

    private boolean hasRun() throws IOException {
        if (!Files.exists(log)) {
            return false;
        }
        try (Stream<String> lines = Files.lines(log)) {
            return lines.anyMatch(line -> line.startsWith(CostEngineMain.RUNNING));
        }
    }

    /** Kills the engine as a crash would (SIGKILL): no commit, no checkpoint, an open transaction left behind. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** Asks the engine to stop (SIGTERM) and waits; returns its exit status, or -1 if it had to be killed. */
    public int stop(Duration timeout) throws InterruptedException {
        process.destroy();
        if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return process.exitValue();
        }
        kill();
        return -1;
    }

    /** Waits for the engine to end by itself; its exit status, or -1 if it still runs after {@code timeout}. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    /** The last lines of the log, for failure messages. */
    public String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /** Stops the engine if it still runs: SIGTERM, then SIGKILL after 40 s (its own close waits up to 30 s). */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            stop(Duration.ofSeconds(40));
        }
    }
}
