package io.gpuledger.bench.backtest;

import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Offer;
import io.gpuledger.model.WorkloadClass;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * A job of the backtest's fleet, or capacity no job holds ({@link #id} null): what it is, where it
 * runs now (automation may move, shrink or release it), when it runs and how fast its GPUs really
 * do its work. Training does work at its GPUs' speed; serving does what its demand asks, a daily
 * curve around its peak, on as many instances as carry that peak with the world's headroom.
 */
final class FleetJob {

    /** The job's id as its GPUs report it; null for spare capacity, which reports none. */
    final String id;
    /** A name for the world's books: the id, or the spare capacity's own. */
    final String name;
    final String team;
    final String unit;
    final WorkloadClass workloadClass;
    /** GPUs it computes on (the rest of its instances' GPUs sit idle). */
    final int usedGpus;
    /** Training: units a GPU-hour of {@link #baseModel} does on {@link #baseOffer}. Serving: its peak demand. */
    final double baseRate;
    final String baseModel;
    final Offer baseOffer;
    /** The hour of day (UTC) it starts and how many hours it runs; 24: all the time. */
    final int startHour;
    final int runHours;
    final JobTraits traits;
    /** Exposed communication time ÷ step time on its first offer; null when it reports none. */
    final Double communication;
    final double smActive;
    /** Serving: its demand in the quiet hours, as a share of its peak. */
    final double quietShare;
    final int endFromDay;
    final int endToDay;

    Offer offer;
    String gpuModel;
    int instances;
    /** Counts its placements: a new placement is new instances with new GPUs. */
    int placement;
    /** When it ends for good; null: it runs to the end. */
    Instant end;
    /** While on spot: until when it waits for capacity after an interruption, and until when it restarts. */
    Instant waitingUntil = Instant.MIN;
    Instant stalledUntil = Instant.MIN;
    /** Minutes of work since its last regular checkpoint, and since any (one taken on an evacuation notice too). */
    int minutesSinceCheckpoint;
    int minutesSinceAnyCheckpoint;
    /** The minute an instance of it is taken back, after a notice; null when none is coming. */
    Instant reclaimAt;

    private FleetJob(Builder builder) {
        this.id = builder.spare ? null : builder.name;
        this.name = builder.name;
        this.team = builder.team;
        this.unit = builder.unit;
        this.workloadClass = builder.workloadClass;
        this.usedGpus = builder.usedGpus;
        this.baseRate = builder.rate;
        this.baseModel = builder.gpuModel;
        this.baseOffer = builder.offer;
        this.startHour = builder.startHour;
        this.runHours = builder.runHours;
        this.traits = builder.spare || builder.unit == null ? null : new JobTraits(builder.workload,
                builder.interruptible, builder.checkpointSeconds, builder.peakMemoryBytes,
                builder.workloadClass == WorkloadClass.INFERENCE ? WorkloadClass.INFERENCE : null);
        this.communication = builder.communication;
        this.smActive = builder.workloadClass == WorkloadClass.INFERENCE ? 0.6 : 0.85;
        this.quietShare = builder.quietShare;
        this.endFromDay = builder.endFromDay;
        this.endToDay = builder.endToDay;
        this.offer = builder.offer;
        this.gpuModel = builder.gpuModel;
        this.instances = builder.instances;
    }

    static Builder named(String id, String team) {
        return new Builder(id, team, false);
    }

    /** Capacity held by no job: its GPUs report no job id. */
    static Builder spare(String name) {
        return new Builder(name, null, true);
    }

    boolean serving() {
        return workloadClass == WorkloadClass.INFERENCE;
    }

    boolean reportsWork() {
        return unit != null;
    }

    boolean runsAt(Instant time) {
        if (end != null && !time.isBefore(end)) {
            return false;
        }
        if (runHours >= 24) {
            return true;
        }
        int hour = time.atZone(ZoneOffset.UTC).getHour();
        return Math.floorMod(hour - startHour, 24) < runHours;
    }

    /** Serving: its demand an hour at {@code time}, from the quiet share at night to its peak in the afternoon. */
    double demandPerHour(Instant time) {
        double hour = time.atZone(ZoneOffset.UTC).getHour() + time.atZone(ZoneOffset.UTC).getMinute() / 60.0;
        double day = hour < 6 || hour > 22 ? 0 : Math.sin(Math.PI * (hour - 6) / 16);
        return baseRate * (quietShare + (1 - quietShare) * day);
    }

