package io.gpuledger.alerts.recommend;

import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Offer;
import java.time.Duration;
import java.time.Instant;

/** Test jobs: a busy, compute-bound job that reports no work, changed one field at a time. */
final class JobViewBuilder {

    static final Instant WINDOW_END = Instant.parse("2026-03-01T12:00:00Z");

    private final String jobId;
    private final Offer pool;
    private final String gpuModel;
    private final int gpus;
    private double gpuEquivalents;
    private final double costPerHour;
    private double smActive = 0.8;
    private Double dramActive = 0.3;
    private String unit;
    private Double workUnitsPerHour;
    private Double costPerMillionUnits;
    private Double communicationOverheadRatio;
    private JobTraits traits;
    private Instant windowEnd = WINDOW_END;
    private JobHours.Share running;

    private JobViewBuilder(String jobId, Offer pool, String gpuModel, int gpus, double costPerHour) {
        this.jobId = jobId;
        this.pool = pool;
        this.gpuModel = gpuModel;
        this.gpus = gpus;
        this.gpuEquivalents = gpus;
        this.costPerHour = costPerHour;
    }

    static JobViewBuilder job(String jobId, Offer pool, String gpuModel, int gpus, double costPerHour) {
        return new JobViewBuilder(jobId, pool, gpuModel, gpus, costPerHour);
    }

    /** Reports {@code unitsPerHour} of {@code unit}; its cost per million follows from its cost per hour. */
    JobViewBuilder work(String unit, double unitsPerHour) {
        this.unit = unit;
        this.workUnitsPerHour = unitsPerHour;
        this.costPerMillionUnits = costPerHour / unitsPerHour * 1_000_000;
        return this;
    }

    /** Its GPUs are MIG slices that make {@code equivalents} of a whole GPU together. */
    JobViewBuilder gpuEquivalents(double equivalents) {
        this.gpuEquivalents = equivalents;
        return this;
    }

    JobViewBuilder activity(double sm, Double dram) {
        this.smActive = sm;
        this.dramActive = dram;
        return this;
    }

    JobViewBuilder communication(Double ratio) {
        this.communicationOverheadRatio = ratio;
        return this;
    }

    JobViewBuilder traits(JobTraits traits) {
        this.traits = traits;
        return this;
    }

    JobViewBuilder windowEnd(Instant end) {
        this.windowEnd = end;
        return this;
    }

    /** It ran {@code share} of the day before its window's end at its size now. */
    JobViewBuilder ranShareOfTheDay(double share) {
        this.running = new JobHours.Share(windowEnd.minus(Duration.ofDays(1)), windowEnd,
                share * 24 * gpuEquivalents, share);
        return this;
    }

    /**
     * Over a day of look-back it ran all the time, its busiest minute doing {@code unitsPerHour} an hour,
     * {@code unitsPerGpuHour} a GPU.
     */
    JobViewBuilder peak(double unitsPerHour, double unitsPerGpuHour) {
        this.running = new JobHours.Share(windowEnd.minus(Duration.ofDays(1)), windowEnd, 24 * gpuEquivalents, 1,
                new JobHours.Peak(unitsPerHour, unitsPerGpuHour));
        return this;
    }

    JobView build() {
        return new JobView(jobId, "team-a", pool, gpuModel, gpus, gpuEquivalents, costPerHour, "USD", smActive,
                dramActive, unit,
                workUnitsPerHour, costPerMillionUnits, communicationOverheadRatio, traits, windowEnd, running);
    }
}
