package io.gpuledger.streams.cost;

import io.gpuledger.model.Mean;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** {@link UsageTotals} in binary, for state and the roll-up repartition topic. */
final class UsageCodec implements Codec<UsageTotals> {

    static final UsageCodec TOTALS = new UsageCodec();

    private UsageCodec() {
    }

    @Override
    public void write(UsageTotals totals, DataOutput out) throws IOException {
        out.writeLong(totals.samples());
        out.writeDouble(totals.gpuSeconds());
        out.writeDouble(totals.unpricedSeconds());
        out.writeDouble(totals.cost());
        out.writeDouble(totals.idleSeconds());
        out.writeDouble(totals.idleCost());
        out.writeDouble(totals.unmonitoredSeconds());
        writeMean(totals.smActive(), out);
        writeMean(totals.smOccupancy(), out);
        writeMean(totals.dramActive(), out);
        writeMean(totals.tensorActive(), out);
        writeMean(totals.powerWatts(), out);
        out.writeDouble(totals.energyKwh());
        out.writeDouble(totals.nvlinkBytes());
    }

    @Override
    public UsageTotals read(DataInput in) throws IOException {
        return new UsageTotals(in.readLong(), in.readDouble(), in.readDouble(), in.readDouble(), in.readDouble(),
                in.readDouble(), in.readDouble(), readMean(in), readMean(in), readMean(in), readMean(in),
                readMean(in), in.readDouble(), in.readDouble());
    }

    private static void writeMean(Mean mean, DataOutput out) throws IOException {
        out.writeDouble(mean.weightedSum());
        out.writeDouble(mean.seconds());
    }

    private static Mean readMean(DataInput in) throws IOException {
        double weightedSum = in.readDouble();
        double seconds = in.readDouble();
        return weightedSum == 0 && seconds == 0 ? Mean.NONE : new Mean(weightedSum, seconds);
    }
}
