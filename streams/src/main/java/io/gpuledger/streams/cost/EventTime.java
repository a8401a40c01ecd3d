package io.gpuledger.streams.cost;

import io.gpuledger.model.TelemetrySample;
import java.time.Instant;

/**
 * Where a sample sits in time. A sample covers the interval that ends at its {@code time}; it is
 * placed, and priced, at the middle of that interval, so a sample straddling a window boundary
 * counts in the window that holds most of it.
 */
public final class EventTime {

    private EventTime() {
    }

    public static long millis(TelemetrySample sample) {
        return sample.time().toEpochMilli() - Math.round(sample.intervalSeconds() * 500);
    }

    public static Instant of(TelemetrySample sample) {
        return Instant.ofEpochMilli(millis(sample));
    }
}
