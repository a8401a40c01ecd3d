package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One reading of one GPU (or one MIG instance of it), covering the {@code intervalSeconds} that
 * end at {@code time}. Keyed on {@link Topics#TELEMETRY} by {@link #gpuUuid()}. Ratios are 0–1;
 * optional readings are null when the GPU or collector cannot provide them. Build one with
 * {@link #builder()}.
 *
 * @param gpuIndex    the GPU's index on its node; 0 where a writer leaves it out or writes null
 * @param gpuFraction share of the physical GPU this sample stands for: 1 for a whole GPU, the
 *                    slice's share for a MIG instance (a 3g.40gb slice of an A100 is 3/7); cost
 *                    is charged in that proportion, so the slices of a GPU add up to one GPU
 * @param allocations the jobs sharing the GPU (or slice) and each one's share ({@link Allocation}); empty when
 *                    one job has it, the sample's {@code jobId}, as in samples written before shares were sent.
 *                    A shared GPU's sample says {@value #SHARED_JOB} as its {@code jobId}; one with allocations
 *                    is read so, whatever {@code jobId} it gives
 */
public record TelemetrySample(
        @JsonProperty(required = true) String gpuUuid,
        @JsonSetter(nulls = Nulls.AS_EMPTY) int gpuIndex,
        String gpuModel,
        @JsonProperty(required = true) String host,
        @JsonProperty(required = true) String instanceId,
        @JsonProperty(required = true) String instanceType,
        @JsonProperty(required = true) String provider,
        @JsonProperty(required = true) String region,
        @JsonProperty(required = true) Lifecycle lifecycle,
        String jobId,
        String team,
        @JsonProperty(required = true) Instant time,
        @JsonProperty(required = true) double intervalSeconds,
        @JsonProperty(required = true) Double smActive,
        Double smOccupancy,
        Double dramActive,
        Double tensorActive,
        Double gpuUtilization,
        Double powerWatts,
        Double memoryUsedBytes,
        Double nvlinkTxBytesPerSecond,
        Double pcieTxBytesPerSecond,
        Double powerLimitWatts,
        String migProfile,
        Double gpuFraction,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Allocation> allocations) {

    /** Said when the node cannot tell which job runs on a GPU: unknown, never silently absent. */
    public static final String UNKNOWN_JOB = "unknown";

    /** The {@code jobId} of a sample whose GPU is shared: its {@code allocations} say whose it is. */
    public static final String SHARED_JOB = "shared";
    /** Up to this many allocations, duplicates are found without hashing. */
    private static final int FEW_ALLOCATIONS = 16;

    /** How far above 1 the shares of a sample may add up, for the rounding of the writer's arithmetic. */
    public static final double SHARES_TOLERANCE = 1e-9;

    /** A sample claiming to cover more than this is a broken agent clock, not a long sample. */
    public static final double MAX_INTERVAL_SECONDS = 3600;

    /** More board power than this is a broken sensor or a forged record ({@link Reading.Range#WATTS}). */
    public static final double MAX_POWER_WATTS = 10_000;

    public TelemetrySample {
        Check.identity("gpuUuid", gpuUuid);
        if (gpuIndex < 0) {
            throw new InvalidRecordException("gpuIndex", "must not be negative, was " + gpuIndex);
        }
        new Placement(host, instanceId, instanceType, provider, region, lifecycle);
        jobId = jobId == null || jobId.isBlank() ? UNKNOWN_JOB : Check.identity("jobId", jobId);
        team = team == null || team.isBlank() ? null : Check.identity("team", team);
        Check.instant("time", time);
        Check.positive("intervalSeconds", intervalSeconds);
        if (intervalSeconds > MAX_INTERVAL_SECONDS) {
            throw new InvalidRecordException("intervalSeconds",
                    "must be at most " + MAX_INTERVAL_SECONDS + ", was " + intervalSeconds);
        }
        smActive = Reading.SM_ACTIVE.check(smActive);
        smOccupancy = Reading.SM_OCCUPANCY.check(smOccupancy);
        dramActive = Reading.DRAM_ACTIVE.check(dramActive);
        tensorActive = Reading.TENSOR_ACTIVE.check(tensorActive);
        gpuUtilization = Reading.GPU_UTILIZATION.check(gpuUtilization);
        powerWatts = Reading.POWER_WATTS.check(powerWatts);
        memoryUsedBytes = Reading.MEMORY_USED_BYTES.check(memoryUsedBytes);
        nvlinkTxBytesPerSecond = Reading.NVLINK_TX_BYTES_PER_SECOND.check(nvlinkTxBytesPerSecond);
        pcieTxBytesPerSecond = Reading.PCIE_TX_BYTES_PER_SECOND.check(pcieTxBytesPerSecond);
        powerLimitWatts = Reading.POWER_LIMIT_WATTS.check(powerLimitWatts);
        if (gpuFraction != null) {
            Check.positive("gpuFraction", gpuFraction);
            Check.ratio("gpuFraction", gpuFraction);
        }
        allocations = checkedAllocations(allocations);
        if (!allocations.isEmpty()) {
            // The allocations say whose the GPU is: a jobId beside them would send its gaps and its place to one job.
            jobId = SHARED_JOB;
        }
    }

    /** Whether the job of allocation {@code i} is named by one before it. */
    private static boolean namedBefore(List<Allocation> allocations, int i) {
        String job = allocations.get(i).jobId();
        for (int before = 0; before < i; before++) {
            if (allocations.get(before).jobId().equals(job)) {
                return true;
            }
        }
        return false;
    }

    private static List<Allocation> checkedAllocations(List<Allocation> allocations) {
        if (allocations == null || allocations.isEmpty()) {
            return List.of();
        }
        double sum = 0;
        // A GPU is shared by a few jobs: comparing each with those before it costs less than hashing them.
        Set<String> jobs = allocations.size() > FEW_ALLOCATIONS ? new HashSet<>() : null;
        for (int i = 0; i < allocations.size(); i++) {
            Allocation allocation = allocations.get(i);
            if (allocation == null) {
                throw new InvalidRecordException("allocations", "must not hold null");
            }
            if (jobs != null ? !jobs.add(allocation.jobId()) : namedBefore(allocations, i)) {
                throw new InvalidRecordException("allocations",
                        "name job '" + allocation.jobId() + "' twice; give each job once, with its whole share");
            }
            sum += allocation.share();
        }
        if (sum > 1 + SHARES_TOLERANCE) {
            throw new InvalidRecordException("allocations", "shares add up to " + sum + ", more than 1");
        }
        return List.copyOf(allocations);
    }

    /** Whether several jobs (or one job on part of it) share the GPU: its {@link #allocations} say whose it is. */
    public boolean shared() {
        return !allocations.isEmpty();
    }

    public Offer offer() {
        return new Offer(provider, region, instanceType, lifecycle);
    }

    /** Where the GPU sits, as one value. */
    public Placement placement() {
        return new Placement(host, instanceId, instanceType, provider, region, lifecycle);
    }

    /** Whether the sample says how active the GPU was; without it, its time is neither idle nor busy. */
    public boolean activityKnown() {
        return smActive != null;
    }

    /** The share of the physical GPU this sample is charged for (1 unless a MIG slice). */
    public double chargedFraction() {
        return gpuFraction == null ? 1 : gpuFraction;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder builder = new Builder().identityOf(this).time(time).intervalSeconds(intervalSeconds)
                .migProfile(migProfile).gpuFraction(gpuFraction).allocations(allocations);
        for (Reading reading : Reading.values()) {
            builder.reading(reading, reading.of(this));
        }
        return builder;
    }

    /** Fluent construction; {@link #build()} validates like the JSON reader does. */
    public static final class Builder {
        private String gpuUuid;
        private int gpuIndex;
        private String gpuModel;
        private String host;
        private String instanceId;
        private String instanceType;
        private String provider;
        private String region;
        private Lifecycle lifecycle;
        private String jobId;
        private String team;
        private Instant time;
        private double intervalSeconds;
        private final Double[] readings = new Double[Reading.COUNT];
        private String migProfile;
        private Double gpuFraction;
        private List<Allocation> allocations;

        private Builder() {
        }

        public Builder gpuUuid(String value) { gpuUuid = value; return this; }
        public Builder gpuIndex(int value) { gpuIndex = value; return this; }
        public Builder gpuModel(String value) { gpuModel = value; return this; }
        public Builder host(String value) { host = value; return this; }
        public Builder instanceId(String value) { instanceId = value; return this; }
        public Builder instanceType(String value) { instanceType = value; return this; }
        public Builder provider(String value) { provider = value; return this; }
        public Builder region(String value) { region = value; return this; }
        public Builder lifecycle(Lifecycle value) { lifecycle = value; return this; }
        public Builder jobId(String value) { jobId = value; return this; }

        /** The job as given, before a sample with allocations is read as {@value TelemetrySample#SHARED_JOB}'s. */
        String jobIdGiven() {
            return jobId;
        }
        public Builder team(String value) { team = value; return this; }
        public Builder time(Instant value) { time = value; return this; }
        public Builder intervalSeconds(double value) { intervalSeconds = value; return this; }
        public Builder smActive(Double value) { return reading(Reading.SM_ACTIVE, value); }
        public Builder smOccupancy(Double value) { return reading(Reading.SM_OCCUPANCY, value); }
        public Builder dramActive(Double value) { return reading(Reading.DRAM_ACTIVE, value); }
        public Builder tensorActive(Double value) { return reading(Reading.TENSOR_ACTIVE, value); }
        public Builder gpuUtilization(Double value) { return reading(Reading.GPU_UTILIZATION, value); }
        public Builder powerWatts(Double value) { return reading(Reading.POWER_WATTS, value); }
        public Builder memoryUsedBytes(Double value) { return reading(Reading.MEMORY_USED_BYTES, value); }
        public Builder nvlinkTxBytesPerSecond(Double value) {
            return reading(Reading.NVLINK_TX_BYTES_PER_SECOND, value);
        }
        public Builder pcieTxBytesPerSecond(Double value) { return reading(Reading.PCIE_TX_BYTES_PER_SECOND, value); }
        public Builder reading(Reading reading, Double value) { readings[reading.ordinal()] = value; return this; }
        public Builder migProfile(String value) { migProfile = value; return this; }
        public Builder gpuFraction(Double value) { gpuFraction = value; return this; }
        public Builder allocations(List<Allocation> value) { allocations = value; return this; }

        /** Where the GPU sits: copies the instance identity fields of {@code where}. */
        public Builder placement(Placement where) {
            return host(where.host()).instanceId(where.instanceId()).instanceType(where.instanceType())
                    .provider(where.provider()).region(where.region()).lifecycle(where.lifecycle());
        }

        /**
         * Copies the fields that come before the time, which say which GPU, where and for whom: from
         * {@code gpuUuid} to {@code team}, as {@code sample} holds them.
         */
        public Builder identityOf(TelemetrySample sample) {
            return gpuUuid(sample.gpuUuid).gpuIndex(sample.gpuIndex).gpuModel(sample.gpuModel).host(sample.host)
                    .instanceId(sample.instanceId).instanceType(sample.instanceType).provider(sample.provider)
                    .region(sample.region).lifecycle(sample.lifecycle).jobId(sample.jobId).team(sample.team);
        }

        public TelemetrySample build() {
            return new TelemetrySample(gpuUuid, gpuIndex, gpuModel, host, instanceId, instanceType, provider, region,
                    lifecycle, jobId, team, time, intervalSeconds, read(Reading.SM_ACTIVE), read(Reading.SM_OCCUPANCY),
                    read(Reading.DRAM_ACTIVE), read(Reading.TENSOR_ACTIVE), read(Reading.GPU_UTILIZATION),
                    read(Reading.POWER_WATTS), read(Reading.MEMORY_USED_BYTES),
                    read(Reading.NVLINK_TX_BYTES_PER_SECOND), read(Reading.PCIE_TX_BYTES_PER_SECOND),
                    read(Reading.POWER_LIMIT_WATTS), migProfile, gpuFraction, allocations);
        }

        private Double read(Reading reading) {
            return readings[reading.ordinal()];
        }
    }
}
