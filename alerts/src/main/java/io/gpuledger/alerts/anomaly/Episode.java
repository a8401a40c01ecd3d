package io.gpuledger.alerts.anomaly;

import io.gpuledger.model.CostAnomaly.Severity;
import java.time.Instant;

/**
 * One run of anomalous minutes of a series, so that a lasting anomaly is delivered once and not
 * every minute. It opens with its first anomalous minute, is delivered again only when its
 * severity rises, and closes after {@code recoveryMinutes} observed normal minutes in a row; an
 * anomalous minute before that continues it. Minutes not observed (gaps) count as neither.
 */
final class Episode {

    private final int recoveryMinutes;
    private Instant start;
    private Severity delivered;
    private int normalRun;

    Episode(int recoveryMinutes) {
        if (recoveryMinutes <= 0) {
            throw new IllegalArgumentException("recoveryMinutes must be positive, was " + recoveryMinutes);
        }
        this.recoveryMinutes = recoveryMinutes;
    }

    /**
     * An anomalous minute at {@code severity}; {@code startIfNew} is where a new episode begins. Returns
     * whether it is to be delivered: the episode's first minute, or a rise in severity.
     */
    boolean anomalous(Instant startIfNew, Severity severity) {
        if (start == null) {
            start = startIfNew;
        }
        normalRun = 0;
        if (delivered == null || severity.compareTo(delivered) > 0) {
            delivered = severity;
            return true;
        }
        return false;
    }

    void normal() {
        if (start != null && ++normalRun >= recoveryMinutes) {
            start = null;
            delivered = null;
            normalRun = 0;
        }
    }

    boolean open() {
        return start != null;
    }

    /** The first minute of the open episode; null when none is open. */
    Instant start() {
        return start;
    }
}
