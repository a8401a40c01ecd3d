package io.gpuledger.alerts.feed;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Says, per key, whether at least an interval has passed since the key was last taken: a reader
 * that needs only what rarely changes in a frequent record (a job's traits in its work reports,
 * sent as often as samples) takes one record a key per interval and passes over the rest unread.
 */
public final class KeyedInterval {

    private final Duration interval;
    private final Map<String, Instant> takenAt = new ConcurrentHashMap<>();

    public KeyedInterval(Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the interval must be positive, was " + interval);
        }
        this.interval = interval;
    }

    /** True, and {@code key} taken now, when it was never taken or last taken an interval or more ago. */
    public boolean take(String key, Instant now) {
        Instant last = takenAt.get(key);
        if (last != null && now.isBefore(last.plus(interval)) && !now.isBefore(last)) {
            return false;
        }
        takenAt.put(key, now);
        return true;
    }

    /** Forgets the keys taken an interval or more ago: they would be taken again anyway. */
    public void prune(Instant now) {
        takenAt.values().removeIf(last -> !now.isBefore(last.plus(interval)));
    }

    int size() {
        return takenAt.size();
    }
}
