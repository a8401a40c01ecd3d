package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * One reading of one GPU, covering the {@code intervalSeconds} that end at {@code time}.
 * Keyed on {@link Topics#TELEMETRY} by {@link #gpuUuid()}. Ratios are 0–1; optional readings are
 * null when the GPU or collector cannot provide them.
 */
public record TelemetrySample(
        @JsonProperty(required = true) String gpuUuid,
        int gpuIndex,
        String gpuModel,
        @JsonProperty(required = true) String host,
        @JsonProperty(required = true) String instanceId,
        @JsonProperty(required = true) String instanceType,
        @JsonProperty(required = true) String provider,
        @JsonProperty(required = true) String region,
        @JsonProperty(required = true) Lifecycle lifecycle,
        String jobId,
        @JsonProperty(required = true) Instant time,
        @JsonProperty(required = true) double intervalSeconds,
        @JsonProperty(required = true) double smActive,
        Double smOccupancy,
        Double dramActive,
        Double powerWatts) {

    /** Said when the node cannot tell which job runs on a GPU: unknown, never silently absent. */
    public static final String UNKNOWN_JOB = "unknown";

    /** A sample claiming to cover more than this is a broken agent clock, not a long sample. */
    public static final double MAX_INTERVAL_SECONDS = 3600;

    public TelemetrySample {
        Check.identity("gpuUuid", gpuUuid);
        if (gpuIndex < 0) {
            throw new InvalidRecordException("gpuIndex", "must not be negative, was " + gpuIndex);
        }
        Check.identity("host", host);
        Check.identity("instanceId", instanceId);
        Check.identity("instanceType", instanceType);
        Check.identity("provider", provider);
        Check.identity("region", region);
        Check.present("lifecycle", lifecycle);
        jobId = jobId == null || jobId.isBlank() ? UNKNOWN_JOB : Check.identity("jobId", jobId);
        Check.instant("time", time);
        Check.positive("intervalSeconds", intervalSeconds);
        if (intervalSeconds > MAX_INTERVAL_SECONDS) {
            throw new InvalidRecordException("intervalSeconds",
                    "must be at most " + MAX_INTERVAL_SECONDS + ", was " + intervalSeconds);
        }
        Check.ratio("smActive", smActive);
        Check.optionalRatio("smOccupancy", smOccupancy);
        Check.optionalRatio("dramActive", dramActive);
        Check.optionalNonNegative("powerWatts", powerWatts);
    }

    public Offer offer() {
        return new Offer(provider, region, instanceType, lifecycle);
    }
}
