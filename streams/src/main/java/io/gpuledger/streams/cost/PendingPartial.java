package io.gpuledger.streams.cost;

import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.WorkTotals;
import io.gpuledger.streams.state.Codec;
import io.gpuledger.streams.state.LiveStore;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * A {@link RollupPartial} that a task is still adding samples to, until its next update sends it:
 * the windows of the samples hold on to it, so a sample adds to it without looking it up.
 */
final class PendingPartial extends LiveStore.Markable {

    final Dimension dimension;
    final String id;
    final long windowStart;
    long gpus;
    /** How much GPU those are: the sum of their shares of a physical GPU. */
    double gpuEquivalents;
    final RunningTotals totals;
    /** Sent and dropped from the store: whoever still holds it must look up (or start) a new one. */
    boolean sentAndDropped;

    PendingPartial(Dimension dimension, String id, long windowStart, long gpus, double gpuEquivalents,
            RunningTotals totals) {
        this.dimension = dimension;
        this.id = id;
        this.windowStart = windowStart;
        this.gpus = gpus;
        this.gpuEquivalents = gpuEquivalents;
        this.totals = totals;
    }

    RollupPartial toPartial(String currency) {
        return new RollupPartial(dimension, id, windowStart, currency, gpus, gpuEquivalents, totals.snapshot(),
                WorkTotals.NONE);
    }

    static final Codec<PendingPartial> CODEC = new Codec<>() {
        @Override
        public void write(PendingPartial partial, DataOutput out) throws IOException {
            out.writeByte(partial.dimension.ordinal());
            out.writeUTF(partial.id);
            out.writeLong(partial.windowStart);
            GpuCount.write(partial.gpus, partial.gpuEquivalents, out);
            UsageCodec.TOTALS.write(partial.totals.snapshot(), out);
        }

        @Override
        public PendingPartial read(DataInput in) throws IOException {
            Dimension dimension = Dimension.values()[in.readByte()];
            String id = in.readUTF();
            long windowStart = in.readLong();
            GpuCount count = GpuCount.read(in);
            return new PendingPartial(dimension, id, windowStart, count.gpus(), count.equivalents(),
                    RunningTotals.of(UsageCodec.TOTALS.read(in)));
        }
    };
}
