package io.gpuledger.streams.cost;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * How many GPUs (or MIG slices) a roll-up's partial or period saw, and how much GPU they are: the
 * sum of their shares of a physical GPU.
 */
record GpuCount(long gpus, double equivalents) {

    static void write(long gpus, double equivalents, DataOutput out) throws IOException {
        out.writeLong(gpus);
        out.writeDouble(equivalents);
    }

    static GpuCount read(DataInput in) throws IOException {
        return new GpuCount(in.readLong(), in.readDouble());
    }
}
