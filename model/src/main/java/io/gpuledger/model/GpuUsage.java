package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * What one GPU did and cost in one window. Keyed on {@link Topics#USAGE} by {@link #gpuUuid()};
 * a window is re-emitted as samples arrive, each time with its totals so far, so the latest record
 * for a window is the one to keep.
 *
 * @param secondsObserved  GPU time covered by samples in the window
 * @param unpricedSeconds  part of it for which no price was known (charged nothing)
 * @param cost             money spent on that GPU time, in {@code currency}
 * @param smActive         time-weighted mean SM activity (0–1)
 */
public record GpuUsage(
        String gpuUuid,
        int gpuIndex,
        String gpuModel,
        String host,
        String instanceId,
        String instanceType,
        String provider,
        String region,
        Lifecycle lifecycle,
        String jobId,
        Instant windowStart,
        Instant windowEnd,
        long samples,
        double secondsObserved,
        double unpricedSeconds,
        double cost,
        String currency,
        double smActive) {

    public GpuUsage {
        Check.identity("gpuUuid", gpuUuid);
        Check.identity("host", host);
        Check.present("lifecycle", lifecycle);
        Check.instant("windowStart", windowStart);
        Check.instant("windowEnd", windowEnd);
        if (!windowEnd.isAfter(windowStart)) {
            throw new InvalidRecordException("windowEnd", "must be after windowStart");
        }
        Check.nonNegative("secondsObserved", secondsObserved);
        Check.nonNegative("unpricedSeconds", unpricedSeconds);
        Check.nonNegative("cost", cost);
        if (currency != null) {
            Check.currency("currency", currency);
        }
        Check.ratio("smActive", smActive);
    }

    /** An empty window for the GPU of {@code sample}, to which samples are then {@link #add}ed. */
    public static GpuUsage empty(TelemetrySample sample, Instant windowStart, Instant windowEnd) {
        return new GpuUsage(sample.gpuUuid(), sample.gpuIndex(), sample.gpuModel(), sample.host(),
                sample.instanceId(), sample.instanceType(), sample.provider(), sample.region(),
                sample.lifecycle(), sample.jobId(), windowStart, windowEnd, 0, 0, 0, 0, null, 0);
    }

    /**
     * This window with one more sample. The sample is charged {@code gpuPricePerHour} (times its
     * share of the GPU, for a MIG slice) for the interval it covers; a null price means no price was known: the time is counted as unpriced
     * and charged nothing, never dropped. Identity fields follow the latest sample (a job can change mid-window).
     */
    public GpuUsage add(TelemetrySample sample, Double gpuPricePerHour, String priceCurrency) {
        double interval = sample.intervalSeconds();
        double seconds = secondsObserved + interval;
        double weightedSm = (smActive * secondsObserved + sample.smActive() * interval) / seconds;
        // One window holds one currency; a price in another (an offer re-quoted in a new
        // currency mid-window) cannot be added up, so that time is reported as unpriced.
        boolean priced = gpuPricePerHour != null && (currency == null || currency.equals(priceCurrency));
        return new GpuUsage(gpuUuid, sample.gpuIndex(), sample.gpuModel(), sample.host(),
                sample.instanceId(), sample.instanceType(), sample.provider(), sample.region(),
                sample.lifecycle(), sample.jobId(), windowStart, windowEnd, samples + 1, seconds,
                priced ? unpricedSeconds : unpricedSeconds + interval,
                priced ? cost + gpuPricePerHour * sample.chargedFraction() * interval / 3600 : cost,
                priced ? priceCurrency : currency,
                Math.min(1, Math.max(0, weightedSm)));
    }

    /** Observed spend rate of this GPU over the window; 0 when nothing was observed. */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double costPerHour() {
        return secondsObserved == 0 ? 0 : cost / secondsObserved * 3600;
    }

    public Offer offer() {
        return new Offer(provider, region, instanceType, lifecycle);
    }
}
