package io.gpuledger.streams.cost;

import io.gpuledger.model.TelemetrySample;
import java.time.Instant;

/**
 * Where a sample or a work report sits in time. Each covers the interval that ends at its
 * {@code time}, and its event time is the middle of that interval: a work report counts in the
 * minute that holds it, and the engine's clock moves with the samples' (a sample's seconds
 * themselves are charged in the minutes they fall in, see {@link GpuWindows}).
 */
public final class EventTime {

    private EventTime() {
    }

    public static long millis(TelemetrySample sample) {
        return middle(sample.time(), sample.intervalSeconds());
    }

    /** The middle, in epoch millis, of the {@code intervalSeconds} that end at {@code end}. */
    public static long middle(Instant end, double intervalSeconds) {
        return end.toEpochMilli() - Math.round(intervalSeconds * 500);
    }

    /** The start of the period of {@code periodMillis}, aligned to the epoch, that holds {@code at}. */
    static long periodStart(long at, long periodMillis) {
        return at - Math.floorMod(at, periodMillis);
    }
}
