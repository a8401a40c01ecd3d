package io.gpuledger.streams.cost;

import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.WorkTotals;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * A job's, team's or pool's recent minutes and hours, each the sum of the partials received for it.
 *
 * <p>Stored in two parts, so that a commit writes what changed rather than a key's whole retained quarter hour:
 * the key's identity and hours under its key ({@link #CODEC}), each minute under a key of its own in a second store
 * ({@link #MINUTE_CODEC}, {@link #minuteKey}). A partial changes one minute and one hour; written whole, every
 * commit a key changed in wrote its sixteen or so retained minutes again, and a fleet of many small jobs spent
 * more on that than on the minutes' sums.
 */
final class RollupState {

    /** Between a roll-up's key and a minute's start in the key the minute is stored under. */
    private static final char MINUTE_KEY_MARK = '@';

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

    /** The key a minute of the roll-up {@code rollupKey} is stored under: {@code dimension|id@start}. */
    static String minuteKey(String rollupKey, long start) {
        return rollupKey + MINUTE_KEY_MARK + start;
    }

    /** The roll-up key of a minute's key, as {@link #minuteKey} made it. */
    static String rollupKeyOf(String minuteKey) {
        return minuteKey.substring(0, minuteKey.lastIndexOf(MINUTE_KEY_MARK));
    }

    /** The start of a minute, from its key as {@link #minuteKey} made it. */
    static long minuteStartOf(String minuteKey) {
        return Long.parseLong(minuteKey.substring(minuteKey.lastIndexOf(MINUTE_KEY_MARK) + 1));
    }

    /**
     * A roll-up's identity and hours. Version 2 leaves the minutes to {@link #MINUTE_CODEC}; version 1, what
     * releases before wrote, held them too, and a state read in it brings them along in {@link #minutes}.
     */
    static final Codec<RollupState> CODEC = new Codec<>() {
        @Override
        public int version() {
            return 2;
        }

        @Override
        public void write(RollupState state, DataOutput out) throws IOException {
            out.writeByte(state.dimension.ordinal());
            out.writeUTF(state.id);
            out.writeUTF(state.currency);
            writeSums(state.hours, out);
        }

        @Override
        public RollupState read(DataInput in) throws IOException {
            return read(in, version());
        }

        @Override
        public RollupState read(DataInput in, int version) throws IOException {
            RollupState state = new RollupState(Dimension.values()[in.readByte()], in.readUTF(), in.readUTF());
            if (version == 1) {
                readSums(state.minutes, in);
            }
            readSums(state.hours, in);
            return state;
        }

        private static void writeSums(TreeMap<Long, Sum> sums, DataOutput out) throws IOException {
            out.writeInt(sums.size());
            for (Map.Entry<Long, Sum> entry : sums.entrySet()) {
                out.writeLong(entry.getKey());
                MINUTE_CODEC.write(entry.getValue(), out);
            }
        }

        private static void readSums(TreeMap<Long, Sum> sums, DataInput in) throws IOException {
            for (int count = in.readInt(); count > 0; count--) {
                long start = in.readLong();
                sums.put(start, MINUTE_CODEC.read(in));
            }
        }
    };

    /** One sum: a minute, stored under its {@link #minuteKey}; an hour, inside its state. */
    static final Codec<Sum> MINUTE_CODEC = new Codec<>() {
        @Override
        public void write(Sum sum, DataOutput out) throws IOException {
            GpuCount.write(sum.gpus, sum.gpuEquivalents, out);
            UsageCodec.TOTALS.write(sum.totals.snapshot(), out);
            RollupPartial.WorkCodec.write(sum.work, out);
            out.writeBoolean(sum.unsent);
        }

        @Override
        public Sum read(DataInput in) throws IOException {
            Sum sum = new Sum();
            GpuCount gpus = GpuCount.read(in);
            sum.gpus = gpus.gpus();
            sum.gpuEquivalents = gpus.equivalents();
            sum.totals.add(UsageCodec.TOTALS.read(in));
            sum.work = RollupPartial.WorkCodec.read(in);
            sum.unsent = in.readBoolean();
            return sum;
        }
    };
}
