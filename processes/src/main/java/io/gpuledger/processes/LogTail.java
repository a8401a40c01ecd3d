package io.gpuledger.processes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The last lines of a child process's log, for the message of a failure it caused. */
public final class LogTail {

    private LogTail() {
    }

    public static String of(Path log, int count) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }
}
