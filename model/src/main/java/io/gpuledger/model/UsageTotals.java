// Over 400 lines: every figure a window adds up is described here once, with the arithmetic all of them share.
package io.gpuledger.model;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.Arrays;

/**
 * The additive part of a usage window: every figure is a sum, so the totals of GPUs add up to
 * those of a job, team or pool, and an updated GPU window can be taken out of a roll-up and put
 * back in ({@link #plus}). Money is in the window's currency. The figures are the {@link Sum}s
 * and, for each {@link Reading#KEPT kept reading}, its time-weighted {@link Mean}; both tables
 * drive the JSON ({@link UsageTotalsJson}) and binary forms, so a figure added to either needs no
 * other change here.
 */
@JsonSerialize(using = UsageTotalsJson.Writer.class)
@JsonDeserialize(using = UsageTotalsJson.Reader.class)
public final class UsageTotals {

    /** The summed figures, each named as it is on the wire. Later ones are only ever added at the end. */
    public enum Sum {
        /** GPU time covered by samples (a MIG slice counts its share of the GPU). */
        GPU_SECONDS("gpuSeconds"),
        /** Part of it for which no price was known: charged nothing, never dropped. */
        UNPRICED_SECONDS("unpricedSeconds"),
        /**
         * Part of it charged at a price its feed had not confirmed for longer than the engine's
         * maximum age (30 minutes by default) before the sample: charged all the same, at the last
         * price known, but an estimate.
         */
        STALE_PRICED_SECONDS("stalePricedSeconds"),
        COST("cost"),
        /**
         * Part of the GPU time with SM activity under the idle threshold; time of samples without an
         * activity reading is never counted idle (see {@link #activityUnknownSeconds()}).
         */
        IDLE_SECONDS("idleSeconds"),
        /** What that idle time cost. */
        IDLE_COST("idleCost"),
        /**
         * GPU time of a running instance that no sample covered: the gaps between two of a GPU's
         * samples, settled when a window closes (docs/architecture.md, "unmonitored time").
         */
        UNMONITORED_SECONDS("unmonitoredSeconds"),
        /** Energy drawn, from power readings × time. */
        ENERGY_KWH("energyKwh"),
        /** NVLink bytes sent (rate readings × time). */
        NVLINK_BYTES("nvlinkBytes"),
        /**
         * What the unmonitored seconds cost at the price in force: an estimate, kept apart from
         * {@code cost}, which is what samples observed.
         */
        UNMONITORED_COST("unmonitoredCost"),
        /**
         * Part of the cost of shared GPUs that no job's share took: idle time, or time of processes the
         * agent could not map to a job. It stays with the GPU's pool and the node's team; a job's is 0.
         */
        UNALLOCATED_COST("unallocatedCost"),
        /** Part of the GPU time on shared GPUs whose shares were measured by SM time ({@link SharePolicy#SM}). */
        SM_SHARED_SECONDS("smSharedSeconds"),
        /** Part of the GPU time on shared GPUs whose shares were measured by memory ({@link SharePolicy#MEMORY}). */
        MEMORY_SHARED_SECONDS("memorySharedSeconds"),
        /** Part of the GPU time on shared GPUs split evenly among their processes ({@link SharePolicy#EVEN}). */
        EVEN_SHARED_SECONDS("evenSharedSeconds");

        private final String wireName;

        Sum(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        /** The part of the GPU time on shared GPUs whose shares were measured by {@code policy}. */
        public static Sum sharedSeconds(SharePolicy policy) {
            return switch (policy) {
                case SM -> SM_SHARED_SECONDS;
                case MEMORY -> MEMORY_SHARED_SECONDS;
                case EVEN -> EVEN_SHARED_SECONDS;
            };
        }
    }

    private static final int SUMS = Sum.values().length;
    private static final int MEANS = Reading.KEPT.size();
    private static final Reading[] KEPT = Reading.KEPT.toArray(new Reading[0]);
    /** By position among the means: whether the reading is weighted by wall time rather than charged time. */
    private static final boolean[] BY_WALL_TIME = new boolean[MEANS];
    /** Each kept reading's position among the means, by its ordinal; -1 for the others. */
    private static final int[] MEAN_AT = new int[Reading.values().length];

