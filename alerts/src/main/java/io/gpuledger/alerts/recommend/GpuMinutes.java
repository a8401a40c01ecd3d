package io.gpuledger.alerts.recommend;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Offer;
import io.gpuledger.model.TelemetrySample;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each GPU's closed one-minute windows over the last {@code period}: what the reclaim-idle rule
 * judges. Only a window's closed record is taken (the cost engine sends it once, when the minute
 * can take no more samples); the updates sent while it is open, and a closed record not newer than
 * the last taken (a replay), are passed over. A GPU is judged once it has been followed for the
 * whole period, and again once it runs another job (or turns shared, or no longer is): what one job left idle
 * says nothing of the next, which a release judged over both minutes would stop as it starts; minutes in it
 * with no window add nothing.
 *
 * <p>Fed by one reader; {@link #sweep} may run on another thread.
 */
public final class GpuMinutes {

    private static final Duration MINUTE = Duration.ofMinutes(1);

    private final Duration period;
    private final Map<String, Gpu> gpus = new ConcurrentHashMap<>();

    /**
     * What one closed minute adds: wall-clock seconds (a MIG slice's counted as a whole GPU's) with
     * an activity reading, SM activity × those seconds, seconds observed, cost, and the jobs that ran in it.
     */
    private record Minute(Instant start, double secondsWithActivity, double activeSeconds, double secondsObserved,
            double cost, List<String> jobs) {
    }

    private static final class Gpu {
        private final ArrayDeque<Minute> minutes = new ArrayDeque<>();
        private Instant followedSince;
        /** The end of its latest minute with a sample at work, or followedSince. */
        private Instant quietSince;
        private GpuUsage latest;
        private volatile Instant heardAt;
    }

    public GpuMinutes(Duration period) {
        this.period = period;
    }

    /**
     * Takes a GPU's window; returns what its closed minutes of the period add up to once they
     * cover the whole period, and nothing for an open window or one not newer than the last.
     */
    public Optional<IdlePeriod> add(GpuUsage window, Instant now) {
        if (!window.closed()) {
            return Optional.empty();
        }
        Gpu gpu = gpus.computeIfAbsent(window.gpuUuid(), id -> new Gpu());
        gpu.heardAt = now;
        synchronized (gpu) {
            GpuUsage last = gpu.latest;
            if (last != null && !window.windowStart().isAfter(last.windowStart())) {
                return Optional.empty();
            }
            if (last == null || !Objects.equals(last.currency(), window.currency())
                    || !Objects.equals(last.jobId(), window.jobId())) {
                // Amounts of two currencies do not add up, and the minutes of the job the GPU ran before are not
                // those of the job (or the jobs sharing it) it runs now: the GPU is followed afresh.
                gpu.minutes.clear();
                gpu.followedSince = window.windowStart();
                gpu.quietSince = window.windowStart();
            } else if (window.windowStart().isAfter(last.windowStart().plus(MINUTE))) {
                // Minutes that sent nothing say nothing of it: quiet, if it is, since it sent again.
                gpu.quietSince = window.windowStart();
            }
            gpu.latest = window;
            double withActivity = window.secondsWithActivity();
            List<String> jobsInMinute = jobsOf(window);
            if (!gpu.minutes.isEmpty() && gpu.minutes.getLast().jobs().equals(jobsInMinute)) {
                // One list for the minutes of the same jobs, as most are: a GPU shared by many keeps a few.
                jobsInMinute = gpu.minutes.getLast().jobs();
            }
            gpu.minutes.addLast(new Minute(window.windowStart(), withActivity, window.smActive() * withActivity,
                    window.secondsObserved(), window.cost(), jobsInMinute));
            Instant end = window.windowStart().plus(MINUTE);
            if (atWork(window) || withActivity <= 0) {
                // At work, or not known to be quiet: a minute without an activity reading says nothing of it.
                gpu.quietSince = end;
            }
            Instant from = end.minus(period);
            while (gpu.minutes.getFirst().start().isBefore(from)) {
                gpu.minutes.removeFirst();
            }
            if (gpu.followedSince.isAfter(from)) {
                return Optional.empty();
            }
            double withActivitySum = 0;
            double activeSum = 0;
            double observed = 0;
            double cost = 0;
            LinkedHashSet<String> jobs = new LinkedHashSet<>();
            for (Minute minute : gpu.minutes) {
                withActivitySum += minute.secondsWithActivity();
                activeSum += minute.activeSeconds();
                observed += minute.secondsObserved();
                cost += minute.cost();
                jobs.addAll(minute.jobs());
            }
            double smActive = withActivitySum > 0 ? activeSum / withActivitySum : 0;
            return Optional.of(new IdlePeriod(window, from, end, withActivitySum, smActive, observed, cost,
                    List.copyOf(jobs), gpu.quietSince));
        }
    }

    /**
     * The instances of {@code pool} with a GPU followed here: heard of since the last {@link #sweep}, a GPU not yet
     * followed for a period, or followed afresh after its job changed, too.
     */
    public Set<String> instancesOf(Offer pool) {
        Set<String> of = new HashSet<>();
        for (Gpu gpu : gpus.values()) {
            synchronized (gpu) {
                if (gpu.latest != null && gpu.latest.offer().equals(pool)) {
                    of.add(gpu.latest.instanceId());
                }
            }
        }
        return of;
    }

    /**
     * Whether a sample of the window was at work: time with an activity reading the engine did not count idle. A
     * burst shorter than a sample shows where it lifts the sample's mean over its interval to the threshold.
     */
    static boolean atWork(GpuUsage window) {
        double gpuSeconds = window.totals().smActive().seconds() - window.totals().idleSeconds();
        return gpuSeconds / window.gpuFraction() > 1e-6;
    }

    /**
     * The jobs that ran in {@code window}: its job, or each that took a part of a shared GPU (not a team's unlisted
     * jobs, which have no name).
     */
    static List<String> jobsOf(GpuUsage window) {
        if (window.jobParts().isEmpty()) {
            // A window of another writer may name no job.
            return window.jobId() == null ? List.of() : List.of(window.jobId());
        }
        return window.jobParts().stream().map(JobPart::jobCharged).filter(Objects::nonNull).distinct().toList();
    }

    /**
     * The job of the GPU's last closed minute taken, where {@code window} is a later closed one of another job (or
     * {@code shared} where the GPU was or now is shared); empty otherwise.
     */
    public Optional<String> jobBefore(GpuUsage window) {
        Gpu gpu = window.closed() ? gpus.get(window.gpuUuid()) : null;
        GpuUsage last = gpu == null ? null : gpu.latest;
        boolean handedOver = last != null && window.windowStart().isAfter(last.windowStart())
                && !Objects.equals(last.jobId(), window.jobId());
        return handedOver ? Optional.of(Objects.requireNonNullElse(last.jobId(), TelemetrySample.UNKNOWN_JOB))
                : Optional.empty();
    }

    /** Forgets the GPUs not heard of since {@code cutoff}; returns their UUIDs. */
    public List<String> sweep(Instant cutoff) {
        List<String> gone = new ArrayList<>();
        gpus.forEach((uuid, gpu) -> {
            if (gpu.heardAt.isBefore(cutoff)) {
                gone.add(uuid);
            }
        });
        gone.forEach(gpus::remove);
        return gone;
    }

    /** GPUs followed. */
    public int size() {
        return gpus.size();
    }
}
