package io.gpuledger.ingest.agent.collect;

/**
 * DCGM marks "no value" with sentinel numbers instead of leaving a field out: for 32-bit integer
 * fields 0x7ffffff0 (blank) to 0x7ffffff3 (not found, not supported, no permission), for 64-bit
 * integers 0x7ffffffffffffff0 upwards, for doubles 2^47 (140737488355328.0) upwards.
 * dcgm-exporter prints them as ordinary numbers, so every reading is checked before use.
 */
public final class DcgmBlank {

    private static final double INT32_BLANK = 0x7ffffff0;
    private static final double INT32_MAX = Integer.MAX_VALUE;
    private static final double FP64_BLANK = 140737488355328.0;
    private static final double FP64_LAST_SENTINEL = FP64_BLANK + 16;
    private static final double INT64_BLANK = (double) 0x7ffffffffffffff0L;

    private DcgmBlank() {
    }

    public static boolean isBlank(double value) {
        return Double.isNaN(value) || Double.isInfinite(value)
                || (value >= INT32_BLANK && value <= INT32_MAX)
                || (value >= FP64_BLANK && value <= FP64_LAST_SENTINEL)
                || value >= INT64_BLANK;
    }
}
