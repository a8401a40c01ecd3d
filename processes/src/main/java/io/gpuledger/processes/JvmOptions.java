package io.gpuledger.processes;

import java.util.List;

/** Extra JVM options for a program this command line starts, taken from an environment variable. */
public final class JvmOptions {

    /**
     * Before any other option of every JVM this command line starts: it ends on its first
     * OutOfMemoryError rather than running on without the thread that hit it, which nothing would
     * notice.
     */
    public static final String EXIT_ON_OUT_OF_MEMORY = "-XX:+ExitOnOutOfMemoryError";

    private JvmOptions() {
    }

    /** The options in {@code variable}, split on white space; none if it is not set. */
    public static List<String> fromEnvironment(String variable) {
        String extra = System.getenv(variable);
        return extra == null || extra.isBlank() ? List.of() : List.of(extra.trim().split("\\s+"));
    }
}
