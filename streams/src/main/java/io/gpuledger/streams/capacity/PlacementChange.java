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
        public int version(PlacementChange change) {
            return GpuAt.GpuForm.versionOf(change.placed);
        }

        @Override
        public int readsUpTo() {
            return GpuAt.GpuForm.WITH_SHARES;
        }

        @Override
        public void write(PlacementChange change, DataOutput out) throws IOException {
            out.writeUTF(change.gpuUuid);
            out.writeBoolean(change.placed != null);
            if (change.placed != null) {
                GpuAt.GpuForm.write(change.placed, out, version(change));
            }
        }

        @Override
        public PlacementChange read(DataInput in) throws IOException {
            return read(in, 1);
        }

        @Override
        public PlacementChange read(DataInput in, int version) throws IOException {
            String gpuUuid = in.readUTF();
            return new PlacementChange(gpuUuid, in.readBoolean() ? GpuAt.GpuForm.read(in, version) : null);
        }
    };

    static PlacementChange placed(PlacedGpu gpu) {
        return new PlacementChange(gpu.gpuUuid(), gpu);
    }

    static PlacementChange left(String gpuUuid) {
        return new PlacementChange(gpuUuid, null);
    }
}
