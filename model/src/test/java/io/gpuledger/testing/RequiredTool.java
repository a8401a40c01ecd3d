package io.gpuledger.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test does when a program of the machine that it needs (promtool, amtool, node, kubectl, a
 * schema checker) is missing: on a developer's machine it is skipped, saying why; where the build
 * is told {@code -Dgpuledger.requireTools=true}, as {@code .ci/run} does, it fails, so that CI never
 * passes by skipping.
 */
public final class RequiredTool {

    /** The system property that turns a missing tool from a skip into a failure. */
    public static final String REQUIRE = "gpuledger.requireTools";

    private RequiredTool() {
    }

    /** The program's path, found on {@code PATH}; skips or fails the test when it is not there. */
    public static Path require(String program) {
        Optional<Path> path = find(program);
        assume(path.isPresent(), program + " is not installed (not on PATH)");
        return path.orElseThrow();
    }

    /** Skips or fails the test unless {@code available}; {@code missing} says what is missing. */
    public static void assume(boolean available, String missing) {
        decide(available, missing, required(System.getProperties()));
    }

    /** The program's path on this process's {@code PATH}, if it is there. */
    public static Optional<Path> find(String program) {
        return find(program, System.getenv().getOrDefault("PATH", ""));
    }

    static Optional<Path> find(String program, String searchPath) {
        for (String dir : searchPath.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return Optional.of(Path.of(dir, program));
            }
        }
        return Optional.empty();
    }

    static boolean required(Properties properties) {
        return Boolean.parseBoolean(properties.getProperty(REQUIRE, "false"));
    }

    static void decide(boolean available, String missing, boolean required) {
        if (available) {
            return;
        }
        if (required) {
            Assertions.fail(missing + "; -D" + REQUIRE + "=true makes every tool a requirement");
        }
        Assumptions.abort(missing + "; skipped (with -D" + REQUIRE + "=true it would fail)");
    }
}
