package io.gpuledger.ingest.agent.usage;

/**
 * One user of a GPU (or MIG slice) as a source saw it: a process, whose job is still to be found, or a
 * pod's container, whose job its labels name; with what the source measured of its use.
 *
 * @param pid         the process in the host's process table; null for a container seen by its labels
 * @param owner       the job it works for; null until it is found (a process nobody maps is unattributed)
 * @param smRatio     its share of the GPU's SM time, 0–1; null when the source could not measure it
 * @param memoryBytes the GPU memory it holds; null when the source could not measure it
 */
public record GpuUser(Integer pid, Owner owner, Double smRatio, Double memoryBytes) {

    public static GpuUser process(int pid, Double smRatio, Double memoryBytes) {
        return new GpuUser(pid, null, smRatio, memoryBytes);
    }

    public static GpuUser container(Owner owner, Double smRatio, Double memoryBytes) {
        return new GpuUser(null, owner, smRatio, memoryBytes);
    }

    public GpuUser ownedBy(Owner found) {
        return new GpuUser(pid, found, smRatio, memoryBytes);
    }

    public boolean attributed() {
        return owner != null;
    }
}
