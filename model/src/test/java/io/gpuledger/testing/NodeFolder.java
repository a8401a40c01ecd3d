package io.gpuledger.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A node program of the tests, in a folder of its own with its {@code package.json} (a webhook receiver on the
 * Standard Webhooks library, a Kafka writer on kafkajs): node and the program's package, or the test is skipped,
 * saying why ({@link RequiredTool}). .ci/run installs both.
 */
public final class NodeFolder {

    /** How a command ended: its status (-1: it could not start or ran past its limit) and what it printed. */
    public record Ran(int status, List<String> printed) {
        public boolean succeeded() {
            return status == 0;
        }
    }

    private NodeFolder() {
    }

    /**
     * Skips (or fails) the test unless node runs and {@code module} is installed in {@code folder}; npm installs it
     * there when it is not yet. {@code program} names what cannot run without them.
     */
    public static void require(Path folder, String module, String program) throws InterruptedException {
        RequiredTool.assume(run(folder, Duration.ofSeconds(20), "node", "--version").succeeded(),
                "node is not installed: " + program + " cannot run (.ci/run installs it)");
        if (!Files.isDirectory(folder.resolve("node_modules").resolve(module))) {
            RequiredTool.assume(run(folder, Duration.ofMinutes(2), "npm", "install", "--no-audit", "--no-fund",
                    "--no-package-lock").succeeded(),
                    "npm could not install " + module + " into " + folder + " (.ci/run installs it)");
        }
    }

    /** Runs the command in {@code folder}, at most {@code limit}; standard output and error together. */
    public static Ran run(Path folder, Duration limit, String... command) throws InterruptedException {
        Path output = null;
        try {
            output = Files.createTempFile("node-folder", ".txt");
            Process process = new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
            boolean ended = process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
            if (!ended) {
                process.destroyForcibly().waitFor();
            }
            List<String> printed = Files.readAllLines(output, StandardCharsets.UTF_8);
            return new Ran(ended ? process.exitValue() : -1, printed);
        } catch (IOException e) {
            return new Ran(-1, List.of(e.toString()));
        } finally {
            if (output != null) {
                try {
                    Files.deleteIfExists(output);
                } catch (IOException e) {
                    // a temporary file left behind
                }
            }
        }
    }
}
