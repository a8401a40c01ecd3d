package io.gpuledger.ingest.agent.collect;

/**
 * What one collector read of one GPU (or MIG instance) in one round; any reading may be null
 * when that collector cannot provide it. Readings of several collectors are {@link #merge}d by
 * GPU UUID before they become a sample.
 *
 * @param smActive     DCGM's SM activity, else its graphics engine activity; where only nvidia-smi
 *                     runs, the agent falls back to {@code gpuUtilization} (the share of time any
 *                     kernel ran, an upper bound of it), and without any of them the GPU is sampled
 *                     with its activity unknown
 * @param jobId        the job the collector saw on the GPU (Kubernetes labels), else null
 * @param reportedHost the host name the collector itself reported (dcgm-exporter's Hostname label)
 */
public record GpuReading(
        String uuid,
        Integer index,
        String model,
        Double smActive,
        Double smOccupancy,
        Double dramActive,
        Double tensorActive,
        Double gpuUtilization,
        Double powerWatts,
        Double memoryUsedBytes,
        Double nvlinkTxBytesPerSecond,
        Double pcieTxBytesPerSecond,
        String migProfile,
        Double gpuFraction,
        String jobId,
        String team,
        String reportedHost) {

    /** This reading completed by {@code other}'s: each field keeps this reading's value where it has one. */
    public GpuReading merge(GpuReading other) {
        return new GpuReading(
                first(uuid, other.uuid),
                first(index, other.index),
                first(model, other.model),
                first(smActive, other.smActive),
                first(smOccupancy, other.smOccupancy),
                first(dramActive, other.dramActive),
                first(tensorActive, other.tensorActive),
                first(gpuUtilization, other.gpuUtilization),
                first(powerWatts, other.powerWatts),
                first(memoryUsedBytes, other.memoryUsedBytes),
                first(nvlinkTxBytesPerSecond, other.nvlinkTxBytesPerSecond),
                first(pcieTxBytesPerSecond, other.pcieTxBytesPerSecond),
                first(migProfile, other.migProfile),
                first(gpuFraction, other.gpuFraction),
                first(jobId, other.jobId),
                first(team, other.team),
                first(reportedHost, other.reportedHost));
    }

    /** The best SM activity this reading has: DCGM's, else kernel-time utilisation, else none. */
    public Double smActiveOrUtilization() {
        return smActive != null ? smActive : gpuUtilization;
    }

    private static <T> T first(T preferred, T fallback) {
        return preferred != null ? preferred : fallback;
    }
}
