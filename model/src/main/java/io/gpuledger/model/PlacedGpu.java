package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.time.Instant;
import java.util.List;

/**
 * A GPU on an instance as its latest usage window shows it: the job it runs and what it costs.
 *
 * @param costPerHour    spend rate of the GPU in that window ({@link GpuUsage#costPerHour()}), in {@code currency}
 * @param currency       null when no price was known for the GPU: its cost per hour is then 0, and not a price
 * @param lastWindowEnd  end of that window: how recent this picture of the GPU is
 * @param sharedBy       on a GPU several jobs share (its {@code jobId} then says {@value TelemetrySample#SHARED_JOB}),
 *                       each job with its part of the GPU's cost in that window; left out, empty, otherwise
 */
public record PlacedGpu(
        String gpuUuid,
        int gpuIndex,
        String gpuModel,
        String jobId,
        double costPerHour,
        String currency,
        Instant lastWindowEnd,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonSetter(nulls = Nulls.AS_EMPTY) List<JobShare> sharedBy) {

    public PlacedGpu {
        Check.identity("gpuUuid", gpuUuid);
        jobId = jobId == null || jobId.isBlank() ? TelemetrySample.UNKNOWN_JOB : Check.identity("jobId", jobId);
        Check.nonNegative("costPerHour", costPerHour);
        if (currency != null) {
            Check.currency("currency", currency);
        }
        Check.instant("lastWindowEnd", lastWindowEnd);
        sharedBy = sharedBy == null ? List.of() : sharedBy;
        for (JobShare share : sharedBy) {
            if (share == null) {
                throw new InvalidRecordException("sharedBy", "must not hold null");
            }
        }
        sharedBy = List.copyOf(sharedBy);
    }

    /** A GPU of one job, or of none known. */
    public PlacedGpu(String gpuUuid, int gpuIndex, String gpuModel, String jobId, double costPerHour, String currency,
            Instant lastWindowEnd) {
        this(gpuUuid, gpuIndex, gpuModel, jobId, costPerHour, currency, lastWindowEnd, List.of());
    }

    public static PlacedGpu of(GpuUsage usage) {
        return new PlacedGpu(usage.gpuUuid(), usage.gpuIndex(), usage.gpuModel(), usage.jobId(),
                usage.costPerHour(), usage.currency(), usage.windowEnd(), JobShare.of(usage));
    }

    public boolean priced() {
        return currency != null;
    }
}
