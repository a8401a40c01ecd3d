package io.gpuledger.alerts.anomaly;

import java.time.Instant;

/**
 * The newest minute a series has taken. Closed minutes arrive in order; one that is not newer
 * than the last taken (a re-emission, a replay after a restart) would be counted twice, so it
 * is refused, and the detector counts it.
 */
final class MinuteOrder {

    private Instant last;

    /** Takes {@code minuteStart} if it is newer than every minute taken before; false otherwise. */
    boolean advance(Instant minuteStart) {
        if (last != null && !minuteStart.isAfter(last)) {
            return false;
        }
        last = minuteStart;
        return true;
    }
}
