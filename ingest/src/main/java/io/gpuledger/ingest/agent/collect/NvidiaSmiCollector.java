package io.gpuledger.ingest.agent.collect;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs an nvidia-smi query (or any command printing its CSV) through {@code /bin/sh -c} and reads
 * its standard output. A command that fails, hangs past the timeout or prints nothing readable
 * makes a failed round, not a crash.
 */
public final class NvidiaSmiCollector implements Collector {

    public static final String DEFAULT_COMMAND = "nvidia-smi --query-gpu=" + String.join(",", NvidiaSmiCsv.DEFAULT_FIELDS)
            + " --format=csv,noheader,nounits";

    private final String command;
    private final List<String> fields;
    private final Duration timeout;

    public NvidiaSmiCollector(String command, Duration timeout) {
        this.command = command;
        this.fields = NvidiaSmiCsv.fieldsOf(command);
        this.timeout = timeout;
    }

    @Override
    public String name() {
        return "nvidia-smi";
    }

    @Override
    public Round collect() {
        Process process;
        try {
            process = new ProcessBuilder("/bin/sh", "-c", command).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        } catch (IOException e) {
            return Round.failed("nvidia-smi: cannot run '" + command + "': " + e.getMessage());
        }
        try {
            process.getOutputStream().close();
            CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> drain(process.getInputStream()));
            CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> drain(process.getErrorStream()));
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                return Round.failed("nvidia-smi: '" + command + "' did not finish within " + timeout.toSeconds() + " s");
            }
            String output = stdout.get(1, TimeUnit.SECONDS);
            if (process.exitValue() != 0) {
                return Round.failed("nvidia-smi: '" + command + "' exited with " + process.exitValue() + ": "
                        + firstLine(stderr.get(1, TimeUnit.SECONDS)));
            }
            NvidiaSmiCsv.Result result = NvidiaSmiCsv.parse(output, fields);
            if (result.readings().isEmpty() && result.errors().isEmpty()) {
                return Round.failed("nvidia-smi: '" + command + "' printed no GPU");
            }
            return new Round(result.readings(), result.errors());
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return Round.failed("nvidia-smi: interrupted");
        } catch (Exception e) {
            process.destroyForcibly();
            return Round.failed("nvidia-smi: " + e);
        }
    }

    private static String drain(InputStream in) {
        try (in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String firstLine(String text) {
        String trimmed = text.strip();
        int newline = trimmed.indexOf('\n');
        return newline < 0 ? trimmed : trimmed.substring(0, newline);
    }
}
