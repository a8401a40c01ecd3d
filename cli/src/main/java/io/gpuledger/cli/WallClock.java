package io.gpuledger.cli;

import java.time.Clock;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;

/** The time of day the command line prints before a status line: always {@code HH:mm:ss}. */
final class WallClock {

    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("HH:mm:ss");

    private WallClock() {
    }

    static String now(Clock clock) {
        return LocalTime.now(clock).format(FORMAT);
    }
}
