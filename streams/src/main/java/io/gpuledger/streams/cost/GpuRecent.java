package io.gpuledger.streams.cost;

import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * A GPU's closed minutes that its rolling view still needs, and its hour so far: what its own
 * rolling five minutes and hour are made of. Changed only when one of its minutes closes.
 */
final class GpuRecent {

    /** No hour under way. */
    static final long NONE = Long.MIN_VALUE;

    /** The closed minutes before the newest that the rolling view still covers, by start (epoch millis). */
    final TreeMap<Long, UsageTotals> minutes = new TreeMap<>();
    /** Start of the hour under way (epoch millis), or {@link #NONE}. */
    long hourStart = NONE;
    UsageTotals hour = UsageTotals.ZERO;
    /** The GPU's share of a physical GPU, as its latest closed minute says (below 1 for a MIG slice). */
    double gpuFraction = 1;

    /**
     * Adds the closed minute starting at {@code start} and returns the rolling view that ends
     * with it: the sum of its closed minutes of the last {@code rollingMinutes}.
     */
    UsageTotals addMinute(long start, UsageTotals totals, int rollingMinutes) {
        UsageTotals rolling = totals;
        for (UsageTotals earlier : minutes.subMap(start - (rollingMinutes - 1) * GpuState.MINUTE_MILLIS, start)
                .values()) {
            rolling = rolling.plus(earlier);
        }
        minutes.put(start, totals);
        // The next minute's rolling view starts one minute later.
        minutes.headMap(start - (rollingMinutes - 2) * GpuState.MINUTE_MILLIS).clear();
        hour = hour.plus(totals);
        return rolling;
    }

    /** Ends the hour under way: its totals, the hour cleared. */
    UsageTotals endHour() {
        UsageTotals ended = hour;
        hour = UsageTotals.ZERO;
        hourStart = NONE;
        return ended;
    }

    static final Codec<GpuRecent> CODEC = new Codec<>() {
        @Override
        public void write(GpuRecent recent, DataOutput out) throws IOException {
            out.writeLong(recent.hourStart);
            UsageCodec.TOTALS.write(recent.hour, out);
            out.writeByte(recent.minutes.size());
            for (Map.Entry<Long, UsageTotals> minute : recent.minutes.entrySet()) {
                out.writeLong(minute.getKey());
                UsageCodec.TOTALS.write(minute.getValue(), out);
            }
            out.writeDouble(recent.gpuFraction);
        }

        @Override
        public GpuRecent read(DataInput in) throws IOException {
            GpuRecent recent = new GpuRecent();
            recent.hourStart = in.readLong();
            recent.hour = UsageCodec.TOTALS.read(in);
            for (int count = in.readUnsignedByte(); count > 0; count--) {
                recent.minutes.put(in.readLong(), UsageCodec.TOTALS.read(in));
            }
            recent.gpuFraction = in.readDouble();
            return recent;
        }
    };
}
