package io.gpuledger.ingest.agent.usage;

import java.util.List;

/**
 * Who used one GPU (or MIG slice, {@code <GPU UUID>/mig/<id>}) over a round, by one source.
 *
 * @param gpu              the GPU's UUID, or its slice's
 * @param source           the source that saw them (dcgm-exporter, hami, nvidia-smi)
 * @param users            one entry per process or container
 * @param memoryTotalBytes the GPU's memory, for a split by memory; null when the source does not say
 */
public record GpuUsers(String gpu, String source, List<GpuUser> users, Double memoryTotalBytes) {

    public GpuUsers {
        users = List.copyOf(users);
    }

    /** These users, with {@code total} as the GPU's memory where their source did not say it. */
    public GpuUsers withMemoryTotalBytesIfUnknown(Double total) {
        return memoryTotalBytes != null || total == null ? this : new GpuUsers(gpu, source, users, total);
    }

    public boolean migSlice() {
        return gpu.contains("/mig/");
    }
}
