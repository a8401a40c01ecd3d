package io.gpuledger.ingest.agent.collect;

import io.gpuledger.ingest.agent.usage.GpuUsers;
import io.gpuledger.model.Reading;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * What one collector read of one GPU (or MIG instance) in one round; any reading may be absent
 * when that collector cannot provide it. Readings of several collectors are {@link #merge}d by
 * GPU UUID before they become a sample. Build one with {@link #builder(String)}.
 *
 * @param values       the readings it has, as the sample carries them (ratios 0–1, watts, bytes)
 * @param jobId        the job the collector saw on the GPU (Kubernetes labels), else null
 * @param reportedHost the host name the collector itself reported (dcgm-exporter's Hostname label)
 * @param users        who used the GPU, where the collector sees it (dcgm-exporter's per-pod series of a shared
 *                     GPU); null when it does not
 * @param memoryTotalBytes the GPU's (or instance's) memory, for a split by memory of users whose source does not
 *                     say it (HAMi's); no reading of the sample; null when the collector does not say
 */
public record GpuReading(
        String uuid,
        Integer index,
        String model,
        Map<Reading, Double> values,
        String migProfile,
        Double gpuFraction,
        String jobId,
        String team,
        String reportedHost,
        GpuUsers users,
        Double memoryTotalBytes) {

    public GpuReading {
        values = values.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(values));
    }

    public static Builder builder(String uuid) {
        return new Builder(uuid);
    }

    /** The reading, or null when the collector had none. */
    public Double value(Reading reading) {
        return values.get(reading);
    }

    /**
     * DCGM's SM activity, else its graphics engine activity; where only nvidia-smi runs, see
     * {@link #smActiveOrUtilization()}.
     */
    public Double smActive() {
        return value(Reading.SM_ACTIVE);
    }

    public Double smOccupancy() {
        return value(Reading.SM_OCCUPANCY);
    }

    public Double dramActive() {
        return value(Reading.DRAM_ACTIVE);
    }

    public Double tensorActive() {
        return value(Reading.TENSOR_ACTIVE);
    }

    public Double gpuUtilization() {
        return value(Reading.GPU_UTILIZATION);
    }

    public Double powerWatts() {
        return value(Reading.POWER_WATTS);
    }

    public Double memoryUsedBytes() {
        return value(Reading.MEMORY_USED_BYTES);
    }

    public Double nvlinkTxBytesPerSecond() {
        return value(Reading.NVLINK_TX_BYTES_PER_SECOND);
    }

    public Double pcieTxBytesPerSecond() {
        return value(Reading.PCIE_TX_BYTES_PER_SECOND);
    }

    /** This reading completed by {@code other}'s: each field keeps this reading's value where it has one. */
    public GpuReading merge(GpuReading other) {
        Map<Reading, Double> merged = new EnumMap<>(Reading.class);
        merged.putAll(other.values);
        merged.putAll(values);
        return new GpuReading(first(uuid, other.uuid), first(index, other.index), first(model, other.model), merged,
                first(migProfile, other.migProfile), first(gpuFraction, other.gpuFraction),
                first(jobId, other.jobId), first(team, other.team), first(reportedHost, other.reportedHost),
                first(users, other.users), first(memoryTotalBytes, other.memoryTotalBytes));
    }

    /**
     * The best SM activity this reading has: DCGM's, else the share of time any kernel ran (nvidia-smi's
     * utilisation, an upper bound of it), else none: the GPU is then sampled with its activity unknown.
     */
    public Double smActiveOrUtilization() {
        Double sm = smActive();
        return sm != null ? sm : gpuUtilization();
    }

    private static <T> T first(T preferred, T fallback) {
        return preferred != null ? preferred : fallback;
    }

    /** Fluent construction of a reading; readings left unset are absent. */
    public static final class Builder {
        private final String uuid;
        private Integer index;
        private String model;
        private final Map<Reading, Double> values = new EnumMap<>(Reading.class);
        private String migProfile;
        private Double gpuFraction;
        private String jobId;
        private String team;
        private String reportedHost;
        private GpuUsers users;
        private Double memoryTotalBytes;

        private Builder(String uuid) {
            this.uuid = uuid;
        }

        public Builder index(Integer value) { index = value; return this; }
        public Builder model(String value) { model = value; return this; }
        public Builder jobId(String value) { jobId = value; return this; }
        public Builder team(String value) { team = value; return this; }
        public Builder reportedHost(String value) { reportedHost = value; return this; }
        public Builder users(GpuUsers value) { users = value; return this; }
        public Builder memoryTotalBytes(Double value) { memoryTotalBytes = value; return this; }

        /** The reading of a MIG instance: its profile and the share of the GPU it holds. */
        public Builder slice(String profile, Double share) {
            migProfile = profile;
            gpuFraction = share;
            return this;
        }

        /** Sets a reading; a null value leaves it absent. */
        public Builder value(Reading reading, Double value) {
            if (value == null) {
                values.remove(reading);
            } else {
                values.put(reading, value);
            }
            return this;
        }

        public GpuReading build() {
            return new GpuReading(uuid, index, model, values, migProfile, gpuFraction, jobId, team, reportedHost,
                    users, memoryTotalBytes);
        }
    }
}
