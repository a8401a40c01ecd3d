package io.gpuledger.streams.cost;

import io.gpuledger.model.JobPart;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageRollup.Dimension;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.streams.state.Codec;
import io.gpuledger.streams.state.LiveStore;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One GPU as the engine follows it: its open minute windows, which seconds of recent minutes its
 * samples covered, and how far its coverage has been settled; exactly what {@link #CODEC} writes,
 * and the identity kept in a store of its own. What a task keeps beside it to charge the next
 * sample and to know what it sent is in {@link GpuCache}.
 */
final class GpuState extends LiveStore.Markable {

    /** No coverage settled yet: the GPU's first window is still open. */
    static final long NONE = Long.MIN_VALUE;

    static final long MINUTE_MILLIS = 60_000;
    /** The most roll-up keys a window counts in: their number is stored in one unsigned byte. */
    private static final int MAX_COUNTED = 255;
    private static final String JOB_KEY_PREFIX = UsageRollup.keyOf(Dimension.JOB, "");
    private static final int MINUTE_SECONDS = 60;

    /** One open minute of the GPU: what its samples add up to, and whom it was counted for. */
    static final class Window {
        GpuIdentity identity;
        RunningTotals totals = new RunningTotals();
        /** The totals as last encoded: between two commits most often only the newest window changes. */
        private byte[] encodedTotals;
        /** Roll-up keys this GPU was already counted in for this minute (at most a few). */
        final List<String> counted = new ArrayList<>(3);
        /**
         * The shared GPU's targets whose keys were all offered to {@link #countIn} in this minute (but its node's team,
         * if {@link #nodeTeamOpen}); null: none. A sample of the same jobs then compares no key with those counted.
         */
        private ShareTargets countedFor;
        /** Whether {@link #countedFor}'s node's team is still to be offered: no sample left it a rest yet. */
        private boolean nodeTeamOpen;
        /** The identity whose own keys were all offered to {@link #countIn} in this minute; null: none. */
        private GpuIdentity countedOwnFor;
        /**
         * What each job took of the minute, when any of its samples was shared or named another job or team than
         * those before it; null when neither.
         */
        JobParts jobParts;

        /** Adds a charged sample to the window's totals. */
        void add(UsageTotals charged) {
            totals.add(charged);
            encodedTotals = null;
        }

        /**
         * Adds a shared sample's {@code split} among {@code targets}: the whole charge to its totals, each job's part.
         * The first shared sample of a minute that held samples of one job ({@code before}'s) makes what they were
         * charged that job's part, so that the parts and the unallocated rest still make the whole.
         */
        void addShared(ShareTargets targets, SharedCharge.Slots split, GpuIdentity before) {
            if (jobParts == null) {
                jobParts = new JobParts();
                // (A shared GPU's samples before, without parts, were no job's: written by a release before this.)
                if (before != null && !before.shared() && totals.samples() > 0) {
                    jobParts.addSole(before.jobId, before.idIn(Dimension.TEAM), totals);
                }
            }
            int pool = targets.slots() - 1;
            totals.add(split.samples[pool], split.sums[pool], split.means[pool]);
            encodedTotals = null;
            jobParts.add(targets, split);
        }

        /**
         * Adds a sample of one job, {@code identity}'s: to the totals, and to its job's part. The parts are kept from
         * the first shared sample of the minute, or from the first sample that names another job or team than the
         * samples before it ({@code before}'s), whose charges are then theirs: each job keeps what its own samples
         * were charged, in the GPU's hour and in a minute shared later, not the job that came last.
         */
        void addSole(GpuIdentity before, GpuIdentity identity, UsageTotals charged) {
            if (jobParts == null && before != null) {
                if (before.shared()) {
                    // Shared samples that listed no job left no part: stored so, they read back as none.
                    jobParts = new JobParts();
                } else if (before != identity && totals.samples() > 0 && !sameOwner(before, identity)) {
                    jobParts = new JobParts();
                    jobParts.addSole(before.jobId, before.idIn(Dimension.TEAM), totals);
                }
            }
            add(charged);
            if (jobParts != null) {
                jobParts.addSole(identity.jobId, identity.idIn(Dimension.TEAM), charged);
            }
        }

        private static boolean sameOwner(GpuIdentity one, GpuIdentity other) {
            return one.jobId.equals(other.jobId) && one.idIn(Dimension.TEAM).equals(other.idIn(Dimension.TEAM));
        }

        /**
         * What each job took of the minute so far, in its records: empty when no sample of it was shared (a minute
         * whose samples named one job after another names its latest job; its hour says each job's part).
         */
        List<JobPart> jobParts() {
            return jobParts == null || !shared() ? List.of() : jobParts.toContract();
        }

        /** Whether any sample of the minute was shared: its GPU time counts some shared seconds. */
        boolean shared() {
            return totals.sharedGpuSeconds() > 0;
        }

        private byte[] encodedTotals() {
            if (encodedTotals == null) {
                encodedTotals = UsageCodec.TOTALS.toBodyBytes(totals.snapshot());
            }
            return encodedTotals;
        }

        /** Read back without its identity: counted in that identity's own keys once it is attached. */
        private boolean countedInOwnPending;

        void countedOwn(GpuIdentity own) {
            countedInOwnPending = own == null;
            if (own != null) {
                counted.addAll(List.of(own.rollupKeys));
            }
        }

        /**
         * How many jobs the GPU was charged to in this minute, when any of its samples was shared (0 when none
         * was): the jobs of the minute's roll-up keys, each counted once.
         */
        int sharingJobs() {
            if (!shared()) {
                return 0;
            }
            int jobs = 0;
            for (String key : counted) {
                if (key.startsWith(JOB_KEY_PREFIX)) {
                    jobs++;
                }
            }
            return jobs;
        }

        /**
         * Whether this is the first time the window counts in {@code rollupKey}. A minute counts in at most
         * {@link #MAX_COUNTED} keys, as many as its stored form holds: a GPU shared by more jobs counts in the
         * roll-ups of the first ones only, while each is still charged its share.
         */
        boolean countIn(String rollupKey) {
            if (counted.contains(rollupKey) || counted.size() == MAX_COUNTED) {
                return false;
            }
            counted.add(rollupKey);
            return true;
        }

        /** Whether every key of {@code targets} was already offered to {@link #countIn} in this minute. */
        boolean countedAll(ShareTargets targets) {
            return countedFor == targets && !nodeTeamOpen;
        }

        /** Whether every key of {@code targets} but its node's team's was already offered in this minute. */
        boolean countedAllButNodeTeam(ShareTargets targets) {
            return countedFor == targets && nodeTeamOpen;
        }

        void countedAllOf(ShareTargets targets, boolean butNodeTeam) {
            countedFor = targets;
            nodeTeamOpen = butNodeTeam;
        }

        /** Whether every key of {@code identity} was already offered to {@link #countIn} in this minute. */
        boolean countedAll(GpuIdentity identity) {
            return countedOwnFor == identity;
        }

        void countedAllOf(GpuIdentity identity) {
            countedOwnFor = identity;
        }
    }

    /**
     * The latest identity the GPU reported, for windows it reported nothing in. Kept in a store of
     * its own, as it seldom changes: null until {@link #attach}ed after this state was read back.
     */
    GpuIdentity identity;
    /**
     * What the task keeps of the GPU beside this state, never stored: a task that starts gives each GPU a new one.
     * Held here, so that a sample finds both with one lookup of its GPU.
     */
    GpuCache cache;
    /** Epoch second up to which the GPU's coverage is settled, or {@link #NONE}. */
    long settledUntil = NONE;
    /** Open windows by start (epoch millis). */
    final TreeMap<Long, Window> windows = new TreeMap<>();
    /**
     * Covered seconds of unsettled minutes by minute start (epoch millis): bit i is second i; see {@link #coverage()}.
     */
    private final TreeMap<Long, Long> coverage = new TreeMap<>();
    /**
     * The minute the latest samples covered, and all its bits, those in {@link #coverage} and
     * those not yet there ({@code pendingUnmerged}): most samples cover seconds of the same minute
     * as the one before, and are marked and judged here without a lookup. {@link #NONE}: none.
     */
    private long pendingMinute = NONE;
    private long pendingBits;
    private boolean pendingUnmerged;

    /** Covered seconds of unsettled minutes by minute start (epoch millis): bit i is second i. */
    TreeMap<Long, Long> coverage() {
        if (pendingUnmerged) {
            coverage.put(pendingMinute, pendingBits);
            pendingUnmerged = false;
        }
        return coverage;
    }

    /** The open window starting at {@code start}, opened if need be. */
    Window window(long start) {
        return windows.computeIfAbsent(start, s -> new Window());
    }

    Window removeWindow(long start) {
        return windows.remove(start);
    }

    void attach(GpuIdentity latest) {
        identity = latest;
        for (Window window : windows.values()) {
            if (window.identity == null) {
                window.identity = latest;
                if (window.countedInOwnPending) {
                    window.countedOwn(latest);
                }
            }
        }
    }

    /**
     * Marks the unsettled seconds {@code [first, end)} (epoch seconds) covered, and answers how
     * many of them no sample covered before: those a sample that covers them is charged for, so
     * that a sample sent again, or a second agent reporting the same GPU, charges no second twice.
     */
    int coverNew(long first, long end) {
        if (settledUntil != NONE && first < settledUntil) {
            first = settledUntil;
        }
        int fresh = 0;
        for (long minute = minuteOf(first); minute < end; minute += MINUTE_SECONDS) {
            int from = (int) Math.max(0, first - minute);
            int to = (int) Math.min(MINUTE_SECONDS, end - minute);
            if (from < to) {
                long minuteMillis = minute * 1000;
                if (pendingMinute != minuteMillis) {
                    coverage();
                    pendingMinute = minuteMillis;
                    pendingBits = coverage.getOrDefault(minuteMillis, 0L);
                }
                long added = mask(from, to) & ~pendingBits;
                if (added != 0) {
                    fresh += Long.bitCount(added);
                    pendingBits |= added;
                    pendingUnmerged = true;
                }
            }
        }
        return fresh;
    }

    /**
     * The first second whose middle is at or after {@code millis}: a span covers the seconds from
     * its start's to its end's.
     */
    static long firstSecond(long millis) {
        return -Math.floorDiv(-(millis - 500), 1000);
    }

    /** The start, in epoch seconds, of the minute holding {@code second}. */
    static long minuteOf(long second) {
        return Math.floorDiv(second, MINUTE_SECONDS) * MINUTE_SECONDS;
    }

    /** Bits {@code from} (inclusive) to {@code to} (exclusive) of a minute's mask, {@code from < to <= 60}. */
    private static long mask(int from, int to) {
        return ((1L << (to - from)) - 1) << from;
    }

    /** The first covered second at or after {@code fromSecond}, or {@link #NONE}. */
    long firstCoveredFrom(long fromSecond) {
        for (Map.Entry<Long, Long> minute : coverage().tailMap(minuteOf(fromSecond) * 1000L, true).entrySet()) {
            long start = minute.getKey() / 1000;
            long bits = minute.getValue();
            if (fromSecond > start) {
                bits &= -1L << (fromSecond - start);
            }
            if (bits != 0) {
                return start + Long.numberOfTrailingZeros(bits);
            }
        }
        return NONE;
    }

    /** Seconds {@code [fromSecond, toSecond)} (epoch seconds) that no sample covered, settled as unmonitored. */
    interface Gaps {
        void gap(long fromSecond, long toSecond);
    }

    /**
     * Settles the minute starting at {@code startMillis} (and any earlier minute a late sample
     * still covered): returns its unmonitored seconds (whole GPU seconds, before any MIG share),
     * the uncovered seconds between two covered ones no more than {@code maxGapSeconds} apart. A
     * gap whose end is not known yet stays unsettled: it is counted in the minute where it ends,
     * when that minute closes, if the GPU comes back in time. {@code gaps} hears each run of the
     * unmonitored seconds it counts.
     */
    long settle(long startMillis, long maxGapSeconds, Gaps gaps) {
        long end = startMillis / 1000 + MINUTE_SECONDS;
        long unmonitored = 0;
        long cursor = settledUntil;
        Map<Long, Long> due = coverage().headMap(startMillis, true);
        for (Map.Entry<Long, Long> minute : due.entrySet()) {
            long start = minute.getKey() / 1000;
            long bits = minute.getValue();
            int second = 0;
            while (second < MINUTE_SECONDS) {
                if ((bits & (1L << second)) == 0) {
                    second++;
                    continue;
                }
                long runStart = start + second;
                while (second < MINUTE_SECONDS && (bits & (1L << second)) != 0) {
                    second++;
                }
                if (cursor != NONE && runStart > cursor && runStart - cursor <= maxGapSeconds) {
                    unmonitored += runStart - cursor;
                    gaps.gap(cursor, runStart);
                }
                cursor = Math.max(cursor, start + second);
            }
        }
        due.clear();
        if (pendingMinute != NONE && pendingMinute <= startMillis) {
            pendingMinute = NONE;
        }
        if (cursor != NONE && cursor < end) {
            long next = firstCoveredFrom(end);
            if (next != NONE && next - cursor <= maxGapSeconds) {
                unmonitored += end - cursor;
                gaps.gap(cursor, end);
                cursor = end;
            }
        }
        settledUntil = cursor;
        return unmonitored;
    }

    /**
     * Version 1 is the state the first release wrote; version 2 adds each window's {@link JobParts}. A state of
     * no shared window is still written as version 1, which every release reads: the parts of a minute whose samples
     * named one job after another are then left out, and an engine restarted within that minute gives the samples
     * it read before to the job of the latest of them.
     */
    static final Codec<GpuState> CODEC = new Codec<>() {
        private static final int WITH_JOB_PARTS = 2;

        @Override
        public int version(GpuState state) {
            for (Window window : state.windows.values()) {
                if (window.jobParts != null && window.shared()) {
                    return WITH_JOB_PARTS;
                }
            }
            return 1;
        }

        @Override
        public int readsUpTo() {
            return WITH_JOB_PARTS;
        }

        @Override
        public void write(GpuState state, DataOutput out) throws IOException {
            boolean withParts = version(state) == WITH_JOB_PARTS;
            out.writeLong(state.settledUntil);
            out.writeInt(state.windows.size());
            for (Map.Entry<Long, Window> entry : state.windows.entrySet()) {
                Window window = entry.getValue();
                out.writeLong(entry.getKey());
                // Most windows are their GPU's latest identity, counted in its own job, team
                // and pool: a flag says so instead of writing them out again.
                boolean latest = window.identity == state.identity;
                out.writeBoolean(latest);
                if (!latest) {
                    GpuIdentity.CODEC.write(window.identity, out);
                }
                out.write(window.encodedTotals());
                boolean own = window.counted.equals(List.of(window.identity.rollupKeys));
                out.writeBoolean(own);
                if (!own) {
                    out.writeByte(window.counted.size());
                    for (String key : window.counted) {
                        out.writeUTF(key);
                    }
                }
                if (withParts) {
                    JobParts.write(window.jobParts, out);
                }
            }
            out.writeInt(state.coverage().size());
            for (Map.Entry<Long, Long> entry : state.coverage().entrySet()) {
                out.writeLong(entry.getKey());
                out.writeLong(entry.getValue());
            }
        }

        @Override
        public GpuState read(DataInput in) throws IOException {
            return read(in, 1);
        }

        @Override
        public GpuState read(DataInput in, int version) throws IOException {
            GpuState state = new GpuState();
            state.settledUntil = in.readLong();
            for (int windows = in.readInt(); windows > 0; windows--) {
                long start = in.readLong();
                Window window = new Window();
                // The GPU's latest identity is attached once the state is read back.
                window.identity = in.readBoolean() ? null : GpuIdentity.CODEC.read(in);
                window.totals = RunningTotals.of(UsageCodec.TOTALS.read(in));
                if (in.readBoolean()) {
                    window.countedOwn(window.identity);
                } else {
                    // Unsigned: a shared GPU's minute may count in more than 127 keys (jobs, teams, pool).
                    for (int counted = in.readUnsignedByte(); counted > 0; counted--) {
                        window.counted.add(in.readUTF());
                    }
                }
                if (version >= WITH_JOB_PARTS) {
                    window.jobParts = JobParts.read(in);
                }
                state.windows.put(start, window);
            }
            for (int minutes = in.readInt(); minutes > 0; minutes--) {
                state.coverage.put(in.readLong(), in.readLong());
            }
            return state;
        }
    };
}
