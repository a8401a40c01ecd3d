package io.gpuledger.alerts.recommend;

import io.gpuledger.model.Recommendation;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How much GPU each job held over a look-back of clock time (a day by default), time it did not
 * run counting as none: what the job rules turn a saving per hour into a saving per month with.
 * A job that runs eight hours a day saves a third of what it would running all month. The job book
 * forgets a job minutes after it goes quiet; a job is kept here until its look-back holds nothing of it.
 *
 * <p>Time is counted in buckets of a 24th of the look-back (an hour for a day, at least a minute)
 * aligned to the clock, and the oldest bucket, which the look-back only partly covers, counts for
 * the part of it covered, as though it was held evenly through it. Each bucket also keeps the
 * highest work rate of any of its minutes, over the job and per GPU: what a serving job's demand
 * reached, which its capacity must carry wherever it runs.
 *
 * <p>Keyed by any id: the reclaim rule counts the idle instances of a job or an instance the same
 * way ({@link IdleHours}).
 *
 * <p>Fed by one reader; {@link #sweep} may run on another thread. At most {@code maxJobs} jobs are
 * followed; the one heard of least recently makes room for a new one.
 */
public final class JobHours {

    private static final long BUCKETS_PER_LOOKBACK = 24;

    /**
     * The job over the look-back from {@code from} to {@code to}: its GPU-hours, and the share of the
     * look-back it held its GPUs of now ({@code gpuHours / (hours × gpus now)}, at most 1).
     *
     * @param peak the highest work rate of any minute of the look-back; {@link Peak#NONE} when it reported none
     */
    public record Share(Instant from, Instant to, double gpuHours, double share, Peak peak) {

        /** A share of a job that reported no work. */
        public Share(Instant from, Instant to, double gpuHours, double share) {
            this(from, to, gpuHours, share, Peak.NONE);
        }

        /** The hours of a 720-hour month it runs at its present size, going on as over the look-back. */
        public double hoursPerMonth() {
            return share * Recommendation.HOURS_PER_MONTH;
        }
    }

    /**
     * The highest work rates of a job's minutes: units an hour over the whole job, and units an hour
     * per whole GPU (each the highest of its own minute, not of the same one).
     */
    public record Peak(double unitsPerHour, double unitsPerGpuHour) {

        public static final Peak NONE = new Peak(0, 0);

        /** Whether any minute reported work. */
        public boolean known() {
            return unitsPerHour > 0 && unitsPerGpuHour > 0;
        }
    }

    private final long lookbackMinutes;
    private final long bucketMinutes;
    private final int maxJobs;
    private final Map<String, Track> jobs = new ConcurrentHashMap<>();

    /** One job's GPU-minutes and peak rates per bucket, in a ring indexed by bucket number. */
    private final class Track {
        private final double[] gpuMinutes;
        private final double[] peakUnitsPerHour;
        private final double[] peakUnitsPerGpuHour;
        private final long[] bucketOf;
        private final long followedSince;
        private volatile long newest;

        private Track(long firstMinute) {
            int slots = (int) ((lookbackMinutes + bucketMinutes - 1) / bucketMinutes) + 1;
            this.gpuMinutes = new double[slots];
            this.peakUnitsPerHour = new double[slots];
            this.peakUnitsPerGpuHour = new double[slots];
            this.bucketOf = new long[slots];
            Arrays.fill(bucketOf, Long.MIN_VALUE);
            this.followedSince = firstMinute;
            this.newest = firstMinute;
        }

        private synchronized void add(long minute, double gpus, double units) {
            long bucket = Math.floorDiv(minute, bucketMinutes);
            int slot = (int) Math.floorMod(bucket, (long) gpuMinutes.length);
            if (bucketOf[slot] != bucket) {
                if (bucketOf[slot] > bucket) {
                    return;
                }
                bucketOf[slot] = bucket;
                gpuMinutes[slot] = 0;
                peakUnitsPerHour[slot] = 0;
                peakUnitsPerGpuHour[slot] = 0;
            }
            gpuMinutes[slot] += gpus;
            if (units > 0 && gpus > 0) {
                peakUnitsPerHour[slot] = Math.max(peakUnitsPerHour[slot], units * 60);
                peakUnitsPerGpuHour[slot] = Math.max(peakUnitsPerGpuHour[slot], units * 60 / gpus);
            }
            newest = Math.max(newest, minute);
        }

        /** The highest rates of the buckets that overlap the minutes from {@code from} up to {@code to}. */
        private synchronized Peak peak(long from, long to) {
            double perHour = 0;
            double perGpuHour = 0;
            for (int slot = 0; slot < bucketOf.length; slot++) {
                long start = bucketOf[slot] * bucketMinutes;
                if (bucketOf[slot] != Long.MIN_VALUE && start < to && start + bucketMinutes > from) {
                    perHour = Math.max(perHour, peakUnitsPerHour[slot]);
                    perGpuHour = Math.max(perGpuHour, peakUnitsPerGpuHour[slot]);
                }
            }
            return new Peak(perHour, perGpuHour);
        }

        /** GPU-minutes in the minutes from {@code from} up to {@code to} (minute numbers, {@code to} excluded). */
        private synchronized double gpuMinutes(long from, long to) {
            double sum = 0;
            for (int slot = 0; slot < gpuMinutes.length; slot++) {
                long start = bucketOf[slot] * bucketMinutes;
                if (bucketOf[slot] == Long.MIN_VALUE || start >= to || start + bucketMinutes <= from) {
                    continue;
                }
                // Only the oldest bucket can start before the look-back: the part of it covered counts, of
                // the part that was followed (a track first seen inside it holds nothing before).
                long followedFrom = Math.max(start, followedSince);
                double covered = start < from ? (double) (start + bucketMinutes - from)
                        / (start + bucketMinutes - followedFrom) : 1;
                sum += gpuMinutes[slot] * covered;
            }
            return sum;
        }
    }

    /**
     * @param lookback how far back a job's time is counted, whole minutes; a job is judged once it
     *                 has been followed that long
     */
    public JobHours(Duration lookback, int maxJobs) {
        if (lookback.toMinutes() < 1 || lookback.toMillis() % 60_000 != 0) {
            throw new IllegalArgumentException("a job look-back is whole minutes, at least one; was " + lookback);
        }
        this.lookbackMinutes = lookback.toMinutes();
        this.bucketMinutes = Math.max(1, lookbackMinutes / BUCKETS_PER_LOOKBACK);
        this.maxJobs = maxJobs;
    }

    /** A final minute of the job, starting at {@code minuteStart}, on {@code gpuEquivalents} of GPU. */
    public void add(String jobId, Instant minuteStart, double gpuEquivalents) {
        add(jobId, minuteStart, gpuEquivalents, 0);
    }

    /** A final minute of the job on {@code gpuEquivalents} of GPU, in which it did {@code units} of work. */
    public void add(String jobId, Instant minuteStart, double gpuEquivalents, double units) {
        long minute = Math.floorDiv(minuteStart.getEpochSecond(), 60);
        Track track = jobs.get(jobId);
        if (track == null) {
            if (jobs.size() >= maxJobs) {
                forgetQuietest();
            }
            track = jobs.computeIfAbsent(jobId, id -> new Track(minute));
        }
        track.add(minute, gpuEquivalents, units);
    }

    /**
     * The job's share of the look-back ending at {@code end} at {@code gpuEquivalentsNow}; empty when
     * it has not been followed for the whole look-back.
     */
    public Optional<Share> share(String jobId, Instant end, double gpuEquivalentsNow) {
        return share(jobId, end, gpuEquivalentsNow, true);
    }

    /**
     * As {@link #share(String, Instant, double)}, but also for an id followed for less than the
     * look-back when {@code wholeLookback} is false: then the share is of the time since it was first
     * seen, the best that is known of it until a whole look-back is.
     */
    public Optional<Share> share(String jobId, Instant end, double gpuEquivalentsNow, boolean wholeLookback) {
        Track track = jobs.get(jobId);
        long to = Math.floorDiv(end.getEpochSecond(), 60);
        long from = to - lookbackMinutes;
        if (track == null || wholeLookback && track.followedSince > from || !(gpuEquivalentsNow > 0)) {
            return Optional.empty();
        }
        from = Math.max(from, track.followedSince);
        if (to <= from) {
            return Optional.empty();
        }
        double gpuMinutes = track.gpuMinutes(from, to);
        double share = Math.min(1, gpuMinutes / ((to - from) * gpuEquivalentsNow));
        return Optional.of(new Share(Instant.ofEpochSecond(from * 60), Instant.ofEpochSecond(to * 60),
                gpuMinutes / 60, share, track.peak(from, to)));
    }

    /** The id's GPU-minutes over the clock minutes from {@code from} to {@code to}; 0 where it has none. */
    public double gpuMinutes(String jobId, Instant from, Instant to) {
        Track track = jobs.get(jobId);
        return track == null ? 0
                : track.gpuMinutes(Math.floorDiv(from.getEpochSecond(), 60), Math.floorDiv(to.getEpochSecond(), 60));
    }

    /**
     * Forgets the jobs whose newest minute is a whole look-back before {@code now}: the time of the
     * records (the newest minute any job has), not the wall clock, so that a backlog being worked off
     * keeps the look-back it is judged on.
     */
    public void sweep(Instant now) {
        long cutoff = Math.floorDiv(now.getEpochSecond(), 60) - lookbackMinutes;
        jobs.values().removeIf(track -> track.newest < cutoff);
    }

    /** Jobs followed. */
    public int size() {
        return jobs.size();
    }

    private void forgetQuietest() {
        String quietest = null;
        long oldest = Long.MAX_VALUE;
        for (Map.Entry<String, Track> entry : jobs.entrySet()) {
            if (entry.getValue().newest < oldest) {
                oldest = entry.getValue().newest;
                quietest = entry.getKey();
            }
        }
        if (quietest != null) {
            jobs.remove(quietest);
        }
    }
}
