package io.gpuledger.streams.capacity;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.PlacedGpu;
import java.util.Objects;

/**
 * Where a GPU was last seen and what it did there, as the capacity stage keeps it per GPU.
 * Lives in a state store (and its changelog) only.
 */
record GpuAt(String instanceId, PlacedGpu gpu) {

    static GpuAt of(GpuUsage usage) {
        return new GpuAt(usage.instanceId(), PlacedGpu.of(usage));
    }

    /**
     * Whether a notice would show the GPU the same way. A window's cost per hour is a quotient of
     * running sums, so it moves in its last digits with every sample at an unchanged price:
     * that is no news, and passing it on would rewrite the instance's placement for nothing.
     */
    boolean sameAs(GpuAt other) {
        if (other == null || !instanceId.equals(other.instanceId)) {
            return false;
        }
        PlacedGpu mine = gpu;
        PlacedGpu theirs = other.gpu;
        return mine.gpuUuid().equals(theirs.gpuUuid()) && mine.gpuIndex() == theirs.gpuIndex()
                && Objects.equals(mine.gpuModel(), theirs.gpuModel()) && mine.jobId().equals(theirs.jobId())
                && Objects.equals(mine.currency(), theirs.currency())
                && mine.lastWindowEnd().equals(theirs.lastWindowEnd())
                && Math.abs(mine.costPerHour() - theirs.costPerHour())
                        <= 1e-9 * Math.max(1, Math.abs(mine.costPerHour()));
    }
}
