package io.gpuledger.streams.capacity;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.PlacedGpu;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.time.Instant;
import java.util.Objects;

/**
 * Where a GPU was last seen and what it did there, as the capacity stage keeps it per GPU.
 * Lives in a state store (and its changelog) only.
 */
record GpuAt(String instanceId, PlacedGpu gpu) {

    static final Codec<GpuAt> CODEC = new Codec<>() {
        @Override
        public void write(GpuAt at, DataOutput out) throws IOException {
            out.writeUTF(at.instanceId);
            GPU.write(at.gpu, out);
        }

        @Override
        public GpuAt read(DataInput in) throws IOException {
            return new GpuAt(in.readUTF(), GPU.read(in));
        }
    };

    /** A {@link PlacedGpu} in binary, for the stage's stores and repartition topic. */
    static final Codec<PlacedGpu> GPU = new Codec<>() {
        @Override
        public void write(PlacedGpu gpu, DataOutput out) throws IOException {
            out.writeUTF(gpu.gpuUuid());
            out.writeInt(gpu.gpuIndex());
            Codec.writeNullable(gpu.gpuModel(), out);
            out.writeUTF(gpu.jobId());
            out.writeDouble(gpu.costPerHour());
            Codec.writeNullable(gpu.currency(), out);
            out.writeLong(gpu.lastWindowEnd().toEpochMilli());
        }

        @Override
        public PlacedGpu read(DataInput in) throws IOException {
            return new PlacedGpu(in.readUTF(), in.readInt(), Codec.readNullable(in), in.readUTF(), in.readDouble(),
                    Codec.readNullable(in), Instant.ofEpochMilli(in.readLong()));
        }
    };

    static GpuAt of(GpuUsage usage) {
        return new GpuAt(usage.placement().instanceId(), PlacedGpu.of(usage));
    }

    /**
     * Whether a notice would show the GPU the same way, but for how recent the picture is: the
     * same instance, job, model, index and currency, and the same cost per hour. A window's cost
     * per hour is a quotient of running sums, so it moves in its last digits with every sample at
     * an unchanged price: that is no news, and passing it on would rewrite the instance's
     * placement for nothing.
     */
    boolean samePlacement(GpuAt other) {
        if (other == null || !instanceId.equals(other.instanceId)) {
            return false;
        }
        PlacedGpu mine = gpu;
        PlacedGpu theirs = other.gpu;
        return mine.gpuUuid().equals(theirs.gpuUuid()) && mine.gpuIndex() == theirs.gpuIndex()
                && Objects.equals(mine.gpuModel(), theirs.gpuModel()) && mine.jobId().equals(theirs.jobId())
                && Objects.equals(mine.currency(), theirs.currency())
                && Math.abs(mine.costPerHour() - theirs.costPerHour())
                        <= 1e-9 * Math.max(1, Math.abs(mine.costPerHour()));
    }
}
