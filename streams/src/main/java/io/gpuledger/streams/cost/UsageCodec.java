package io.gpuledger.streams.cost;

import io.gpuledger.model.Mean;
import io.gpuledger.model.Reading;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * {@link UsageTotals} in binary, for state and the roll-up repartition topic: the sample count,
 * then the number of {@link Sum}s and each, then the number of kept readings' {@link Mean}s and
 * each (weighted sum, seconds), both in their tables' order. A figure added at the end of either
 * table needs no new format version: totals written before it read as 0 for it, and figures a
 * later release added are skipped.
 */
final class UsageCodec implements Codec<UsageTotals> {

    static final UsageCodec TOTALS = new UsageCodec();

    private static final Sum[] SUMS = Sum.values();

    private UsageCodec() {
    }

    @Override
    public void write(UsageTotals totals, DataOutput out) throws IOException {
        out.writeLong(totals.samples());
        out.writeByte(SUMS.length);
        for (Sum sum : SUMS) {
            out.writeDouble(totals.sum(sum));
        }
        out.writeByte(Reading.KEPT.size());
        for (Reading reading : Reading.KEPT) {
            Mean mean = totals.mean(reading);
            out.writeDouble(mean.weightedSum());
            out.writeDouble(mean.seconds());
        }
    }

    @Override
    public UsageTotals read(DataInput in) throws IOException {
        UsageTotals.Builder totals = UsageTotals.builder().samples(in.readLong());
        int sums = in.readUnsignedByte();
        for (int i = 0; i < sums; i++) {
            double value = in.readDouble();
            if (i < SUMS.length) {
                totals.sum(SUMS[i], value);
            }
        }
        int means = in.readUnsignedByte();
        for (int i = 0; i < means; i++) {
            Mean mean = new Mean(in.readDouble(), in.readDouble());
            if (i < Reading.KEPT.size()) {
                totals.mean(Reading.KEPT.get(i), mean);
            }
        }
        return totals.build();
    }
}