    /** The work since its last checkpoint is kept, as the checkpoint before a reclaim keeps it. */
    void checkpointed() {
        minutesSinceCheckpoint = 0;
        minutesSinceAnyCheckpoint = 0;
    }

    /** New instances with new GPUs: nothing since a checkpoint is on them yet. */
    void replaced() {
        placement++;
        checkpointed();
    }

    /** Whether {@code instanceId} is one of its instances now. */
    boolean holds(String instanceId) {
        for (int instance = 0; instance < instances; instance++) {
            if (instanceId(instance).equals(instanceId)) {
                return true;
            }
        }
        return false;
    }

    String instanceId(int instance) {
        return names().of(instance).instanceId;
    }

    String host(int instance) {
        return names().of(instance).host;
    }

    String gpuUuid(int instance, int gpu) {
        return names().of(instance).gpu(gpu);
    }

    /** One instance's names: its host, its id and its GPUs' UUIDs, each made once. */
    private static final class InstanceNames {
        private final String host;
        private final String instanceId;
        private final List<String> gpus = new ArrayList<>();

        private InstanceNames(String host) {
            this.host = host;
            this.instanceId = "i-" + host;
        }

        String gpu(int gpu) {
            while (gpus.size() <= gpu) {
                gpus.add("GPU-" + host + "-" + gpus.size());
            }
            return gpus.get(gpu);
        }
    }

    /** The names of the placement's instances and GPUs, made once a placement: each is sent every minute. */
    private final class Names {
        private final int placement;
        private final List<InstanceNames> instances = new ArrayList<>();

        private Names(int placement) {
            this.placement = placement;
        }

        InstanceNames of(int instance) {
            while (instances.size() <= instance) {
                instances.add(new InstanceNames(name + "-" + placement + "-" + instances.size()));
            }
            return instances.get(instance);
        }
    }

    private Names names;

    private Names names() {
        if (names == null || names.placement != placement) {
            names = new Names(placement);
        }
        return names;
    }

    static final class Builder {
        private final String name;
        private final String team;
        private final boolean spare;
        private String unit;
        private String workload;
        private WorkloadClass workloadClass = WorkloadClass.TRAINING;
        private Offer offer;
        private String gpuModel;
        private int instances;
        private int usedGpus;
        private double rate;
        private int startHour;
        private int runHours = 24;
        private Boolean interruptible;
        private Double checkpointSeconds;
        private Double peakMemoryBytes;
        private Double communication;
        private double quietShare = 1;
        private int endFromDay;
        private int endToDay;

        private Builder(String name, String team, boolean spare) {
            this.name = name;
            this.team = team;
            this.spare = spare;
        }

        /** On {@code instances} instances of {@code offer}, computing on {@code usedGpus} of their GPUs. */
        Builder on(Offer offer, String gpuModel, int instances, int usedGpus) {
            this.offer = offer;
            this.gpuModel = gpuModel;
            this.instances = instances;
            this.usedGpus = usedGpus;
            return this;
        }

        /** Training work: {@code unitsPerGpuHour} of {@code unit} a GPU-hour. */
        Builder training(String workload, String unit, double unitsPerGpuHour) {
            this.workload = workload;
            this.workloadClass = WorkloadClass.TRAINING;
            this.unit = unit;
            this.rate = unitsPerGpuHour;
            return this;
        }

        /** Serving: a peak demand of {@code peakPerHour} an hour, {@code quietShare} of it at night. */
        Builder serving(String workload, String unit, double peakPerHour, double quietShare) {
            this.workload = workload;
            this.workloadClass = WorkloadClass.INFERENCE;
            this.unit = unit;
            this.rate = peakPerHour;
            this.quietShare = quietShare;
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
            this.communication = ratio;
            return this;
        }

        /** It ends for good on a day drawn between {@code fromDay} and {@code toDay} of the run. */
        Builder endsBetween(int fromDay, int toDay) {
            this.endFromDay = fromDay;
            this.endToDay = toDay;
            return this;
        }

        FleetJob build() {
            return new FleetJob(this);
        }
    }
}
