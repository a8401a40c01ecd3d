package io.gpuledger.streams.cost;

import io.gpuledger.model.Mean;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * {@link UsageTotals} in binary, for state and the roll-up repartition topic.
 *
 * <p>Totals are written with their sample count complemented (a negative number) and their
 * stale-priced seconds last. Totals written before stale-priced seconds existed start with a
 * count of at least 0 and end without them: they are still read, with none, so that the state and
 * partials of an engine of the previous release carry over (the previous release cannot read
 * these, so the two must not run side by side).
 */
final class UsageCodec implements Codec<UsageTotals> {

    static final UsageCodec TOTALS = new UsageCodec();

    private UsageCodec() {
    }

    @Override
    public void write(UsageTotals totals, DataOutput out) throws IOException {
        out.writeLong(~totals.samples());
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
        out.writeDouble(totals.stalePricedSeconds());
    }

    @Override
    public UsageTotals read(DataInput in) throws IOException {
        long count = in.readLong();
        boolean withStalePriced = count < 0;
        long samples = withStalePriced ? ~count : count;
        double gpuSeconds = in.readDouble();
        double unpricedSeconds = in.readDouble();
        double cost = in.readDouble();
        double idleSeconds = in.readDouble();
        double idleCost = in.readDouble();
        double unmonitoredSeconds = in.readDouble();
        Mean smActive = readMean(in);
        Mean smOccupancy = readMean(in);
        Mean dramActive = readMean(in);
        Mean tensorActive = readMean(in);
        Mean powerWatts = readMean(in);
        double energyKwh = in.readDouble();
        double nvlinkBytes = in.readDouble();
        double stalePricedSeconds = withStalePriced ? in.readDouble() : 0;
        return new UsageTotals(samples, gpuSeconds, unpricedSeconds, stalePricedSeconds, cost, idleSeconds, idleCost,
                unmonitoredSeconds, smActive, smOccupancy, dramActive, tensorActive, powerWatts, energyKwh,
                nvlinkBytes);
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
