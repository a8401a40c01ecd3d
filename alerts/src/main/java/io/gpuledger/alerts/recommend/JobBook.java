package io.gpuledger.alerts.recommend;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Mean;
import io.gpuledger.model.Offer;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each running job's {@link JobView}, joined from four topics: where its GPUs are and what model
 * they are (usage windows), what it costs and how busy it is (its roll-up minute), what its work
 * costs (job economics) and what it says of itself (work reports). Jobs not heard of for
 * {@code staleAfter} are forgotten.
 */
public final class JobBook {

    private final GpuCatalog catalog;
    private final Duration staleAfter;
    private final Map<String, Job> jobs = new ConcurrentHashMap<>();
    private volatile Peers peers;

    /** How old the pictures a job is compared with may be. */
    static final Duration PEERS_FRESHNESS = Duration.ofSeconds(10);

    private record Peers(Instant madeAt, List<JobView> views) {
    }

    private static final class Job {
        private volatile Offer pool;
        private volatile String gpuModel;
        private volatile String team;
        private volatile UsageRollup minute;
        private volatile JobEconomics economics;
        private volatile JobTraits traits;
        private volatile Instant heardAt;
    }

    public JobBook(GpuCatalog catalog, Duration staleAfter) {
        this.catalog = catalog;
        this.staleAfter = staleAfter;
    }

    public void onWindow(GpuUsage window, Instant now) {
        if (window.jobId() == null || TelemetrySample.UNKNOWN_JOB.equals(window.jobId())) {
            return;
        }
        Job job = job(window.jobId(), now);
        job.pool = new Offer(window.provider(), window.region(), window.instanceType(), window.lifecycle());
        job.gpuModel = catalog.instance(job.pool).map(GpuCatalog.InstanceSpec::gpuModel).orElse(window.gpuModel());
        job.team = window.team();
    }

    /** A job's roll-up: its latest one-minute window is kept. */
    public void onRollup(UsageRollup rollup, Instant now) {
        if (rollup.dimension() != UsageRollup.Dimension.JOB
                || Duration.between(rollup.windowStart(), rollup.windowEnd()).toSeconds() != 60) {
            return;
        }
        Job job = job(rollup.id(), now);
        UsageRollup known = job.minute;
        if (known == null || !rollup.windowStart().isBefore(known.windowStart())) {
            job.minute = rollup;
        }
    }

    public void onEconomics(JobEconomics economics, Instant now) {
        Job job = job(economics.jobId(), now);
        JobEconomics known = job.economics;
        if (economics.throughputReported()
                && (known == null || !economics.windowStart().isBefore(known.windowStart()))) {
            job.economics = economics;
        }
    }

    public void onProgress(JobProgress progress, Instant now) {
        if (progress.traits() != null) {
            job(progress.jobId(), now).traits = progress.traits();
        }
    }

    /** The job's picture, once its placement and a priced minute are known. */
    public Optional<JobView> view(String jobId) {
        Job job = jobs.get(jobId);
        if (job == null || job.pool == null || job.minute == null || job.minute.gpus() < 1
                || !(job.minute.gpuEquivalents() > 0)) {
            return Optional.empty();
        }
        UsageRollup minute = job.minute;
        JobEconomics economics = job.economics;
        String unit = null;
        Double perHour = null;
        Double perMillion = null;
        Double communication = null;
        if (economics != null) {
            unit = primaryUnit(economics);
            if (unit != null) {
                double hours = Duration.between(economics.windowStart(), economics.windowEnd()).toMillis() / 3.6e6;
                perHour = economics.workUnits().get(unit) / hours;
                perMillion = economics.costPerMillionUnits().get(unit);
            }
            communication = economics.communicationOverheadRatio();
        }
        return Optional.of(new JobView(jobId, job.team, job.pool, job.gpuModel, (int) minute.gpus(),
                minute.gpuEquivalents(), minute.costPerHour(), minute.currency(), ratio(minute.totals().smActive()),
                mean(minute.totals().dramActive()), unit, perHour, perMillion, communication, job.traits,
                minute.windowEnd()));
    }

    /** Every job's picture that is complete. */
    public Collection<JobView> views() {
        List<JobView> views = new ArrayList<>();
        for (String jobId : jobs.keySet()) {
            view(jobId).ifPresent(views::add);
        }
        return views;
    }

    /**
     * Every job's picture as of at most {@link #PEERS_FRESHNESS} before {@code now}: what a job is
     * compared with. Building every picture for each job's every record would cost the square of
     * the jobs; a picture some seconds old compares as well.
     */
    public Collection<JobView> peers(Instant now) {
        Peers cached = peers;
        if (cached == null || now.isAfter(cached.madeAt().plus(PEERS_FRESHNESS))) {
            cached = new Peers(now, List.copyOf(views()));
            peers = cached;
        }
        return cached.views();
    }

    /** Forgets the jobs not heard of since {@code now - staleAfter}; returns their ids. */
    public List<String> sweep(Instant now) {
        Instant cutoff = now.minus(staleAfter);
        List<String> gone = new ArrayList<>();
        jobs.forEach((id, job) -> {
            if (job.heardAt.isBefore(cutoff)) {
                gone.add(id);
            }
        });
        gone.forEach(jobs::remove);
        return gone;
    }

    private Job job(String jobId, Instant now) {
        Job job = jobs.computeIfAbsent(jobId, id -> new Job());
        job.heardAt = now;
        return job;
    }

    /** The unit its costs are compared in: the one with a cost per million, preferring the most units. */
    private static String primaryUnit(JobEconomics economics) {
        return economics.costPerMillionUnits().keySet().stream()
                .max((a, b) -> Double.compare(economics.workUnits().getOrDefault(a, 0.0),
                        economics.workUnits().getOrDefault(b, 0.0)))
                .orElse(null);
    }

    private static double ratio(Mean mean) {
        Double value = mean(mean);
        return value == null ? 0 : Math.min(1, Math.max(0, value));
    }

    private static Double mean(Mean mean) {
        Double value = mean == null ? null : mean.value();
        return value == null ? null : Math.min(1, Math.max(0, value));
    }
}
