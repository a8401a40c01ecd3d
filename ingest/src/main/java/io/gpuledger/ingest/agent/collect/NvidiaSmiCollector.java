package io.gpuledger.ingest.agent.collect;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads nvidia-smi's CSV query output through {@code /bin/sh -c COMMAND}, in one of two ways:
 * <ul>
 *   <li>a command that prints once is run every round;</li>
 *   <li>a command in nvidia-smi's loop mode ({@code -l}, {@code -lms}, {@code --loop},
 *       {@code --loop-ms}) is started once and its rows are read as they come: no process is
 *       started per round, which is most of the agent's CPU otherwise. A loop that ends is
 *       started again on the next round, and that round reports why it ended.</li>
 * </ul>
 * A command that fails, hangs past the timeout or prints nothing readable makes a failed
 * round, not a crash.
 */
public final class NvidiaSmiCollector implements Collector {

    /** Every field the agent maps, no header, no units; printed once. */
    public static final String DEFAULT_COMMAND = "nvidia-smi --query-gpu="
            + String.join(",", NvidiaSmiCsv.DEFAULT_FIELDS)
            + " --format=csv,noheader,nounits";

    private static final Pattern LOOP = Pattern.compile("(^|\\s)(-l|-lms|--loop|--loop-ms)(=|\\s|$)");

    private final String command;
    private final List<String> fields;
    private final Duration timeout;
    private final boolean looping;
    private final Map<String, GpuReading> latest = new LinkedHashMap<>();
    private final List<String> streamErrors = new ArrayList<>();
    private Process loop;
    private Thread loopReader;

    public NvidiaSmiCollector(String command, Duration timeout) {
        this.command = command;
        this.fields = NvidiaSmiCsv.fieldsOf(command);
        this.timeout = timeout;
        this.looping = LOOP.matcher(command).find();
    }

    /** The default command in loop mode, printing a row per GPU every {@code interval}. */
    public static String defaultLoopingCommand(Duration interval) {
        return DEFAULT_COMMAND + " --loop-ms=" + Math.max(100, interval.toMillis());
    }

    @Override
    public String name() {
        return "nvidia-smi";
    }

    @Override
    public Round collect() {
        return looping ? collectFromLoop() : runOnce();
    }

    private Round runOnce() {
        ShellCommand.Output output;
        try {
            output = ShellCommand.run(command, timeout);
        } catch (ShellCommand.TimedOut e) {
            return Round.failed("nvidia-smi: " + e.getMessage());
        } catch (IOException e) {
            return Round.failed("nvidia-smi: cannot run '" + command + "': " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Round.failed("nvidia-smi: interrupted");
        }
        if (output.exitCode() != 0) {
            return Round.failed("nvidia-smi: '" + command + "' exited with " + output.exitCode() + ": "
                    + firstLine(output.stderr()));
        }
        NvidiaSmiCsv.Result result = NvidiaSmiCsv.parse(output.stdout(), fields);
        if (result.readings().isEmpty() && result.errors().isEmpty()) {
            return Round.failed("nvidia-smi: '" + command + "' printed no GPU");
        }
        return new Round(result.readings(), result.errors());
    }

    private Round collectFromLoop() {
        List<String> errors = new ArrayList<>();
        synchronized (latest) {
            if (loop != null && !loop.isAlive()) {
                errors.add("nvidia-smi: '" + command + "' ended with " + loop.exitValue() + "; starting it again");
                loop = null;
            }
            if (loop == null) {
                latest.clear();
                try {
                    loop = start();
                } catch (IOException e) {
                    return Round.failed("nvidia-smi: cannot run '" + command + "': " + e.getMessage());
                }
                Process started = loop;
                loopReader = new Thread(() -> readLoop(started), "nvidia-smi-loop");
                loopReader.setDaemon(true);
                loopReader.start();
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            // Wait for the reader, not the process: a loop that printed and ended still has lines to give.
            while (latest.isEmpty() && loopReader.isAlive() && System.nanoTime() < deadline) {
                try {
                    latest.wait(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            errors.addAll(streamErrors);
            streamErrors.clear();
            if (latest.isEmpty()) {
                errors.add("nvidia-smi: '" + command + "' printed no GPU within " + timeout.toSeconds() + " s");
            }
            return new Round(List.copyOf(latest.values()), errors);
        }
    }

    private void readLoop(Process process) {
        NvidiaSmiCsv.LineReader reader = new NvidiaSmiCsv.LineReader(fields);
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            List<String> errors = new ArrayList<>();
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                var reading = reader.line(line, errors);
                synchronized (latest) {
                    reading.ifPresent(r -> latest.put(r.uuid(), r));
                    streamErrors.addAll(errors);
                    errors.clear();
                    latest.notifyAll();
                }
            }
        } catch (IOException e) {
            // The process ended or was stopped; the next round starts it again.
        }
    }

    private Process start() throws IOException {
        Process process = new ProcessBuilder("/bin/sh", "-c", command).start();
        process.getOutputStream().close();
        return process;
    }

    @Override
    public void close() {
        synchronized (latest) {
            if (loop != null) {
                loop.descendants().forEach(ProcessHandle::destroy);
                loop.destroy();
                loop = null;
            }
        }
    }

    private static String firstLine(String text) {
        String trimmed = text.strip();
        int newline = trimmed.indexOf('\n');
        return newline < 0 ? trimmed : trimmed.substring(0, newline);
    }
}