    static {
        Arrays.fill(MEAN_AT, -1);
        for (int i = 0; i < MEANS; i++) {
            MEAN_AT[KEPT[i].ordinal()] = i;
            BY_WALL_TIME[i] = KEPT[i].weighting() == Reading.Kept.OVER_READING_TIME;
        }
    }

    public static final UsageTotals ZERO = new UsageTotals(0, new double[SUMS], new double[2 * MEANS]);

    /** SM activity under this share is idle (design rule: 5%). */
    public static final double IDLE_SM_ACTIVE = 0.05;

    private final long samples;
    private final double[] sums;
    /** Per kept reading, in {@link Reading#KEPT} order: its weighted sum, then the seconds it was known. */
    private final double[] means;

    private UsageTotals(long samples, double[] sums, double[] means) {
        this.samples = samples;
        this.sums = sums;
        this.means = means;
    }

    public static Builder builder() {
        return ZERO.toBuilder();
    }

    public Builder toBuilder() {
        return new Builder(samples, sums.clone(), means.clone());
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
        double[] added = sums.clone();
        added[Sum.GPU_SECONDS.ordinal()] += seconds;
        added[Sum.UNPRICED_SECONDS.ordinal()] += gpuPricePerHour == null ? seconds : 0;
        added[Sum.STALE_PRICED_SECONDS.ordinal()] += gpuPricePerHour != null && stalePrice ? seconds : 0;
        added[Sum.COST.ordinal()] += cost;
        added[Sum.IDLE_SECONDS.ordinal()] += idle ? seconds : 0;
        added[Sum.IDLE_COST.ordinal()] += idle ? cost : 0;
        // Board power and NVLink traffic are the whole GPU's, also in a MIG slice's samples (no slice has readings of
        // its own): a slice takes its share of them, as of the time, and the slices of a GPU add up to its board.
        added[Sum.ENERGY_KWH.ordinal()] += power * seconds / 3_600_000;
        added[Sum.NVLINK_BYTES.ordinal()] += nvlink * seconds;
        double[] meansAdded = means.clone();
        for (int i = 0; i < MEANS; i++) {
            Double value = KEPT[i].of(sample);
            if (value != null) {
                double weight = BY_WALL_TIME[i] ? readingSeconds : seconds;
                meansAdded[2 * i] += value * weight;
                meansAdded[2 * i + 1] += weight;
            }
        }
        return new UsageTotals(samples + 1, added, meansAdded);
    }

    /**
     * These totals counting no sample: a further part of a sample counted already (the seconds of
     * one sample under a second price in the same minute), to add to that minute's totals.
     */
    public UsageTotals uncounted() {
        return new UsageTotals(0, sums, means);
    }

    public UsageTotals plus(UsageTotals other) {
        double[] summed = sums.clone();
        for (int i = 0; i < SUMS; i++) {
            summed[i] += other.sums[i];
        }
        double[] meansSummed = means.clone();
        for (int i = 0; i < meansSummed.length; i++) {
            meansSummed[i] += other.means[i];
        }
        return new UsageTotals(samples + other.samples, summed, meansSummed);
    }

    /**
     * A job's part of these totals, charged on a shared GPU: every figure that grows with time (seconds,
     * cost, energy, bytes, the weights of the means) is {@code share} of these; the samples count alike.
     */
    public UsageTotals part(double share) {
        double[] scaled = sums.clone();
        for (int i = 0; i < SUMS; i++) {
            scaled[i] *= share;
        }
        double[] meansScaled = means.clone();
        for (int i = 0; i < meansScaled.length; i++) {
            meansScaled[i] *= share;
        }
        return new UsageTotals(samples, scaled, meansScaled);
    }

    /**
     * Adds {@link #part}{@code (share)} of these totals to {@code sums} and {@code means} (as {@link #addTo} lays
     * them out) without making it: a shared GPU's sample is split this way into arrays it reuses.
     */
    public void addPartTo(double share, double[] sums, double[] means) {
        for (int i = 0; i < SUMS; i++) {
            sums[i] += this.sums[i] * share;
        }
        for (int i = 0; i < this.means.length; i++) {
            means[i] += this.means[i] * share;
        }
    }

