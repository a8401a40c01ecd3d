package io.gpuledger.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A command-line tool of the deployment (promtool, amtool, …) run as an operator would run it.
 * The tools are not Maven artifacts: a test asks for its tool with {@code RequiredTool}, which
 * skips it where the tool is missing, or fails it in CI, which installs them.
 */
final class InstalledTool {

    private static final long TIMEOUT_SECONDS = 60;

    /** What one run printed (standard output and error together) and how it ended. */
    record Run(List<String> command, int exitCode, String output) {

        /** The command and everything it printed, for an assertion's message. */
        String report() {
            return "$ " + String.join(" ", command) + " (exit " + exitCode + ")\n" + output;
        }
    }

    private InstalledTool() {
    }

    /** Runs {@code command} in the repository root and waits for it, at most a minute. */
    static Run run(String... command) throws IOException, InterruptedException {
        // Output goes to a file rather than a pipe: a tool that hangs cannot then block the read,
        // and the timeout below still applies.
        Path log = Files.createTempFile("gpuledger-tool", ".log");
        try {
            Process process = new ProcessBuilder(command)
                    .directory(RepositoryFiles.root().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within "
                        + TIMEOUT_SECONDS + " s:\n" + Files.readString(log, StandardCharsets.UTF_8));
            }
            return new Run(List.of(command), process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
