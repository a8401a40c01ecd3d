package io.gpuledger.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** What Linux says of a process in /proc: the CPU it has used and its resident memory. Linux only. */
final class ProcFiles {

    private ProcFiles() {
    }

    /** CPU ticks a process has used, user and system: its own, and its waited-for children's. */
    record Ticks(long own, long children) {
    }

    /** Ticks in a second ({@code getconf CLK_TCK}; 100 where it does not answer). */
    static long ticksPerSecond() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").start();
            String value = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            getconf.waitFor(5, TimeUnit.SECONDS);
            return Long.parseLong(value);
        } catch (Exception e) {
            return 100;
        }
    }

    /** From /proc/PID/stat. */
    static Ticks ticks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        // Fields after the command name in parentheses, which may itself hold spaces.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long utime = Long.parseLong(fields[11]);
        long stime = Long.parseLong(fields[12]);
        long cutime = Long.parseLong(fields[13]);
        long cstime = Long.parseLong(fields[14]);
        return new Ticks(utime + stime, cutime + cstime);
    }

    /** Resident memory now (VmRSS), in KiB. */
    static long residentKb(long pid) throws IOException {
        return statusKb(pid, "VmRSS:");
    }

    /** The most resident memory the process has had (VmHWM), in KiB. */
    static long peakResidentKb(long pid) throws IOException {
        return statusKb(pid, "VmHWM:");
    }

    private static long statusKb(long pid, String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return 0;
    }
}
