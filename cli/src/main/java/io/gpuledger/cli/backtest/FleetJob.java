package io.gpuledger.cli.backtest;

import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Offer;
import io.gpuledger.model.WorkloadClass;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * A job of the backtest's fleet: what it is, where it runs now (the automation may move it), when it
 * runs, and how fast its GPUs really do its work.
 */
final class FleetJob {

    final String id;
    final String team;
    final String unit;
    final WorkloadClass workloadClass;
    final int gpus;
    /** Units a GPU-hour of {@link #baseModel} does. */
    final double baseUnitsPerGpuHour;
    final String baseModel;
    /** The hour of day (UTC) it starts and how many hours it runs; 24: all the time. */
    final int startHour;
    final int runHours;
    final JobTraits traits;
    final Double communicationOverheadRatio;
    final double smActive;

    Offer offer;
    String gpuModel;
    /** Counts its placements: a new placement is new instances with new GPUs. */
    int placement;
    /** While on spot: until when it restarts after an interruption, and its running minutes since a checkpoint. */
    Instant stalledUntil = Instant.MIN;
    int minutesSinceCheckpoint;

    private FleetJob(Builder builder) {
        this.id = builder.id;
        this.team = builder.team;
        this.unit = builder.unit;
        this.workloadClass = builder.workloadClass;
        this.gpus = builder.gpus;
        this.baseUnitsPerGpuHour = builder.unitsPerGpuHour;
        this.baseModel = builder.gpuModel;
        this.startHour = builder.startHour;
        this.runHours = builder.runHours;
        this.traits = new JobTraits(builder.workload, builder.interruptible, builder.checkpointSeconds,
                builder.peakMemoryBytes, builder.workloadClass);
        this.communicationOverheadRatio = builder.communicationOverheadRatio;
        this.smActive = builder.workloadClass == WorkloadClass.INFERENCE ? 0.6 : 0.85;
        this.offer = builder.offer;
        this.gpuModel = builder.gpuModel;
    }

    static Builder named(String id, String team) {
        return new Builder(id, team);
    }

    boolean runsAt(Instant time) {
        if (runHours >= 24) {
            return true;
        }
        int hour = time.atZone(ZoneOffset.UTC).getHour();
        return Math.floorMod(hour - startHour, 24) < runHours;
    }

    /** Units a GPU-hour of its current model does, in truth. */
    double unitsPerGpuHour(TrueSpeed speed) {
        return baseUnitsPerGpuHour * speed.ratio(workloadClass, baseModel, gpuModel);
    }

    String gpuUuid(int index) {
        return "GPU-" + id + "-" + placement + "-" + index;
    }

    String host() {
        return id + "-" + placement;
    }

    static final class Builder {
        private final String id;
        private final String team;
        private String unit = "tokens";
        private String workload;
        private WorkloadClass workloadClass = WorkloadClass.TRAINING;
        private Offer offer;
        private String gpuModel;
        private int gpus;
        private double unitsPerGpuHour;
        private int startHour;
        private int runHours = 24;
        private Boolean interruptible;
        private Double checkpointSeconds;
        private Double peakMemoryBytes;
        private Double communicationOverheadRatio;

        private Builder(String id, String team) {
            this.id = id;
            this.team = team;
        }

        Builder on(Offer offer, String gpuModel, int gpus) {
            this.offer = offer;
            this.gpuModel = gpuModel;
            this.gpus = gpus;
            return this;
        }

        Builder work(String workload, WorkloadClass workloadClass, String unit, double unitsPerGpuHour) {
            this.workload = workload;
            this.workloadClass = workloadClass;
            this.unit = unit;
            this.unitsPerGpuHour = unitsPerGpuHour;
            return this;
        }

        Builder daily(int startHour, int runHours) {
            this.startHour = startHour;
            this.runHours = runHours;
            return this;
        }

        Builder checkpointsEvery(double seconds) {
            this.interruptible = true;
            this.checkpointSeconds = seconds;
            return this;
        }

        Builder peakMemory(double bytes) {
            this.peakMemoryBytes = bytes;
            return this;
        }

        Builder communication(double ratio) {
            this.communicationOverheadRatio = ratio;
            return this;
        }

        FleetJob build() {
            return new FleetJob(this);
        }
    }
}
