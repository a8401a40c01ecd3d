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
 * <p>Totals are written after a marker ({@link #VERSIONED}, a count no totals have) and a version
 * byte, then with their stale-priced seconds and the version's later figures (2: unmonitored
 * cost) last. Totals of earlier releases are still read, with none of what they lack, so that the
 * state and partials of an engine of a previous release carry over (a previous release cannot
 * read these, so the two must not run side by side): those written before stale-priced seconds
 * existed start with a count of at least 0 and end without them; those of the release after it
 * start with their count complemented (a negative number) and end with them.
 */
final class UsageCodec implements Codec<UsageTotals> {

    static final UsageCodec TOTALS = new UsageCodec();

    /** Starts totals written with a version byte: no count, complemented or not, is this. */
    static final long VERSIONED = Long.MIN_VALUE;
    /** The version written: 2, with unmonitored cost. */
    private static final byte VERSION = 2;

    private UsageCodec() {
    }

    @Override
    public void write(UsageTotals totals, DataOutput out) throws IOException {
        out.writeLong(VERSIONED);
        out.writeByte(VERSION);
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
        out.writeDouble(totals.stalePricedSeconds());
        out.writeDouble(totals.unmonitoredCost());
    }

    @Override
    public UsageTotals read(DataInput in) throws IOException {
        long count = in.readLong();
        int version = count == VERSIONED ? in.readByte() : count < 0 ? 1 : 0;
        long samples = version >= 2 ? in.readLong() : version == 1 ? ~count : count;
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
        double stalePricedSeconds = version >= 1 ? in.readDouble() : 0;
        double unmonitoredCost = version >= 2 ? in.readDouble() : 0;
        return new UsageTotals(samples, gpuSeconds, unpricedSeconds, stalePricedSeconds, cost, idleSeconds, idleCost,
                unmonitoredSeconds, smActive, smOccupancy, dramActive, tensorActive, powerWatts, energyKwh,
                nvlinkBytes, unmonitoredCost);
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
