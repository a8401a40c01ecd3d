package io.gpuledger.model;

import java.util.Arrays;
import java.util.List;

/**
 * The optional readings of a GPU sample, each described once: its field on the wire, the values
 * it may take, whether a usage window keeps its time-weighted mean, and the gauge that shows that
 * mean. The sample's validation, its JSON reader, the windows' totals, their JSON and binary forms
 * and the GPU gauges all follow this table.
 *
 * <p>A new reading is one constant here with its case in {@link #of}, its component in
 * {@link TelemetrySample} (in the same order) and its source in the agent's collectors. A kept
 * one is only ever added after the kept ones before it: stored totals hold their means in this order.
 */
public enum Reading {
    SM_ACTIVE("smActive", Range.RATIO, Kept.OVER_CHARGED_TIME, "gpuledger_gpu_sm_active_ratio"),
    SM_OCCUPANCY("smOccupancy", Range.RATIO, Kept.OVER_CHARGED_TIME, "gpuledger_gpu_sm_occupancy_ratio"),
    DRAM_ACTIVE("dramActive", Range.RATIO, Kept.OVER_CHARGED_TIME, "gpuledger_gpu_memory_bandwidth_ratio"),
    TENSOR_ACTIVE("tensorActive", Range.RATIO, Kept.OVER_CHARGED_TIME, "gpuledger_gpu_tensor_active_ratio"),
    GPU_UTILIZATION("gpuUtilization", Range.RATIO, Kept.NOT, null),
    POWER_WATTS("powerWatts", Range.WATTS, Kept.OVER_READING_TIME, "gpuledger_gpu_power_watts"),
    MEMORY_USED_BYTES("memoryUsedBytes", Range.NON_NEGATIVE, Kept.NOT, null),
    NVLINK_TX_BYTES_PER_SECOND("nvlinkTxBytesPerSecond", Range.NON_NEGATIVE, Kept.NOT, null),
    PCIE_TX_BYTES_PER_SECOND("pcieTxBytesPerSecond", Range.NON_NEGATIVE, Kept.NOT, null),
    POWER_LIMIT_WATTS("powerLimitWatts", Range.WATTS, Kept.OVER_READING_TIME, "gpuledger_gpu_power_limit_watts");

    /** How many readings there are, without a copy of {@link #values()}: a sample's builder is sized by it. */
    public static final int COUNT = values().length;

    /** The readings whose means a usage window keeps, in the order their totals hold them. */
    public static final List<Reading> KEPT = Arrays.stream(values()).filter(Reading::kept).toList();

    /** What values a reading may take. */
    public enum Range {
        /** A share of time or capacity, 0–1. */
        RATIO,
        NON_NEGATIVE,
        /**
         * Board power: more than {@link TelemetrySample#MAX_POWER_WATTS} is a broken sensor or a
         * forged record, since the largest GPU modules draw well under 2 kW.
         */
        WATTS
    }

    /** Over which time a window's mean of the reading is weighted. */
    public enum Kept {
        /** Not kept in the totals: it stays on the samples. */
        NOT,
        /**
         * The sample's charged GPU time (a slice's share of it): activity means of GPUs and slices
         * then add up to what the whole GPU did.
         */
        OVER_CHARGED_TIME,
        /** The sample's wall time: a physical quantity of the board, which a slice does not divide. */
        OVER_READING_TIME
    }

    private final String wireName;
    private final Range range;
    private final Kept kept;
    private final String gpuGauge;

    Reading(String wireName, Range range, Kept kept, String gpuGauge) {
        this.wireName = wireName;
        this.range = range;
        this.kept = kept;
        this.gpuGauge = gpuGauge;
    }

    /** The field's name in a sample's JSON and in a window's totals. */
    public String wireName() {
        return wireName;
    }

    /**
     * The reading in {@code sample}, or null when its collector could not provide it. A switch, not
     * a function per constant: windows take every kept reading of every sample through here.
     */
    public Double of(TelemetrySample sample) {
        return switch (this) {
            case SM_ACTIVE -> sample.smActive();
            case SM_OCCUPANCY -> sample.smOccupancy();
            case DRAM_ACTIVE -> sample.dramActive();
            case TENSOR_ACTIVE -> sample.tensorActive();
            case GPU_UTILIZATION -> sample.gpuUtilization();
            case POWER_WATTS -> sample.powerWatts();
            case MEMORY_USED_BYTES -> sample.memoryUsedBytes();
            case NVLINK_TX_BYTES_PER_SECOND -> sample.nvlinkTxBytesPerSecond();
            case PCIE_TX_BYTES_PER_SECOND -> sample.pcieTxBytesPerSecond();
            case POWER_LIMIT_WATTS -> sample.powerLimitWatts();
        };
    }

    public Range range() {
        return range;
    }

    public Kept weighting() {
        return kept;
    }

    public boolean kept() {
        return kept != Kept.NOT;
    }

    /** The per-GPU gauge of a window's mean, or null when none is exported. */
    public String gpuGauge() {
        return gpuGauge;
    }

    /**
     * Refuses a value out of the reading's range.
     *
     * @throws InvalidRecordException naming the field
     */
    public Double check(Double value) {
        if (value == null) {
            return null;
        }
        switch (range) {
            case RATIO -> Check.ratio(wireName, value);
            case NON_NEGATIVE -> Check.nonNegative(wireName, value);
            case WATTS -> {
                Check.nonNegative(wireName, value);
                if (value > TelemetrySample.MAX_POWER_WATTS) {
                    throw new InvalidRecordException(wireName, "must be at most " + TelemetrySample.MAX_POWER_WATTS
                            + ", was " + value);
                }
            }
            default -> throw new IllegalStateException("unknown range " + range);
        }
        return value;
    }
}
