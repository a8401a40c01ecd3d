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
 * @param idleSeconds     part of it with SM activity under the idle threshold; time of samples
 *                        without an activity reading is never counted idle (see
 *                        {@link #activityUnknownSeconds()})
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
        return add(sample, gpuPricePerHour, stalePrice, 1);
    }

    /**
     * As {@link #add(TelemetrySample, Double, boolean)} for a {@code share} (0–1) of the sample's
     * interval: the part of it charged here, the rest being charged already (by another sample
     * of the same seconds) or elsewhere (in another minute). Every figure that grows with time
     * (seconds, cost, energy, bytes, the weights of the means) is that share of the sample's; the
     * sample counts once.
     */
    public UsageTotals add(TelemetrySample sample, Double gpuPricePerHour, boolean stalePrice, double share) {
        double readingSeconds = sample.intervalSeconds() * share;
        double seconds = sample.intervalSeconds() * sample.chargedFraction() * share;
        double cost = gpuPricePerHour == null ? 0 : gpuPricePerHour * seconds / 3600;
        // Unknown activity is neither idle nor busy: its time is charged, its idle share not guessed.
        Double activity = sample.smActive();
        boolean idle = activity != null && activity < IDLE_SM_ACTIVE;
        double power = sample.powerWatts() == null ? 0 : sample.powerWatts();
        double nvlink = sample.nvlinkTxBytesPerSecond() == null ? 0 : sample.nvlinkTxBytesPerSecond();
        return new UsageTotals(samples + 1, gpuSeconds + seconds,
                unpricedSeconds + (gpuPricePerHour == null ? seconds : 0),
                stalePricedSeconds + (gpuPricePerHour != null && stalePrice ? seconds : 0),
                this.cost + cost,
                idleSeconds + (idle ? seconds : 0),
                idleCost + (idle ? cost : 0),
                unmonitoredSeconds,
                smActive.add(activity, seconds),
                smOccupancy.add(sample.smOccupancy(), seconds),
                dramActive.add(sample.dramActive(), seconds),
                tensorActive.add(sample.tensorActive(), seconds),
                powerWatts.add(sample.powerWatts(), readingSeconds),
                energyKwh + power * readingSeconds / 3_600_000,
                nvlinkBytes + nvlink * readingSeconds, unmonitoredCost);
    }

    /**
     * These totals counting no sample: a further part of a sample counted already (the seconds of
     * one sample under a second price in the same minute), to add to that minute's totals.
     */
    public UsageTotals uncounted() {
        return new UsageTotals(0, gpuSeconds, unpricedSeconds, stalePricedSeconds, cost, idleSeconds, idleCost,
                unmonitoredSeconds, smActive, smOccupancy, dramActive, tensorActive, powerWatts, energyKwh,
                nvlinkBytes, unmonitoredCost);
    }

    public UsageTotals plus(UsageTotals other) {
        return new UsageTotals(samples + other.samples, gpuSeconds + other.gpuSeconds,
                unpricedSeconds + other.unpricedSeconds, stalePricedSeconds + other.stalePricedSeconds,
                cost + other.cost, idleSeconds + other.idleSeconds,
                idleCost + other.idleCost, unmonitoredSeconds + other.unmonitoredSeconds, smActive.plus(other.smActive),
                        smOccupancy.plus(other.smOccupancy),
                dramActive.plus(other.dramActive), tensorActive.plus(other.tensorActive),
                powerWatts.plus(other.powerWatts), energyKwh + other.energyKwh, nvlinkBytes + other.nvlinkBytes,
                unmonitoredCost + other.unmonitoredCost);
    }

    /** These totals with {@code seconds} more of unmonitored GPU time, which cost {@code estimatedCost}. */
    public UsageTotals plusUnmonitored(double seconds, double estimatedCost) {
        return new UsageTotals(samples, gpuSeconds, unpricedSeconds, stalePricedSeconds, cost, idleSeconds, idleCost,
                unmonitoredSeconds + seconds, smActive, smOccupancy, dramActive, tensorActive, powerWatts, energyKwh,
                nvlinkBytes, unmonitoredCost + estimatedCost);
    }

    /**
     * The part of {@link #gpuSeconds} whose samples had no activity reading: charged like the rest,
     * counted neither idle nor busy. It is what the mean {@link #smActive} does not cover, since
     * that mean takes each sample's charged seconds when its activity is known.
     */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double activityUnknownSeconds() {
        return Math.max(0, gpuSeconds - smActive.seconds());
    }

    /**
     * Cost per GPU-hour covered: the mean price paid for a whole GPU's hour (a 1/7 slice covers a
     * seventh of a GPU-hour in an hour). Not what anything spends per hour: see {@link #costPerHour}.
     * 0 when none was covered.
     */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double costPerGpuHour() {
        return gpuSeconds <= 1e-9 ? 0 : cost / gpuSeconds * 3600;
    }

    /** Idle time's cost per GPU-hour covered, as {@link #costPerGpuHour()}. */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public double idleCostPerGpuHour() {
        return gpuSeconds <= 1e-9 ? 0 : idleCost / gpuSeconds * 3600;
    }

    /**
     * What {@code gpuEquivalents} of GPU (a slice's share, or the sum of the shares of a job's,
     * team's or pool's GPUs) spend per hour of wall time at these totals: their cost over the wall
     * time they were covered, which is their GPU time spread over that much GPU. For several GPUs
     * it is the sum of their rates wherever they were covered for equally long (as in a closed
     * minute of GPUs sampled throughout).
     */
    public double costPerHour(double gpuEquivalents) {
        return costPerGpuHour() * gpuEquivalents;
    }

    /** What their idle time spends per hour of wall time, as {@link #costPerHour(double)}. */
    public double idleCostPerHour(double gpuEquivalents) {
        return idleCostPerGpuHour() * gpuEquivalents;
    }
}
