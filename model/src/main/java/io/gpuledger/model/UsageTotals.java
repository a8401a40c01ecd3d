package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;

/**
 * The additive part of a usage window: every figure is a sum, so the totals of GPUs add up to
 * those of a job, team or pool, and an updated GPU window can be taken out of a roll-up and put
 * back in ({@link #plus}). Money is in the window's currency.
 *
 * @param gpuSeconds      GPU time covered by samples (a MIG slice counts its share of the GPU)
 * @param unpricedSeconds part of it for which no price was known: charged nothing, never dropped
 * @param stalePricedSeconds part of it charged at a price its feed had not confirmed for longer
 *                        than the engine's maximum age (30 minutes by default) before the sample:
 *                        charged all the same, at the last price known, but an estimate
 * @param idleSeconds     part of it with SM activity under the idle threshold
 * @param idleCost        what that idle time cost
 * @param unmonitoredSeconds GPU time of a running instance that no sample covered: the gaps
 *                        between two of a GPU's samples, settled when a window closes (see
 *                        {@code docs/architecture.md}, "unmonitored time")
 * @param energyKwh       energy drawn, from power readings × time
 * @param nvlinkBytes     NVLink bytes sent (rate readings × time)
 * @param unmonitoredCost what the unmonitored seconds cost at the price in force: an estimate, kept
 *                        apart from {@code cost}, which is what samples observed (0 in totals
 *                        written before it existed)
 */
public record UsageTotals(
        long samples,
        double gpuSeconds,
        double unpricedSeconds,
        double stalePricedSeconds,
        double cost,
        double idleSeconds,
        double idleCost,
        double unmonitoredSeconds,
        Mean smActive,
        Mean smOccupancy,
        Mean dramActive,
        Mean tensorActive,
        Mean powerWatts,
        double energyKwh,
        double nvlinkBytes,
        @JsonSetter(nulls = Nulls.AS_EMPTY) double unmonitoredCost) {

    public static final UsageTotals ZERO = new UsageTotals(0, 0, 0, 0, 0, 0, 0, 0, Mean.NONE, Mean.NONE, Mean.NONE,
            Mean.NONE, Mean.NONE, 0, 0, 0);

    /** SM activity under this share is idle (design rule: 5%). */
    public static final double IDLE_SM_ACTIVE = 0.05;

    public UsageTotals {
        smActive = smActive == null ? Mean.NONE : smActive;
        smOccupancy = smOccupancy == null ? Mean.NONE : smOccupancy;
        dramActive = dramActive == null ? Mean.NONE : dramActive;
        tensorActive = tensorActive == null ? Mean.NONE : tensorActive;
        powerWatts = powerWatts == null ? Mean.NONE : powerWatts;
    }

    /** Totals without unmonitored cost. */
    public UsageTotals(long samples, double gpuSeconds, double unpricedSeconds, double stalePricedSeconds, double cost,
            double idleSeconds, double idleCost, double unmonitoredSeconds, Mean smActive, Mean smOccupancy,
            Mean dramActive, Mean tensorActive, Mean powerWatts, double energyKwh, double nvlinkBytes) {
        this(samples, gpuSeconds, unpricedSeconds, stalePricedSeconds, cost, idleSeconds, idleCost, unmonitoredSeconds,
                smActive, smOccupancy, dramActive, tensorActive, powerWatts, energyKwh, nvlinkBytes, 0);
    }

    /** As {@link #add(TelemetrySample, Double, boolean)}, at a price confirmed recently enough. */
    public UsageTotals add(TelemetrySample sample, Double gpuPricePerHour) {
        return add(sample, gpuPricePerHour, false);
    }

    /**
     * These totals with one more sample, charged {@code gpuPricePerHour} (already the price of
     * one GPU, in the window's currency) for its share of the GPU over its interval; null: unpriced.
     * A {@code stalePrice} was last confirmed too long before the sample: its time is counted
     * as stale-priced too.
     */
    public UsageTotals add(TelemetrySample sample, Double gpuPricePerHour, boolean stalePrice) {
        double seconds = sample.intervalSeconds() * sample.chargedFraction();
        double cost = gpuPricePerHour == null ? 0 : gpuPricePerHour * seconds / 3600;
        boolean idle = sample.smActive() < IDLE_SM_ACTIVE;
        double power = sample.powerWatts() == null ? 0 : sample.powerWatts();
        double nvlink = sample.nvlinkTxBytesPerSecond() == null ? 0 : sample.nvlinkTxBytesPerSecond();
        return new UsageTotals(samples + 1, gpuSeconds + seconds,
                unpricedSeconds + (gpuPricePerHour == null ? seconds : 0),
                stalePricedSeconds + (gpuPricePerHour != null && stalePrice ? seconds : 0),
                this.cost + cost,
                idleSeconds + (idle ? seconds : 0),
                idleCost + (idle ? cost : 0),
                unmonitoredSeconds,
                smActive.add(sample.smActive(), seconds),
                smOccupancy.add(sample.smOccupancy(), seconds),
                dramActive.add(sample.dramActive(), seconds),
                tensorActive.add(sample.tensorActive(), seconds),
                powerWatts.add(sample.powerWatts(), sample.intervalSeconds()),
                energyKwh + power * sample.intervalSeconds() / 3_600_000,
                nvlinkBytes + nvlink * sample.intervalSeconds(), unmonitoredCost);
    }

    public UsageTotals plus(UsageTotals other) {
        return new UsageTotals(samples + other.samples, gpuSeconds + other.gpuSeconds,
                unpricedSeconds + other.unpricedSeconds, stalePricedSeconds + other.stalePricedSeconds,
                cost + other.cost, idleSeconds + other.idleSeconds,
                idleCost + other.idleCost, unmonitoredSeconds + other.unmonitoredSeconds, smActive.plus(other.smActive), smOccupancy.plus(other.smOccupancy),
                dramActive.plus(other.dramActive), tensorActive.plus(other.tensorActive),
                powerWatts.plus(other.powerWatts), energyKwh + other.energyKwh, nvlinkBytes + other.nvlinkBytes,
                unmonitoredCost + other.unmonitoredCost);
    }

    /** These totals with {@code seconds} more of unmonitored GPU time, of no known cost. */
    public UsageTotals plusUnmonitored(double seconds) {
        return plusUnmonitored(seconds, 0);
    }

    /** These totals with {@code seconds} more of unmonitored GPU time, which cost {@code estimatedCost}. */
    public UsageTotals plusUnmonitored(double seconds, double estimatedCost) {
        return new UsageTotals(samples, gpuSeconds, unpricedSeconds, stalePricedSeconds, cost, idleSeconds, idleCost,
                unmonitoredSeconds + seconds, smActive, smOccupancy, dramActive, tensorActive, powerWatts, energyKwh,
                nvlinkBytes, unmonitoredCost + estimatedCost);
    }

    /** Spend rate over the covered GPU time; 0 when none was covered. */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double costPerHour() {
        return gpuSeconds <= 1e-9 ? 0 : cost / gpuSeconds * 3600;
    }

    /** Idle time's spend rate, per hour of covered GPU time. */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double idleCostPerHour() {
        return gpuSeconds <= 1e-9 ? 0 : idleCost / gpuSeconds * 3600;
    }
}
