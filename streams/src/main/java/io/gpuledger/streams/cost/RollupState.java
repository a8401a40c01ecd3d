package io.gpuledger.streams.cost;

import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.WorkTotals;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/** A job's, team's or pool's recent minutes and hours, each the sum of the partials received for it. */
final class RollupState {

    /**
     * The sum of one period. Its totals are added to in place: a new value per partial, replaced by the next one
     * seconds later, would outlive the young collections between and reach the old generation as garbage.
     */
    static final class Sum {
        final RunningTotals totals = new RunningTotals();
        /** A job minute's reported work (none for teams, pools and hours). */
        WorkTotals work = WorkTotals.NONE;
        /** GPUs seen in it: in a minute, those with a window there; in an hour, the most in any of its minutes. */
        long gpus;
        /** How much GPU those are (their shares of a physical GPU); in an hour, the most in any of its minutes. */
        double gpuEquivalents;
        /**
         * Changed since last sent. Kept: while a backlog is worked off a minute may wait long
         * for every task to pass it, and after a restart nothing else would send it.
         */
        boolean unsent;
    }

    final Dimension dimension;
    final String id;
    final String currency;
    /** By start, epoch millis. */
    final TreeMap<Long, Sum> minutes = new TreeMap<>();
    final TreeMap<Long, Sum> hours = new TreeMap<>();

    RollupState(Dimension dimension, String id, String currency) {
        this.dimension = dimension;
        this.id = id;
        this.currency = currency;
    }

    static final Codec<RollupState> CODEC = new Codec<>() {
        @Override
        public void write(RollupState state, DataOutput out) throws IOException {
            out.writeByte(state.dimension.ordinal());
            out.writeUTF(state.id);
            out.writeUTF(state.currency);
            writeSums(state.minutes, out);
            writeSums(state.hours, out);
        }

        @Override
        public RollupState read(DataInput in) throws IOException {
            RollupState state = new RollupState(Dimension.values()[in.readByte()], in.readUTF(), in.readUTF());
            readSums(state.minutes, in);
            readSums(state.hours, in);
            return state;
        }

        private static void writeSums(TreeMap<Long, Sum> sums, DataOutput out) throws IOException {
            out.writeInt(sums.size());
            for (Map.Entry<Long, Sum> entry : sums.entrySet()) {
                out.writeLong(entry.getKey());
                GpuCount.write(entry.getValue().gpus, entry.getValue().gpuEquivalents, out);
                UsageCodec.TOTALS.write(entry.getValue().totals.snapshot(), out);
                RollupPartial.WorkCodec.write(entry.getValue().work, out);
                out.writeBoolean(entry.getValue().unsent);
            }
        }

        private static void readSums(TreeMap<Long, Sum> sums, DataInput in) throws IOException {
            for (int count = in.readInt(); count > 0; count--) {
                long start = in.readLong();
                Sum sum = new Sum();
                GpuCount gpus = GpuCount.read(in);
                sum.gpus = gpus.gpus();
                sum.gpuEquivalents = gpus.equivalents();
                sum.totals.add(UsageCodec.TOTALS.read(in));
                sum.work = RollupPartial.WorkCodec.read(in);
                sum.unsent = in.readBoolean();
                sums.put(start, sum);
            }
        }
    };
}
