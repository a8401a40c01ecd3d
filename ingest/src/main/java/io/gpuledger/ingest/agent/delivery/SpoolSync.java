package io.gpuledger.ingest.agent.delivery;

import java.time.Duration;
import java.util.Locale;

/**
 * When the spool asks the disk to make what it wrote durable (fsync). Written bytes survive a crash
 * of the agent alone either way, since they sit in the operating system's cache; fsync is about a
 * crash or power cut of the whole node.
 *
 * @param every null for {@code always} (after every record) or {@code never}
 */
public record SpoolSync(Kind kind, Duration every) {

    public enum Kind {
        ALWAYS, INTERVAL, NEVER
    }

    /**
     * Once a second: a power cut loses at most about the last second of spooled records (one sample
     * round of a node, at the default 10 s interval, is smaller than that), while an fsync per
     * record would cost a disk flush per sample during an outage.
     */
    public static final SpoolSync DEFAULT = new SpoolSync(Kind.INTERVAL, Duration.ofSeconds(1));

    public SpoolSync {
        if ((kind == Kind.INTERVAL) != (every != null) || every != null && (every.isNegative() || every.isZero())) {
            throw new IllegalArgumentException("an interval sync needs a positive period, the others none");
        }
    }

    /** {@code always}, {@code never}, or seconds between two syncs ({@code 1}, {@code 0.2}). */
    public static SpoolSync parse(String key, String text) {
        String value = text.trim().toLowerCase(Locale.ROOT);
        if (value.equals("always")) {
            return new SpoolSync(Kind.ALWAYS, null);
        }
        if (value.equals("never")) {
            return new SpoolSync(Kind.NEVER, null);
        }
        try {
            double seconds = Double.parseDouble(value);
            if (!(seconds > 0) || Double.isInfinite(seconds)) {
                throw new NumberFormatException();
            }
            return new SpoolSync(Kind.INTERVAL, Duration.ofMillis(Math.max(1, Math.round(seconds * 1000))));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be always, never or a positive number of seconds, was '"
                    + text + "'");
        }
    }
}