    /**
     * What these totals leave once the parts {@code given} to jobs are taken out, figure by figure: the
     * unallocated rest of a shared GPU's charge, whose cost is counted as {@link Sum#UNALLOCATED_COST} too.
     * Its cost is this cost less the cost given, not this cost times the share left, so that the parts
     * and the rest add up to this cost to the last rounding of one sum.
     */
    public UsageTotals less(UsageTotals given) {
        double[] left = sums.clone();
        for (int i = 0; i < SUMS; i++) {
            left[i] -= given.sums[i];
        }
        left[Sum.UNALLOCATED_COST.ordinal()] += left[Sum.COST.ordinal()];
        double[] meansLeft = means.clone();
        for (int i = 0; i < meansLeft.length; i++) {
            meansLeft[i] -= given.means[i];
        }
        return new UsageTotals(samples, left, meansLeft);
    }

    /** These totals as charged on a GPU whose shares were measured by {@code policy}: their GPU time counted shared. */
    public UsageTotals sharedBy(SharePolicy policy) {
        return plusShared(policy, gpuSeconds());
    }

    /** These totals with {@code seconds} more of their GPU time counted as shared, by {@code policy}'s shares. */
    public UsageTotals plusShared(SharePolicy policy, double seconds) {
        double[] marked = sums.clone();
        marked[Sum.sharedSeconds(policy).ordinal()] += seconds;
        return new UsageTotals(samples, marked, means);
    }

    /** These totals with {@code seconds} more of unmonitored GPU time, which cost {@code estimatedCost}. */
    public UsageTotals plusUnmonitored(double seconds, double estimatedCost) {
        double[] added = sums.clone();
        added[Sum.UNMONITORED_SECONDS.ordinal()] += seconds;
        added[Sum.UNMONITORED_COST.ordinal()] += estimatedCost;
        return new UsageTotals(samples, added, means);
    }

    /**
     * Totals from their figures as {@link #addTo} adds them up: {@code sums} by {@link Sum} ordinal,
     * {@code means} two per {@link Reading#KEPT kept reading} (weighted sum, then seconds). Copied.
     */
    public static UsageTotals of(long samples, double[] sums, double[] means) {
        if (sums.length != SUMS || means.length != 2 * MEANS) {
            throw new IllegalArgumentException("expected " + SUMS + " sums and " + 2 * MEANS + " mean parts, not "
                    + sums.length + " and " + means.length);
        }
        return new UsageTotals(samples, sums.clone(), means.clone());
    }

    /**
     * Adds these totals' figures to {@code sums} and {@code means}, laid out as {@link #of} takes
     * them: how totals are added up in place, without a new object a sample.
     */
    public void addTo(double[] sums, double[] means) {
        for (int i = 0; i < SUMS; i++) {
            sums[i] += this.sums[i];
        }
        for (int i = 0; i < this.means.length; i++) {
            means[i] += this.means[i];
        }
    }

    public long samples() {
        return samples;
    }

    public double sum(Sum sum) {
        return sums[sum.ordinal()];
    }

    /**
     * The time-weighted mean of a kept reading, {@link Mean#NONE} when it was never known.
     *
     * @throws IllegalArgumentException for a reading the totals do not keep
     */
    public Mean mean(Reading reading) {
        int at = meanAt(reading);
        double weightedSum = means[2 * at];
        double seconds = means[2 * at + 1];
        return weightedSum == 0 && seconds == 0 ? Mean.NONE : new Mean(weightedSum, seconds);
    }

    /** The position of a kept reading among the means; refused for one the totals do not keep. */
    private static int meanAt(Reading reading) {
        int at = MEAN_AT[reading.ordinal()];
        if (at < 0) {
            throw new IllegalArgumentException(reading + " is not kept in usage totals");
        }
        return at;
    }

    public double gpuSeconds() {
        return sum(Sum.GPU_SECONDS);
    }

    public double unpricedSeconds() {
        return sum(Sum.UNPRICED_SECONDS);
    }

    public double stalePricedSeconds() {
        return sum(Sum.STALE_PRICED_SECONDS);
    }

    public double cost() {
        return sum(Sum.COST);
    }

