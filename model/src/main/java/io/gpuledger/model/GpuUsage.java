package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * What one GPU (or MIG slice) did and cost in one window. Keyed on {@link Topics#USAGE} by
 * {@link #gpuUuid()}; a window is re-emitted as samples arrive, each time with its totals so far,
 * so the latest record of a window is the one to keep. Money is in the engine's reporting currency.
 *
 * @param closed true on the window's last record, emitted when the window closes (its end plus
 *               the grace period for late samples); only that record carries the window's
 *               unmonitored seconds, which are settled then
 * @param gpuFraction share of the physical GPU this window is of: 1 for a whole GPU, the slice's
 *               share for a MIG instance ({@link TelemetrySample#gpuFraction()}); absent (older
 *               records): 1
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
        String team,
        Instant windowStart,
        Instant windowEnd,
        String currency,
        UsageTotals totals,
        boolean closed,
        Double gpuFraction) {

    public GpuUsage {
        Check.identity("gpuUuid", gpuUuid);
        Check.identity("host", host);
        Check.present("lifecycle", lifecycle);
        Check.instant("windowStart", windowStart);
        Check.instant("windowEnd", windowEnd);
        if (!windowEnd.isAfter(windowStart)) {
            throw new InvalidRecordException("windowEnd", "must be after windowStart");
        }
        Check.currency("currency", currency);
        totals = totals == null ? UsageTotals.ZERO : totals;
        Check.nonNegative("totals.gpuSeconds", totals.gpuSeconds());
        Check.nonNegative("totals.cost", totals.cost());
        gpuFraction = gpuFraction == null ? 1.0 : gpuFraction;
        Check.positive("gpuFraction", gpuFraction);
        Check.ratio("gpuFraction", gpuFraction);
    }

    /** An empty window for the GPU of {@code sample}, to which samples are then {@link #add}ed. */
    public static GpuUsage empty(TelemetrySample sample, Instant windowStart, Instant windowEnd, String currency) {
        return new GpuUsage(sample.gpuUuid(), sample.gpuIndex(), sample.gpuModel(), sample.host(),
                sample.instanceId(), sample.instanceType(), sample.provider(), sample.region(),
                sample.lifecycle(), sample.jobId(), sample.team(), windowStart, windowEnd, currency, UsageTotals.ZERO,
                false, sample.chargedFraction());
    }

    /**
     * This window with one more sample charged {@code gpuPricePerHour} (in this window's currency;
     * null when no price was known: the time is counted as unpriced, never dropped). Identity
     * fields follow the latest sample, since a job can change within a window.
     */
    public GpuUsage add(TelemetrySample sample, Double gpuPricePerHour) {
        return new GpuUsage(gpuUuid, sample.gpuIndex(), sample.gpuModel(), sample.host(), sample.instanceId(),
                sample.instanceType(), sample.provider(), sample.region(), sample.lifecycle(), sample.jobId(),
                sample.team(), windowStart, windowEnd, currency, totals.add(sample, gpuPricePerHour), closed,
                sample.chargedFraction());
    }

    public Offer offer() {
        return new Offer(provider, region, instanceType, lifecycle);
    }

    /**
     * What this GPU (or slice) spends per hour of wall time, as observed over the window: a 1/7
     * slice of a 10 USD/h GPU spends 1.43 USD/h. 0 when nothing was observed.
     */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double costPerHour() {
        return totals.costPerHour(gpuFraction);
    }

    /** What its idle time spends per hour of wall time, as {@link #costPerHour()}. */
    public double idleCostPerHour() {
        return totals.idleCostPerHour(gpuFraction);
    }

    /** Time-weighted mean SM activity over the window (0 when nothing was observed). */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double smActive() {
        Double mean = totals.smActive().value();
        return mean == null ? 0 : Math.max(0, Math.min(1, mean));
    }

    public double cost() {
        return totals.cost();
    }

    /** Wall-clock seconds its samples covered: a slice's GPU seconds count its share of the GPU. */
    public double secondsObserved() {
        return totals.gpuSeconds() / gpuFraction;
    }

    /**
     * Wall-clock seconds its samples covered with an activity reading: those its mean
     * {@link #smActive()} stands for, a slice's counted as {@link #secondsObserved()} counts them.
     */
    public double secondsWithActivity() {
        return totals.smActive().seconds() / gpuFraction;
    }

    public double unpricedSeconds() {
        return totals.unpricedSeconds();
    }

    public double stalePricedSeconds() {
        return totals.stalePricedSeconds();
    }

    public long samples() {
        return totals.samples();
    }
}
