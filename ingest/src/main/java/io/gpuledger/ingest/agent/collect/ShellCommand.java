package io.gpuledger.ingest.agent.collect;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** One run of a command through {@code /bin/sh -c}, nothing on its input, both outputs read whole. */
public final class ShellCommand {

    /** What the shell says when it cannot find the program. */
    public static final int NOT_FOUND = 127;

    private ShellCommand() {
    }

    /** How the command ended and what it printed. */
    public record Output(int exitCode, String stdout, String stderr) {
    }

    /** The command ran past its time and was stopped. */
    public static final class TimedOut extends IOException {
        private static final long serialVersionUID = 1L;

        TimedOut(String message) {
            super(message);
        }
    }

    /** The program could not be found: the shell answered {@link #NOT_FOUND}. */
    public static final class ProgramMissing extends IOException {
        private static final long serialVersionUID = 1L;

        ProgramMissing(String message) {
            super(message);
        }
    }

    /**
     * What {@code command} printed on its standard output, run as {@link #run} does, where it ended well.
     *
     * @throws ProgramMissing when its program cannot be found
     * @throws IOException    when it ends with another status (said with what it printed on its error output), runs
     *                        past {@code timeout}, or is interrupted
     */
    public static String stdoutOf(String command, Duration timeout) throws IOException {
        Output output = outputOf(command, timeout);
        if (output.exitCode() != 0) {
            throw failed(command, output);
        }
        return output.stdout();
    }

    /**
     * How {@code command} ended and what it printed, run as {@link #run} does, whatever its status but
     * {@link #NOT_FOUND}.
     *
     * @throws ProgramMissing when its program cannot be found
     * @throws IOException    when it runs past {@code timeout} or is interrupted
     */
    public static Output outputOf(String command, Duration timeout) throws IOException {
        Output output;
        try {
            output = run(command, timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (output.exitCode() == NOT_FOUND) {
            throw new ProgramMissing("'" + command + "' cannot be run: " + output.stderr().strip());
        }
        return output;
    }

    /** The failure of {@code command}, which ended with {@code output}: its status and its error output. */
    public static IOException failed(String command, Output output) {
        return new IOException("'" + command + "' exited with " + output.exitCode() + ": " + output.stderr().strip());
    }

    /**
     * Runs {@code command}, waiting up to {@code timeout} for it to end.
     *
     * @throws TimedOut    when it did not end in time (it is stopped)
     * @throws IOException when it cannot be started or its output cannot be read
     */
    public static Output run(String command, Duration timeout) throws IOException, InterruptedException {
        Process process = new ProcessBuilder("/bin/sh", "-c", command).start();
        process.getOutputStream().close();
        CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> drain(process.getInputStream()));
        CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> drain(process.getErrorStream()));
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                stop(process);
                throw new TimedOut("'" + command + "' did not finish within " + timeout.toSeconds() + " s");
            }
            return new Output(process.exitValue(), stdout.get(1, TimeUnit.SECONDS), stderr.get(1, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            stop(process);
            throw e;
        } catch (ExecutionException | TimeoutException e) {
            stop(process);
            throw new IOException("'" + command + "': " + e, e);
        }
    }

    /** Stops the shell and what it started: a shell that forks its command leaves it running otherwise. */
    private static void stop(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
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
}
