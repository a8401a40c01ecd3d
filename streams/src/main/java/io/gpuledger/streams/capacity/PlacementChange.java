package io.gpuledger.streams.capacity;

import io.gpuledger.model.PlacedGpu;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * One GPU arriving on, updated on, or leaving an instance; keyed by that instance on the stage's
 * repartition topic. A departure is a record of its own rather than a tombstone, because the
 * aggregation skips null values.
 *
 * @param placed the GPU as it is now on the instance; null when it left
 */
record PlacementChange(String gpuUuid, PlacedGpu placed) {

    static final Codec<PlacementChange> CODEC = new Codec<>() {
        @Override
        public void write(PlacementChange change, DataOutput out) throws IOException {
            out.writeUTF(change.gpuUuid);
            out.writeBoolean(change.placed != null);
            if (change.placed != null) {
                GpuAt.GPU.write(change.placed, out);
            }
        }

        @Override
        public PlacementChange read(DataInput in) throws IOException {
            String gpuUuid = in.readUTF();
            return new PlacementChange(gpuUuid, in.readBoolean() ? GpuAt.GPU.read(in) : null);
        }
    };

    static PlacementChange placed(PlacedGpu gpu) {
        return new PlacementChange(gpu.gpuUuid(), gpu);
    }

    static PlacementChange left(String gpuUuid) {
        return new PlacementChange(gpuUuid, null);
    }
}
