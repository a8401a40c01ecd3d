// Over 400 lines: one join of four topics per job, whose minutes and views must agree on the same bookkeeping.
package io.gpuledger.alerts.recommend;

import io.gpuledger.alerts.anomaly.FinalWindows;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Mean;
import io.gpuledger.model.Offer;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each running job's closed minutes and its {@link JobView} over a period of them, joined from
 * four topics: where its GPUs are and what model they are (usage windows), how busy they are (its
 * roll-up minutes), what it costs and what work it does (job economics) and what it says of itself
 * (work reports).
 *
 * <p>The cost engine re-sends a job's minute as its samples and reports arrive, each time with its figures so far; a
 * minute is taken once it is final, when the job has a minute two minutes newer (or, for a job that ended, once it
 * has been quiet while other jobs went on: {@link FinalWindows}), in its last version, with the last version of its
 * roll-up. A picture is taken only of a job followed for the whole period asked for. Jobs not heard of for
 * {@code staleAfter} are forgotten. How long each job ran over a longer look-back, which a picture carries, is kept
 * in {@link JobHours}.
 *
 * <p>Fed by one reader; {@link #sweep} may run on another thread.
 */
public final class JobBook {

    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final double PER_MILLION = 1_000_000;

    private final GpuCatalog catalog;
    private final Duration staleAfter;
    private final Duration longestPeriod;
    private final FinalWindows<JobEconomics> finalMinutes;
    private final JobHours hours;
    /**
     * The start of each job's newest final minute that reported work, kept after the job is forgotten, for as long as
     * a period of a rule may hold it: an instance a job left may still be judged on a period in which it worked.
     */
    private final Map<String, Instant> lastWork = new ConcurrentHashMap<>();
    private final Map<String, Job> jobs = new ConcurrentHashMap<>();
    private volatile Peers peers;
    private volatile long recordTimeMillis = Long.MIN_VALUE;
    /** Epoch milliseconds of the wall clock when any job's record last came. */
    private volatile long lastRecordAtMillis = Long.MIN_VALUE;

    /** How old the pictures a job is compared with may be. */
    static final Duration PEERS_FRESHNESS = Duration.ofSeconds(10);
    /**
     * The longest a job waits for capacity the cloud took back before its idle GPUs count as idle again:
     * waits for large instances run from minutes to hours; one that outlasts this is capacity paid for
     * nothing, worth releasing.
     */
    static final Duration LONGEST_WAIT_FOR_CAPACITY = Duration.ofHours(6);

    private record Peers(Instant madeAt, Duration period, List<JobView> views) {
    }

    /**
     * Units of work over a period and the cost of the minutes that reported them, by unit: a job reports
     * one unit, or a few, so a short list does, where maps cost each view of each job a map a minute.
     */
    private static final class UnitSums {
        private final List<String> names = new ArrayList<>(2);
        private double[] units = new double[2];
        private double[] costs = new double[2];

        void add(String unit, double count, double cost) {
            int i = names.indexOf(unit);
            if (i < 0) {
                i = names.size();
                names.add(unit);
                if (i == units.length) {
                    units = Arrays.copyOf(units, i * 2);
                    costs = Arrays.copyOf(costs, i * 2);
                }
            }
            units[i] += count;
            costs[i] += cost;
        }

        /** The unit with the most work, above none; -1 when none did any. */
        int most() {
            int most = -1;
            for (int i = 0; i < names.size(); i++) {
                if (units[i] > 0 && (most < 0 || units[i] > units[most])) {
                    most = i;
                }
            }
            return most;
        }
    }

    private static final class Job {
        private volatile Offer pool;
        private volatile String gpuModel;
        /** The GPU model its windows name, which {@link #gpuModel} falls back on. */
        private volatile String windowGpuModel;
        private volatile String team;
        private volatile JobTraits traits;
        /** Epoch milliseconds: set at every window of the job's GPUs, so not an object each time. */
        private volatile long heardAtMillis;
        /** Epoch milliseconds: the end of the newest of its windows, in the records' own time. */
        private volatile long newestMillis = Long.MIN_VALUE;
        /** When the cloud took capacity of it back; null once it reports work again after that. */
        private volatile Instant waitingSince;
        /** The start of the first window of it on the pool it runs on now, after it ran on another; null before. */
        private volatile Instant movedAt;
        /** The end of the newest window of a GPU it shared with other jobs; null when it never did. */
        private volatile Instant sharedUntil;
        /** The latest version of each of its minutes not final yet. */
        private final TreeMap<Instant, UsageRollup> openRollups = new TreeMap<>();
        /** Its final minutes over the longest period, oldest first. */
        private final ArrayDeque<JobMinute> minutes = new ArrayDeque<>();
        private Instant followedSince;
    }

    /**
     * @param longestPeriod how much of each job's history is kept: the longest period a view is asked for
     * @param lookback      the clock time over which a job's running time is counted ({@link JobHours})
     * @param maxJobs       jobs whose open minutes are followed at most (the quietest make room)
     */
    public JobBook(GpuCatalog catalog, Duration staleAfter, Duration longestPeriod, Duration lookback, int maxJobs) {
        this.catalog = catalog;
        this.staleAfter = staleAfter;
        this.longestPeriod = longestPeriod;
        this.finalMinutes = new FinalWindows<>(maxJobs, staleAfter);
        this.hours = new JobHours(lookback, maxJobs);
    }

    public void onWindow(GpuUsage window, Instant now) {
        if (window.sharedByJobs()) {
            // A shared GPU's jobs are each in their own roll-ups; its window names none of them, and places none.
            for (JobPart part : window.jobParts()) {
                String jobId = part.jobCharged();
                if (jobId != null) {
                    Job job = job(jobId, now);
                    Instant shared = job.sharedUntil;
                    if (shared == null || window.windowEnd().isAfter(shared)) {
                        job.sharedUntil = window.windowEnd();
                    }
                }
            }
            return;
        }
        if (window.jobId() == null || TelemetrySample.UNKNOWN_JOB.equals(window.jobId())) {
            return;
        }
        Job job = job(window.jobId(), now);
        heardUntil(job, window.windowEnd());
        Offer pool = job.pool;
        // Every window of the job's GPUs says where it runs; the fields change only when it moves.
        if (pool == null || !pool.isOfferOf(window) || !Objects.equals(job.windowGpuModel, window.gpuModel())) {
            if (pool != null) {
                job.movedAt = window.windowStart();
            }
            job.pool = new Offer(window.provider(), window.region(), window.instanceType(), window.lifecycle());
            job.windowGpuModel = window.gpuModel();
            job.gpuModel = catalog.instance(job.pool).map(GpuCatalog.InstanceSpec::gpuModel).orElse(window.gpuModel());
        }
        if (!Objects.equals(job.team, window.team())) {
            job.team = window.team();
        }
    }

    /** A version of a job's one-minute roll-up: the latest of each minute is kept until the minute is final. */
    public void onRollup(UsageRollup rollup, Instant now) {
        if (rollup.dimension() != UsageRollup.Dimension.JOB
                || Duration.between(rollup.windowStart(), rollup.windowEnd()).toSeconds() != 60) {
            return;
        }
        Job job = job(rollup.id(), now);
        synchronized (job) {
            if (job.minutes.isEmpty() || rollup.windowStart().isAfter(job.minutes.getLast().start())) {
                job.openRollups.put(rollup.windowStart(), rollup);
            }
        }
    }

    /**
     * A version of a job minute's economics; true when it made one or more of the job's minutes
     * final (then the job's picture has changed), false for one that only updates an open minute.
     * The last minutes of jobs that ended, which it may make final too, are taken into their books
     * without changing this answer: a job gone has nothing left to judge.
     */
    public boolean onEconomics(JobEconomics economics, Instant now) {
        Job job = job(economics.jobId(), now);
        heardUntil(job, economics.windowEnd());
        boolean itsOwn = false;
        for (JobEconomics minute : finalMinutes.offer(economics.jobId(), economics.windowStart(), economics, now)) {
            if (minute.jobId().equals(economics.jobId())) {
                itsOwn = true;
                take(job, minute);
            } else {
                // Not heard of again: its book is forgotten in its time; its running time is kept for its look-back.
                Job ended = jobs.get(minute.jobId());
                if (ended != null) {
                    take(ended, minute);
                } else {
                    JobMinute taken = JobMinute.of(minute, null);
                    hours.add(minute.jobId(), taken.start(), taken.gpuEquivalents(), taken.units());
                    workedIn(minute.jobId(), taken);
                }
            }
        }
        return itsOwn;
    }

    private void workedIn(String jobId, JobMinute minute) {
        if (minute.units() > 0) {
            lastWork.merge(jobId, minute.start(), (was, is) -> is.isAfter(was) ? is : was);
        }
    }

    private void take(Job job, JobEconomics minute) {
        synchronized (job) {
            JobMinute taken = JobMinute.of(minute, job.openRollups.get(minute.windowStart()));
            Instant waiting = job.waitingSince;
            if (waiting != null && taken.units() > 0 && !taken.start().isBefore(waiting)) {
                job.waitingSince = null;
            }
            add(job, taken);
            hours.add(minute.jobId(), taken.start(), taken.gpuEquivalents(), taken.units());
            workedIn(minute.jobId(), taken);
            job.openRollups.headMap(job.minutes.getLast().start(), true).clear();
        }
    }

    /**
     * What the job's work reports say of it, whether or not its placement is known: a job seen on shared GPUs only
     * has no placement here (their windows name no job), and still checkpoints.
     */
    public JobTraits traits(String jobId) {
        Job job = jobs.get(jobId);
        JobTraits traits = job == null ? null : job.traits;
        return traits == null ? JobTraits.NONE : traits;
    }

    public void onProgress(JobProgress progress, Instant now) {
        if (progress.traits() != null) {
            job(progress.jobId(), now).traits = progress.traits();
        }
    }

    /**
     * The job's picture over its final minutes of the last {@code period} (ending with its newest
     * final minute), once its placement is known and it has been followed for the whole period.
     * Minutes of the period it has no record of count as minutes it spent nothing and did nothing.
     * Costs and units are summed, then divided: its cost per million units is the cost of the
     * minutes that reported the unit over the units they reported, its rates are per hour of the
     * period, and its activity and communication-overhead ratio are weighted by GPU time.
     */
    public Optional<JobView> view(String jobId, Duration period) {
        Job job = jobs.get(jobId);
        if (job == null || job.pool == null) {
            return Optional.empty();
        }
        synchronized (job) {
            if (job.minutes.isEmpty()) {
                return Optional.empty();
            }
            JobMinute last = job.minutes.getLast();
            Instant end = last.start().plus(MINUTE);
            Instant from = end.minus(period);
            Instant moved = job.movedAt;
            Instant shared = job.sharedUntil;
            if (job.followedSince.isAfter(from) || last.gpus() < 1
                    || moved != null && job.followedSince.isBefore(moved) || shared != null && shared.isAfter(from)) {
                // Not followed for the period, or its minutes are of the pool it has left, or of a GPU it shared:
                // not its alone to move, switch or shrink, and its share of one is no GPU's throughput.
                return Optional.empty();
            }
            double minutes = period.toSeconds() / 60.0;
            double gpuMinutes = 0;
            double rates = 0;
            Mean sm = Mean.NONE;
            Mean dram = Mean.NONE;
            UnitSums units = new UnitSums();
            double communication = 0;
            double communicationSeconds = 0;
            for (JobMinute minute : job.minutes) {
                if (minute.start().isBefore(from)) {
                    continue;
                }
                gpuMinutes += minute.gpuEquivalents();
                rates += minute.costPerHour();
                sm = sm.plus(minute.smActive());
                dram = dram.plus(minute.dramActive());
                for (Map.Entry<String, Double> reported : minute.workUnits().entrySet()) {
                    units.add(reported.getKey(), reported.getValue(), minute.cost());
                }
                if (minute.communicationOverheadRatio() != null && minute.gpuSeconds() > 0) {
                    communication += minute.communicationOverheadRatio() * minute.gpuSeconds();
                    communicationSeconds += minute.gpuSeconds();
                }
            }
            double gpuEquivalents = gpuMinutes / minutes;
            if (!(gpuEquivalents > 0)) {
                return Optional.empty();
            }
            int most = units.most();
            String unit = most < 0 ? null : units.names.get(most);
            Double perHour = unit == null ? null : units.units[most] / (minutes / 60);
            Double perMillion = unit == null ? null : units.costs[most] / units.units[most] * PER_MILLION;
            return Optional.of(JobView.builder().jobId(jobId).team(job.team).pool(job.pool).gpuModel(job.gpuModel)
                    .gpus((int) last.gpus()).gpuEquivalents(gpuEquivalents).costPerHour(rates / minutes)
                    .currency(last.currency()).smActive(clamp(sm.value(), 0)).dramActive(clamped(dram.value()))
                    .unit(unit).workUnitsPerHour(perHour).costPerMillionUnits(perMillion)
                    .communicationOverheadRatio(communicationSeconds > 0 ? communication / communicationSeconds : null)
                    .traits(job.traits).windowEnd(end).running(hours.share(jobId, end, gpuEquivalents).orElse(null))
                    .build());
        }
    }

    /**
     * Whether a GPU the job ran on was shared with other jobs within {@code period} of the end of its newest final
     * minute (or of its newest window, where it has no final minute yet): then it has no picture over the period.
     */
    public boolean sharedWithin(String jobId, Duration period) {
        Job job = jobs.get(jobId);
        Instant shared = job == null ? null : job.sharedUntil;
        if (shared == null) {
            return false;
        }
        synchronized (job) {
            Instant end = job.minutes.isEmpty() ? shared : job.minutes.getLast().start().plus(MINUTE);
            return shared.isAfter(end.minus(period));
        }
    }

    /**
     * Whether the job reported work in any of its final minutes from {@code from} up to {@code to}:
     * a job serving requests on GPUs that look idle is not idle.
     */
    public boolean reportedWork(String jobId, Instant from, Instant to) {
        Instant worked = lastWork.get(jobId);
        if (worked != null && !worked.isBefore(from) && worked.isBefore(to)) {
            // also for a job forgotten since: it left, and the period still holds its work
            return true;
        }
        Job job = jobs.get(jobId);
        if (job == null) {
            return false;
        }
        synchronized (job) {
            for (JobMinute minute : job.minutes) {
                if (!minute.start().isBefore(from) && minute.start().isBefore(to) && minute.units() > 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The cloud takes capacity of the job back at {@code at} (a spot interruption, a preemption): until it
     * reports work again, or for {@link #LONGEST_WAIT_FOR_CAPACITY}, it waits for capacity, and idle GPUs
     * of it are not idle capacity to release.
     */
    public void interrupted(String jobId, Instant at) {
        Job job = jobs.get(jobId);
        if (job != null) {
            job.waitingSince = at;
        }
    }

    /** Whether the job waits at {@code at} for capacity the cloud took back, not having reported work since. */
    public boolean waiting(String jobId, Instant at) {
        Job job = jobs.get(jobId);
        Instant since = job == null ? null : job.waitingSince;
        return since != null && at.isBefore(since.plus(LONGEST_WAIT_FOR_CAPACITY));
    }

    /** The end of the newest window of any job: the records' own clock, which a backlog replays as it ran. */
    public Instant recordTime() {
        long newest = recordTimeMillis;
        return newest == Long.MIN_VALUE ? Instant.MIN : Instant.ofEpochMilli(newest);
    }

    /** Every job's picture over {@code period}, of the jobs that have one. */
    public Collection<JobView> views(Duration period) {
        List<JobView> views = new ArrayList<>();
        for (String jobId : jobs.keySet()) {
            view(jobId, period).ifPresent(views::add);
        }
        return views;
    }

    /**
     * Every job's picture over {@code period} as of at most {@link #PEERS_FRESHNESS} before
     * {@code now}: what a job is compared with. Building every picture for each job's every minute
     * would cost the square of the jobs; a picture some seconds old compares as well.
     */
    public Collection<JobView> peers(Instant now, Duration period) {
        Peers cached = peers;
        if (cached == null || !cached.period().equals(period) || now.isAfter(cached.madeAt().plus(PEERS_FRESHNESS))) {
            cached = new Peers(now, period, List.copyOf(views(period)));
            peers = cached;
        }
        return cached.views();
    }

    /**
     * Forgets the jobs not heard of for {@code staleAfter} by the wall clock ({@code now}), and, while
     * records still come, by the records' own clock too (their newest window that long before the
     * newest of any job); returns their ids. Their running time is kept for as long as their look-back,
     * in the records' time, holds some of it. A backlog worked off faster than it ran therefore ends its
     * jobs where the live run ended them, and keeps every hour of their look-back, however old it is.
     */
    public List<String> sweep(Instant now) {
        Instant recordTime = recordTime();
        if (recordTime.equals(Instant.MIN)) {
            return List.of();
        }
        // A node whose clock runs ahead must not age everyone's look-back: the earlier of the two clocks.
        hours.sweep(recordTime.isBefore(now) ? recordTime : now);
        long wallCutoff = now.minus(staleAfter).toEpochMilli();
        boolean recordsCome = lastRecordAtMillis >= wallCutoff;
        long recordCutoff = recordTime.minus(staleAfter).toEpochMilli();
        List<String> gone = new ArrayList<>();
        jobs.forEach((id, job) -> {
            if (job.heardAtMillis < wallCutoff && (!recordsCome || job.newestMillis < recordCutoff)) {
                gone.add(id);
            }
        });
        gone.forEach(jobs::remove);
        Instant workBefore = recordTime.minus(longestPeriod);
        lastWork.values().removeIf(worked -> worked.isBefore(workBefore));
        return gone;
    }

    private void heardUntil(Job job, Instant windowEnd) {
        long end = windowEnd.toEpochMilli();
        if (end > job.newestMillis) {
            job.newestMillis = end;
        }
        if (end > recordTimeMillis) {
            recordTimeMillis = end;
        }
    }

    /**
     * Adds a final minute, keeping the longest period of them. A change of currency starts the job
     * afresh, and so does a minute more than {@code staleAfter} after the one before: the job was
     * forgotten meanwhile, and its last minutes of before, made final only by its first of now, are
     * no part of a period of this run (a job that stops at 16:00 and starts again at 08:00 is followed
     * from 08:00). So does a move to another pool: what it cost and did on the one it left says nothing
     * of the one it is on.
     */
    private void add(Job job, JobMinute minute) {
        Instant moved = job.movedAt;
        boolean movedSince = moved != null && !job.minutes.isEmpty() && !minute.start().isBefore(moved)
                && job.minutes.getFirst().start().isBefore(moved);
        if (!job.minutes.isEmpty() && (!Objects.equals(job.minutes.getLast().currency(), minute.currency())
                || Duration.between(job.minutes.getLast().start(), minute.start()).compareTo(staleAfter) > 0
                || movedSince)) {
            job.minutes.clear();
        }
        if (job.minutes.isEmpty()) {
            job.followedSince = minute.start();
        }
        job.minutes.addLast(minute);
        Instant keepFrom = minute.start().plus(MINUTE).minus(longestPeriod);
        while (job.minutes.getFirst().start().isBefore(keepFrom)) {
            job.minutes.removeFirst();
        }
    }

    private Job job(String jobId, Instant now) {
        Job job = jobs.computeIfAbsent(jobId, id -> new Job());
        job.heardAtMillis = now.toEpochMilli();
        lastRecordAtMillis = job.heardAtMillis;
        return job;
    }

    private static double clamp(Double value, double otherwise) {
        return value == null ? otherwise : Math.min(1, Math.max(0, value));
    }

    private static Double clamped(Double value) {
        return value == null ? null : clamp(value, 0);
    }
}