    public double idleSeconds() {
        return sum(Sum.IDLE_SECONDS);
    }

    public double idleCost() {
        return sum(Sum.IDLE_COST);
    }

    public double unmonitoredSeconds() {
        return sum(Sum.UNMONITORED_SECONDS);
    }

    public double energyKwh() {
        return sum(Sum.ENERGY_KWH);
    }

    public double nvlinkBytes() {
        return sum(Sum.NVLINK_BYTES);
    }

    public double unmonitoredCost() {
        return sum(Sum.UNMONITORED_COST);
    }

    public double unallocatedCost() {
        return sum(Sum.UNALLOCATED_COST);
    }

    /** The part of {@link #gpuSeconds} on shared GPUs: a job's share of them, a pool's or GPU's whole time. */
    public double sharedGpuSeconds() {
        return sum(Sum.SM_SHARED_SECONDS) + sum(Sum.MEMORY_SHARED_SECONDS) + sum(Sum.EVEN_SHARED_SECONDS);
    }

    /** What most of the {@link #sharedGpuSeconds} were split by; null when none were shared. */
    public SharePolicy sharedBy() {
        SharePolicy most = null;
        double mostSeconds = 0;
        for (SharePolicy policy : SharePolicy.values()) {
            double seconds = sum(Sum.sharedSeconds(policy));
            if (seconds > mostSeconds) {
                most = policy;
                mostSeconds = seconds;
            }
        }
        return most;
    }

    /** The mean SM activity: the reading idle time and busy time are judged by. */
    public Mean smActive() {
        return mean(Reading.SM_ACTIVE);
    }

    /**
     * The part of {@link #gpuSeconds} whose samples had no activity reading: charged like the rest,
     * counted neither idle nor busy. It is what the mean {@link #smActive} does not cover, since
     * that mean takes each sample's charged seconds when its activity is known.
     */
    public double activityUnknownSeconds() {
        return Math.max(0, gpuSeconds() - smActive().seconds());
    }

    /**
     * Cost per GPU-hour covered: the mean price paid for a whole GPU's hour (a 1/7 slice covers a
     * seventh of a GPU-hour in an hour). Not what anything spends per hour: see {@link #costPerHour}.
     * 0 when none was covered.
     */
    public double costPerGpuHour() {
        return gpuSeconds() <= 1e-9 ? 0 : cost() / gpuSeconds() * 3600;
    }

    /** Idle time's cost per GPU-hour covered, as {@link #costPerGpuHour()}. */
    public double idleCostPerGpuHour() {
        return gpuSeconds() <= 1e-9 ? 0 : idleCost() / gpuSeconds() * 3600;
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

    @Override
    public boolean equals(Object other) {
        return other instanceof UsageTotals totals && samples == totals.samples && Arrays.equals(sums, totals.sums)
                && Arrays.equals(means, totals.means);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Long.hashCode(samples) + Arrays.hashCode(sums)) + Arrays.hashCode(means);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("UsageTotals[samples=").append(samples);
        for (Sum sum : Sum.values()) {
            text.append(", ").append(sum.wireName()).append('=').append(sum(sum));
        }
        for (Reading reading : Reading.KEPT) {
            text.append(", ").append(reading.wireName()).append('=').append(mean(reading));
        }
        return text.append(']').toString();
    }

    /** Totals figure by figure: what a reader of a stored or written form fills in. */
    public static final class Builder {
        private long samples;
        private final double[] sums;
        private final double[] means;

        private Builder(long samples, double[] sums, double[] means) {
            this.samples = samples;
            this.sums = sums;
            this.means = means;
        }

        public Builder samples(long value) {
            samples = value;
            return this;
        }

        public Builder sum(Sum sum, double value) {
            sums[sum.ordinal()] = value;
            return this;
        }

        /** @throws IllegalArgumentException for a reading the totals do not keep */
        public Builder mean(Reading reading, Mean mean) {
            int at = meanAt(reading);
            means[2 * at] = mean.weightedSum();
            means[2 * at + 1] = mean.seconds();
            return this;
        }

        public UsageTotals build() {
            return new UsageTotals(samples, sums.clone(), means.clone());
        }
    }
}
