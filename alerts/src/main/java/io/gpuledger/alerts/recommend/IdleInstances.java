package io.gpuledger.alerts.recommend;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Offer;
import io.gpuledger.model.TelemetrySample;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each instance's GPUs (and MIG slices) as their closed minutes show them, and who holds each
 * instance: what the reclaim rule judges, since the bill is for whole instances, not GPUs. An
 * instance's minute is complete once every one of its GPUs has sent it: all the GPUs its type has
 * (the catalog's count, or its price's), a slice counting its share of a GPU; where the type is not
 * known, every GPU heard from on it lately. An instance some of whose GPUs send nothing is never
 * complete, so never judged idle: what it does is not known.
 *
 * <p>An instance is held by a job when all its GPUs run that job, by no job when none of them runs
 * one, and shared otherwise.
 *
 * <p>Fed by one reader; {@link #sweep} and {@link #ranJob} may run on other threads.
 */
final class IdleInstances {

    /** How long a GPU or an instance not heard of counts as gone from it. */
    private static final Duration GONE_AFTER = Duration.ofMinutes(2);
    /** Shares of slices summed in floating point may fall short of a whole GPU by a hair. */
    private static final double SHARE_SLACK = 1e-6;

    /** The holder of an instance none of whose GPUs runs a job. */
    static final String NO_JOB = TelemetrySample.UNKNOWN_JOB;
    /** The holder of an instance whose GPUs run different jobs. */
    static final String SHARED = "";

    /**
     * One GPU's latest closed-minute period: whose it is and what share of a GPU it is.
     *
     * @param jobId the job its latest window names: {@link TelemetrySample#SHARED_JOB} for a GPU several jobs share
     * @param jobs  the jobs that ran on it over the period: its job, or each job that took a part of it while it was
     *              shared, a job gone before the latest minute too (none that is no job:
     *              {@link TelemetrySample#UNKNOWN_JOB}, {@code shared}, a team's unlisted jobs)
     */
    record Gpu(String uuid, String jobId, List<String> jobs, double fraction, IdlePeriod period) {

        static Gpu of(IdlePeriod period) {
            GpuUsage window = period.latest();
            return new Gpu(window.gpuUuid(), window.jobId(), jobsIn(period.jobs()), window.gpuFraction(), period);
        }

        /** The jobs that ran on it in its latest minute, as {@link #jobs} lists them. */
        List<String> jobsNow() {
            return jobsIn(GpuMinutes.jobsOf(period.latest()));
        }
    }

    private static List<String> jobsIn(List<String> jobIds) {
        return jobIds.stream().filter(IdleInstances::isJob).toList();
    }

    private static boolean isJob(String jobId) {
        return !runsNoJob(jobId) && !jobId.equals(TelemetrySample.SHARED_JOB);
    }

    /** Whether a window naming {@code jobId} runs no job: it names none, or the unknown one. */
    static boolean runsNoJob(String jobId) {
        return jobId == null || jobId.equals(NO_JOB);
    }

    /**
     * An instance as of its latest complete minute.
     *
     * @param gpusPerInstance GPUs its type has: the catalog's or its price's; the GPUs that report where neither knows
     * @param holder          the job on all its GPUs, {@link #NO_JOB}, or {@link #SHARED}
     * @param gpus            its GPUs' periods ending at {@code completeAt}
     */
    record Snapshot(String instanceId, Offer offer, String host, int gpusPerInstance, String holder,
            Instant completeAt, List<Gpu> gpus) {

        /** The jobs that ran on its GPUs over their periods, each once, by name. */
        List<String> jobs() {
            return gpus.stream().flatMap(gpu -> gpu.jobs().stream()).distinct().sorted().toList();
        }

        /** The jobs that run on its GPUs in their latest minute, each once, by name. */
        List<String> jobsNow() {
            return gpus.stream().flatMap(gpu -> gpu.jobsNow().stream()).distinct().sorted().toList();
        }
    }

    private static final class Instance {
        private final Map<String, Gpu> gpus = new HashMap<>();
        private volatile Snapshot complete;
        private volatile Instant heard = Instant.MIN;
    }

    private final Map<String, Instance> instances = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> byJob = new ConcurrentHashMap<>();

    /**
     * Takes a GPU's period ({@code gpusPerInstance} null when the type's count is not known); returns
     * its instance when this made the instance's minute complete.
     */
    Optional<Snapshot> add(IdlePeriod period, Integer gpusPerInstance) {
        var window = period.latest();
        Instance instance = instances.computeIfAbsent(window.instanceId(), id -> new Instance());
        Instant to = period.to();
        synchronized (instance) {
            instance.gpus.put(window.gpuUuid(), Gpu.of(period));
            instance.heard = to.isAfter(instance.heard) ? to : instance.heard;
            instance.gpus.values().removeIf(gpu -> gpu.period().to().isBefore(to.minus(GONE_AFTER)));
            List<Gpu> ofMinute = new ArrayList<>();
            double shares = 0;
            for (Gpu gpu : instance.gpus.values()) {
                if (gpu.period().to().equals(to)) {
                    ofMinute.add(gpu);
                    shares += gpu.fraction();
                }
            }
            boolean complete = gpusPerInstance != null ? shares >= gpusPerInstance - SHARE_SLACK
                    : ofMinute.size() == instance.gpus.size();
            Snapshot before = instance.complete;
            if (!complete || before != null && !to.isAfter(before.completeAt())) {
                return Optional.empty();
            }
            ofMinute.sort((a, b) -> a.uuid().compareTo(b.uuid()));
            Snapshot snapshot = new Snapshot(window.instanceId(), window.offer(), window.host(),
                    gpusPerInstance != null ? gpusPerInstance : (int) Math.ceil(shares - SHARE_SLACK),
                    holder(ofMinute), to, List.copyOf(ofMinute));
            instance.complete = snapshot;
            if (before != null && !before.holder().equals(snapshot.holder())) {
                Set<String> held = byJob.get(before.holder());
                if (held != null) {
                    held.remove(snapshot.instanceId());
                }
            }
            if (!snapshot.holder().equals(SHARED) && !snapshot.holder().equals(NO_JOB)) {
                byJob.computeIfAbsent(snapshot.holder(), job -> ConcurrentHashMap.newKeySet())
                        .add(snapshot.instanceId());
            }
            return Optional.of(snapshot);
        }
    }

    /**
     * Whether every instance {@code jobId} holds whole, as of its latest complete minute no older than
     * {@code at}'s, completed the minute that ends at {@code at}.
     */
    boolean allCompleteAt(String jobId, Instant at) {
        for (String id : byJob.getOrDefault(jobId, Set.of())) {
            Instance instance = instances.get(id);
            Snapshot snapshot = instance == null ? null : instance.complete;
            if (snapshot != null && snapshot.holder().equals(jobId)
                    && !snapshot.completeAt().isBefore(at.minus(GONE_AFTER)) && !snapshot.completeAt().equals(at)) {
                return false;
            }
        }
        return true;
    }

    /** The instances {@code jobId} holds whole, as of their latest complete minutes no older than {@code at}'s. */
    List<Snapshot> heldBy(String jobId, Instant at) {
        List<Snapshot> held = new ArrayList<>();
        for (String id : byJob.getOrDefault(jobId, Set.of())) {
            Instance instance = instances.get(id);
            Snapshot snapshot = instance == null ? null : instance.complete;
            if (snapshot != null && snapshot.holder().equals(jobId)
                    && !snapshot.completeAt().isBefore(at.minus(GONE_AFTER))) {
                held.add(snapshot);
            }
        }
        held.sort((a, b) -> a.instanceId().compareTo(b.instanceId()));
        return held;
    }

    /**
     * The instances whose GPUs ran {@code jobId} (held whole or not) over their latest periods no older than
     * {@code at}'s: an instance some of whose GPUs send nothing, never complete, too.
     */
    Set<String> ranJob(String jobId, Instant at) {
        Set<String> ran = new HashSet<>();
        instances.forEach((id, instance) -> {
            synchronized (instance) {
                if (instance.gpus.values().stream().anyMatch(
                        gpu -> !gpu.period().to().isBefore(at.minus(GONE_AFTER)) && gpu.jobs().contains(jobId))) {
                    ran.add(id);
                }
            }
        });
        return ran;
    }

    /** Forgets the instances not heard of since {@code cutoff}. */
    void sweep(Instant cutoff) {
        List<String> gone = new ArrayList<>();
        instances.forEach((id, instance) -> {
            if (instance.heard.isBefore(cutoff)) {
                gone.add(id);
            }
        });
        for (String id : gone) {
            // An instance is in the set of its latest complete minute's holder only: add moves it on a change.
            Instance instance = instances.remove(id);
            Snapshot last = instance == null ? null : instance.complete;
            Set<String> held = last == null ? null : byJob.get(last.holder());
            if (held != null) {
                held.remove(id);
            }
        }
        byJob.values().removeIf(Set::isEmpty);
    }

    private static String holder(List<Gpu> gpus) {
        String holder = null;
        for (Gpu gpu : gpus) {
            String job = runsNoJob(gpu.jobId()) ? NO_JOB : gpu.jobId();
            if (TelemetrySample.SHARED_JOB.equals(job)) {
                // Several jobs on one GPU: the instance is judged by the GPUs' whole use and released whole.
                return SHARED;
            }
            if (holder == null) {
                holder = job;
            } else if (!holder.equals(job)) {
                return SHARED;
            }
        }
        return holder == null ? NO_JOB : holder;
    }
}
