package io.gpuledger.streams.cost;

import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.state.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * A GPU's closed minutes that its rolling view still needs, and its hour so far with each job's part of it: what
 * its own rolling five minutes and hour are made of. Changed only when one of its minutes closes, or when the
 * engine forgets the GPU before its hour is sent.
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
    /** What each job took of the hour so far; null for none (or an hour begun before its parts were kept). */
    JobParts hourParts;
    /**
     * Where the GPU ran and for whom in the hour's latest closed minute: what the hour says when it is sent, whatever
     * the GPU's newest sample says by then (and after the engine forgot the GPU); null for an hour read back from a
     * release that kept it only for a forgotten GPU.
     */
    GpuIdentity identity;
    /**
     * Whether a minute of the hour was shared: then what no job took of it is {@link #restTeam}'s, as the roll-ups
     * gave it, whichever job had the GPU alone in a later minute.
     */
    boolean shared;
    /** The team of the hour's latest shared minute (the node's); null where it names none. */
    String restTeam;

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

    /** Adds what each job took of a closed minute to the hour's parts. */
    void addParts(JobParts minuteParts) {
        if (hourParts == null) {
            hourParts = new JobParts();
        }
        hourParts.addAll(minuteParts);
    }

    /** Ends the hour under way: its totals, the hour cleared. */
    UsageTotals endHour() {
        UsageTotals ended = hour;
        hour = UsageTotals.ZERO;
        hourStart = NONE;
        hourParts = null;
        identity = null;
        shared = false;
        restTeam = null;
        return ended;
    }

    /**
     * Version 2 adds the hour's job parts and the identity of a forgotten GPU; version 1, what releases before
     * wrote, had neither: an hour read in it goes on without the parts of its minutes before. Version 3 adds the
     * team of the hour's latest shared minute, written only for an hour that had one, so that every other hour stays
     * readable by releases before it; an hour read in version 2 names the team of its latest minute for its rest.
     * Version 4 adds the time no sample covered in each job's minutes to its part, and says whether the hour was
     * shared; written only for an hour one of whose parts holds such time. An hour read in an earlier version goes
     * on with none in its parts before.
     */
    static final Codec<GpuRecent> CODEC = new Codec<>() {
        private static final int WITH_REST_TEAM = 3;
        private static final int WITH_UNMONITORED_PARTS = 4;

        @Override
        public int version() {
            return 2;
        }

        @Override
        public int version(GpuRecent recent) {
            if (JobParts.holdUnmonitored(recent.hourParts)) {
                return WITH_UNMONITORED_PARTS;
            }
            return recent.shared ? WITH_REST_TEAM : version();
        }

        @Override
        public int readsUpTo() {
            return WITH_UNMONITORED_PARTS;
        }

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
            int version = version(recent);
            JobParts.write(recent.hourParts, out, version >= WITH_UNMONITORED_PARTS);
            out.writeBoolean(recent.identity != null);
            if (recent.identity != null) {
                GpuIdentity.CODEC.write(recent.identity, out);
            }
            if (version >= WITH_UNMONITORED_PARTS) {
                out.writeBoolean(recent.shared);
            }
            if (recent.shared) {
                Codec.writeNullable(recent.restTeam, out);
            }
        }

        @Override
        public GpuRecent read(DataInput in) throws IOException {
            return read(in, version());
        }

        @Override
        public GpuRecent read(DataInput in, int version) throws IOException {
            GpuRecent recent = new GpuRecent();
            recent.hourStart = in.readLong();
            recent.hour = UsageCodec.TOTALS.read(in);
            for (int count = in.readUnsignedByte(); count > 0; count--) {
                recent.minutes.put(in.readLong(), UsageCodec.TOTALS.read(in));
            }
            recent.gpuFraction = in.readDouble();
            if (version >= 2) {
                recent.hourParts = JobParts.read(in, version >= WITH_UNMONITORED_PARTS);
                if (in.readBoolean()) {
                    recent.identity = GpuIdentity.CODEC.read(in);
                }
            }
            if (version >= WITH_REST_TEAM) {
                recent.shared = version == WITH_REST_TEAM || in.readBoolean();
                if (recent.shared) {
                    recent.restTeam = Codec.readNullable(in);
                }
            }
            return recent;
        }
    };
}
