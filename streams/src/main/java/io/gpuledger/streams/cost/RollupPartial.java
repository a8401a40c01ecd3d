package io.gpuledger.streams.cost;

import io.gpuledger.model.Check;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.WorkTotals;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one task added to a job's, team's or pool's minute since it last said so: the sum of the
 * samples (and settled unmonitored time) it charged there, how many GPUs it saw there for the
 * first time and how much GPU they are (their shares of a physical GPU), and, for a job, the work
 * reported for that minute. A roll-up is the sum of its partials, from every task; under exactly-once each
 * partial is sent once, with the input it sums, so none is lost or counted twice.
 *
 * @param windowStart epoch millis of the minute
 */
record RollupPartial(Dimension dimension, String id, long windowStart, String currency, long gpus,
        double gpuEquivalents, UsageTotals totals, WorkTotals work) implements RollupInput {

    static final Codec<RollupPartial> CODEC = new Codec<>() {
        @Override
        public void write(RollupPartial partial, DataOutput out) throws IOException {
            out.writeByte(partial.dimension.ordinal());
            out.writeUTF(partial.id);
            out.writeLong(partial.windowStart);
            out.writeUTF(partial.currency);
            GpuCount.write(partial.gpus, partial.gpuEquivalents, out);
            UsageCodec.TOTALS.write(partial.totals, out);
            WorkCodec.write(partial.work, out);
        }

        @Override
        public RollupPartial read(DataInput in) throws IOException {
            return RollupPartial.read(in.readByte(), in);
        }
    };

    /** The rest of a partial whose first byte, its dimension's ordinal, was read already. */
    static RollupPartial read(byte dimension, DataInput in) throws IOException {
        String id = in.readUTF();
        long windowStart = in.readLong();
        String currency = in.readUTF();
        GpuCount count = GpuCount.read(in);
        return new RollupPartial(Dimension.values()[dimension], id, windowStart, currency, count.gpus(),
                count.equivalents(), UsageCodec.TOTALS.read(in), WorkCodec.read(in));
    }

    /** A job's work, reported for one minute. */
    static RollupPartial work(String jobId, long windowStart, String currency, WorkTotals work) {
        return new RollupPartial(Dimension.JOB, jobId, windowStart, currency, 0, 0, UsageTotals.ZERO, work);
    }


    /** The key of one task's partial for one minute, in that task's store. */
    static String partialKey(String rollupKey, long windowStart) {
        return rollupKey + Check.KEY_SEPARATOR + windowStart;
    }

    String rollupKey() {
        return UsageRollup.keyOf(dimension, id);
    }

    /** {@link WorkTotals} in binary. */
    static final class WorkCodec {

        private WorkCodec() {
        }

        static void write(WorkTotals work, DataOutput out) throws IOException {
            out.writeLong(work.reports());
            out.writeInt(work.workUnits().size());
            for (Map.Entry<String, Double> unit : work.workUnits().entrySet()) {
                out.writeUTF(unit.getKey());
                out.writeDouble(unit.getValue());
            }
            out.writeLong(work.steps());
            out.writeDouble(work.stepSeconds());
            out.writeDouble(work.commSeconds());
            out.writeDouble(work.ncclBytes());
        }

        static WorkTotals read(DataInput in) throws IOException {
            long reports = in.readLong();
            Map<String, Double> units = new TreeMap<>();
            for (int count = in.readInt(); count > 0; count--) {
                units.put(in.readUTF(), in.readDouble());
            }
            return new WorkTotals(reports, units, in.readLong(), in.readDouble(), in.readDouble(), in.readDouble());
        }
    }
}
