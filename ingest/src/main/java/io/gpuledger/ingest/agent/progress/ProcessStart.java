package io.gpuledger.ingest.agent.progress;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * When a process started, as {@code /proc/<pid>/stat} says: its 22nd field, clock ticks after boot. A pid the
 * kernel gives again after its process ended names a process of another start, so the pid and its start together
 * name one process.
 */
final class ProcessStart {

    /** The start time's field, counted from 1 as proc(5) counts them. */
    private static final int START_FIELD = 22;
    /** The first field after the command: the state. */
    private static final int FIRST_AFTER_COMMAND = 3;

    private ProcessStart() {
    }

    /** The start of process {@code pid} under {@code procRoot} (normally {@code /proc}); empty when none is read. */
    static OptionalLong of(Path procRoot, int pid) {
        try {
            return parse(Files.readString(procRoot.resolve(Integer.toString(pid)).resolve("stat"),
                    StandardCharsets.UTF_8));
        } catch (IOException | SecurityException e) {
            // No such process, or none the agent may see (without the host's process table).
            return OptionalLong.empty();
        }
    }

    /** The start in the text of a stat file; empty when it has none. */
    static OptionalLong parse(String stat) {
        // The command, the second field, stands in parentheses and may hold spaces and parentheses: the fields
        // after it start after the last ')'.
        int commandEnd = stat.lastIndexOf(')');
        if (commandEnd < 0) {
            return OptionalLong.empty();
        }
        String[] after = stat.substring(commandEnd + 1).strip().split("\\s+");
        int at = START_FIELD - FIRST_AFTER_COMMAND;
        if (after.length <= at) {
            return OptionalLong.empty();
        }
        try {
            long ticks = Long.parseLong(after[at]);
            return ticks < 0 ? OptionalLong.empty() : OptionalLong.of(ticks);
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
