package io.gpuledger.cli;

import io.gpuledger.processes.JvmOptions;
import io.gpuledger.processes.LogTail;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * A {@code gpu-ledger} command run in a JVM of its own, as the script runs it, with its output in a
 * log file. Closing it asks it to stop (SIGTERM: the demo and the simulator stop what they started),
 * then stops by process id whatever it started that is still running, and kills what lingers.
 */
public final class CliProcess implements AutoCloseable {

    private static final Duration STOP = Duration.ofSeconds(60);

    private final Process process;
    private final Path log;

    private CliProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    public static CliProcess start(Path log, List<String> jvmOptions, Map<String, String> environment,
            String... arguments) throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        ProcessBuilder builder = new ProcessBuilder(command(jvmOptions, arguments)).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().remove("KAFKA_BOOTSTRAP_SERVERS");
        builder.environment().putAll(environment);
        return new CliProcess(builder.start(), log);
    }

    public static List<String> command(List<String> jvmOptions, String... arguments) {
        Path home = Path.of(System.getProperty("gpuledger.home", ".")).toAbsolutePath().normalize();
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add(JvmOptions.EXIT_ON_OUT_OF_MEMORY);
        command.addAll(jvmOptions);
        command.add("-Dgpuledger.home=" + home);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(arguments));
        return command;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The processes it started that still run (the demo's alert service), by process id. */
    public List<Long> descendants() {
        return process.descendants().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).toList();
    }

    public Path log() {
        return log;
    }

    /** Waits for a command that ends by itself; its exit status, or empty if it still runs after {@code timeout}. */
    public OptionalInt awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? OptionalInt.of(process.exitValue())
                : OptionalInt.empty();
    }

    /** The log's last lines, for failure messages. */
    public String tail() {
        return LogTail.of(log, 20);
    }

    @Override
    public void close() throws InterruptedException {
        List<ProcessHandle> started = process.descendants().toList();
        process.destroy();
        if (!process.waitFor(STOP.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        for (ProcessHandle child : started) {
            if (child.isAlive()) {
                child.destroy();
                child.onExit().completeOnTimeout(child, 15, TimeUnit.SECONDS).join();
                if (child.isAlive()) {
                    child.destroyForcibly();
                }
            }
        }
    }
}
