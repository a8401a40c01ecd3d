package io.gpuledger.streams.cost;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * How many GPUs (or MIG slices) a roll-up's partial or period saw, and how much GPU they are: the
 * sum of their shares of a physical GPU.
 *
 * <p>Written with the count complemented (a negative number) and the share after it. State and
 * partials written before shares were kept start with a count of at least 0 and carry none: they
 * are read as whole GPUs, which is what they counted.
 */
record GpuCount(long gpus, double equivalents) {

    static void write(long gpus, double equivalents, DataOutput out) throws IOException {
        out.writeLong(~gpus);
        out.writeDouble(equivalents);
    }

    static GpuCount read(DataInput in) throws IOException {
        long count = in.readLong();
        return count < 0 ? new GpuCount(~count, in.readDouble()) : new GpuCount(count, count);
    }
}
