package io.gpuledger.model;

import java.time.Instant;

/**
 * A GPU on an instance as its latest usage window shows it: the job it runs and what it costs.
 *
 * @param costPerHour    spend rate of the GPU in that window ({@link GpuUsage#costPerHour()}), in {@code currency}
 * @param currency       null when no price was known for the GPU: its cost per hour is then 0, and not a price
 * @param lastWindowEnd  end of that window: how recent this picture of the GPU is
 */
public record PlacedGpu(
        String gpuUuid,
        int gpuIndex,
        String gpuModel,
        String jobId,
        double costPerHour,
        String currency,
        Instant lastWindowEnd) {

    public PlacedGpu {
        Check.identity("gpuUuid", gpuUuid);
        jobId = jobId == null || jobId.isBlank() ? TelemetrySample.UNKNOWN_JOB : Check.identity("jobId", jobId);
        Check.nonNegative("costPerHour", costPerHour);
        if (currency != null) {
            Check.currency("currency", currency);
        }
        Check.instant("lastWindowEnd", lastWindowEnd);
    }

    public static PlacedGpu of(GpuUsage usage) {
        return new PlacedGpu(usage.gpuUuid(), usage.gpuIndex(), usage.gpuModel(), usage.jobId(),
                usage.costPerHour(), usage.currency(), usage.windowEnd());
    }

    public boolean priced() {
        return currency != null;
    }
}
