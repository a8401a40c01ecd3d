package io.gpuledger.cli;

import java.util.List;

/** Extra JVM options for a program this command line starts, taken from an environment variable. */
final class JvmOptions {

    private JvmOptions() {
    }

    /** The options in {@code variable}, split on white space; none if it is not set. */
    static List<String> fromEnvironment(String variable) {
        String extra = System.getenv(variable);
        return extra == null || extra.isBlank() ? List.of() : List.of(extra.trim().split("\\s+"));
    }
}
