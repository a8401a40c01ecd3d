package io.gpuledger.alerts.recommend;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * RECLAIM_IDLE: capacity that did almost nothing over its closed minutes of the period (30 minutes
 * by default), judged in the unit the bill has: the instance. A GPU is idle when its time-weighted
 * SM activity over the period stays under the threshold (5% by default; once raised, withdrawn only
 * at 10%, where that is set under the engine's idle threshold of 5%) and no sample of the period was at
 * work (a notebook's cell of half a GPU-second or more in a 10 s sample), judged once its period holds
 * enough known activity to tell idle from a pause; a GPU without that counts as busy.
 * Releasing capacity saves money only where it shrinks the bill:
 * <ul>
 *   <li>an instance no job holds, every GPU of it idle: release the instance;</li>
 *   <li>a job whose instances hold more GPUs than its busy ones need: release the instances it does
 *       not need, all of them when none is busy ("shrink to N instances" otherwise). An idle GPU or
 *       MIG slice inside an instance the job still needs saves nothing and is not recommended;</li>
 *   <li>a job that reported work over the period is not idle, however low its SM activity (a serving
 *       job at night); it keeps at least one instance.</li>
 * </ul>
 * An instance several jobs share is released only when every GPU of it is idle and none of its jobs
 * reported work. A reserved instance is paid for its term whether it runs or not: releasing it is
 * worth saying (its capacity is free for other work) but takes nothing off the bill, and claims nothing.
 *
 * <p>What a release saves a month is the released instances' rate for the hours a month they sit idle,
 * as the target's look-back shows ({@link IdleHours}): a notebook idle every night claims its nights'
 * hours, once.
 */
public final class IdleGpuRule {

    /*
     * Confidence grows with how much of the period was observed. Releasing what a job holds whole
     * (0.5 to 0.9) is the capacity's own state; shrinking a running job (0.4 to 0.7) also needs the
     * job to run on fewer instances, which its owner has to make so.
     */
    private static final double SHRINK_BASE = 0.4;
    private static final double SHRINK_COVERAGE = 0.3;
    private static final double RELEASE_BASE = 0.5;
    private static final double RELEASE_COVERAGE = 0.4;

    private final AlertSettings.Idle activity;
    private final AlertSettings.ReclaimIdle settings;
    private final Duration ttl;

    /**
     * What a job holds whole, or one instance no job holds (or several jobs share), at one minute.
     *
     * @param jobId        the holding job; null for an instance of no job or of several
     * @param reportedWork whether the holding's job (any of them, for a shared instance) reported work
     *                     over the period
     * @param serving      whether the holding's job says it serves: having served requests over the period, it
     *                     needs every GPU it holds (its requests are spread over all of them, and one serving
     *                     few at a quiet hour is not idle)
     */
    public record Holding(Recommendation.Target target, String jobId, List<IdleInstances.Snapshot> instances,
            boolean reportedWork, boolean serving) {

        /** A holding whose job does not say it serves. */
        public Holding(Recommendation.Target target, String jobId, List<IdleInstances.Snapshot> instances,
                boolean reportedWork) {
            this(target, jobId, instances, reportedWork, false);
        }
    }

    /**
     * What could be released of a holding.
     *
     * @param instancesNeeded instances its busy and waiting GPUs need (0: none is either and it reported no work)
     * @param busyGpus        GPU equivalents busy over the period
     * @param waitingGpus     GPU equivalents quiet over the period but not yet for {@code quiet}, as long as a release
     *                        of the holding waits for: kept, as busy ones are
     * @param quiet           how long every released GPU has been quiet: the period, or more where the holding's
     *                        capacity came back by itself after its last release (a standing record's, when it was
     *                        raised)
     * @param released        the instances to release, the idlest first
     * @param idle            the released instances' GPUs over the period, added up (GPU-seconds)
     * @param costPerHour     what releasing the instances takes off the bill an hour: their GPUs' rates as
     *                        observed, summed, but for reserved instances, paid for their term whether they run
     */
    public record Release(int instancesHeld, int instancesNeeded, double busyGpus, double waitingGpus,
            Duration quiet, List<IdleInstances.Snapshot> released, IdlePeriod idle, double costPerHour) {

        public int count() {
            return released.size();
        }
    }

    /**
     * @param recommendation its period and the SM activity it is withdrawn at ({@code reclaim-idle.*}), and how long
     *                       a record lives
     * @param idle           the SM activity it is raised under, and the seconds of known activity needed per minute
     *                       of the period
     */
    public IdleGpuRule(AlertSettings.Recommendation recommendation, AlertSettings.Idle idle) {
        this.activity = idle;
        this.settings = recommendation.reclaimIdle();
        this.ttl = recommendation.ttl();
    }

    /**
     * Whether the period says enough to judge the GPU at all: enough wall-clock time whose activity
     * is known (a MIG slice's as a whole GPU's). Time of samples without an activity reading is
     * charged, but says nothing of idleness.
     */
    public boolean judges(IdlePeriod period) {
        return period.secondsWithActivity() >= activity.minObservedSeconds() * period.minutes();
    }

    /**
     * What of the holding could be released now; empty when nothing: it is busy, it serves, or what
     * is idle lies in instances it needs. {@code held}: its recommendation stands, so a GPU is idle
     * under the withdrawal threshold rather than the raising one.
     */
    public Optional<Release> release(Holding holding, boolean held) {
        return release(holding, held, settings.period());
    }

    /**
     * As {@link #release(Holding, boolean)}, raised only where every GPU it releases has been quiet for {@code quiet}
     * (a period or more: more for capacity that came back by itself after its last release, {@link IdleHours}).
     */
    public Optional<Release> release(Holding holding, boolean held, Duration quiet) {
        List<IdleInstances.Snapshot> instances = holding.instances();
        if (instances.isEmpty()) {
            return Optional.empty();
        }
        double threshold = held ? settings.withdrawSmActive() : activity.smActiveThreshold();
        // A standing record waits as a new one would (a period at least): what it releases stays what it was raised
        // for, or, where its target's wait grew meanwhile (its capacity came back by itself), it is withdrawn.
        Duration wait = held && quiet.compareTo(settings.period()) < 0 ? settings.period() : quiet;
        double busy = 0;
        double waiting = 0;
        int perInstance = 1;
        Map<IdleInstances.Snapshot, Double> keptOf = new IdentityHashMap<>();
        for (IdleInstances.Snapshot instance : instances) {
            double busyHere = busyGpus(instance, threshold, settings.period());
            double keptHere = wait.equals(settings.period()) ? busyHere : busyGpus(instance, threshold, wait);
            keptOf.put(instance, keptHere);
            busy += busyHere;
            waiting += keptHere - busyHere;
            perInstance = Math.max(perInstance, instance.gpusPerInstance());
        }
        double kept = busy + waiting;
        if (holding.reportedWork() && (kept == 0 || holding.serving())) {
            // Work reported on GPUs that look idle, or requests served by some of them: not idle.
            return Optional.empty();
        }
        int needed = kept > 0 || holding.reportedWork()
                ? Math.max(1, (int) Math.ceil(kept / perInstance - 1e-9)) : 0;
        if (needed >= instances.size()) {
            return Optional.empty();
        }
        List<IdleInstances.Snapshot> idlestFirst = new ArrayList<>(instances);
        idlestFirst.sort(Comparator.comparingDouble((IdleInstances.Snapshot i) -> keptOf.get(i))
                .thenComparing(IdleInstances.Snapshot::instanceId));
        List<IdleInstances.Snapshot> released = List.copyOf(idlestFirst.subList(0, instances.size() - needed));
        double costPerHour = 0;
        for (IdleInstances.Snapshot instance : released) {
            // A reservation is paid for its term whether its instance runs or not: releasing one saves nothing.
            if (instance.offer().lifecycle() != Lifecycle.RESERVED) {
                for (IdleInstances.Gpu gpu : instance.gpus()) {
                    costPerHour += gpu.period().costPerHour();
                }
            }
        }
        return Optional.of(new Release(instances.size(), needed, busy, waiting, quiet, released, addUp(released),
                costPerHour));
    }

    /**
     * GPU equivalents of the instance that are busy: not judged idle under {@code threshold}. A GPU is idle only
     * when it was quiet throughout the period: a notebook's user who runs a cell every few minutes keeps its mean
     * under the threshold but needs it, and giving it back costs a boot and the kernel's state at the next cell. So
     * a raised one is withdrawn at its first sample at work, its user back: a hook that acts later must not give
     * back what is in use again. Its period was quiet when it was raised, so the sample came since. {@code quiet}:
     * how long it must have been quiet, the period or more.
     */
    private double busyGpus(IdleInstances.Snapshot instance, double threshold, Duration quiet) {
        double busy = 0;
        for (IdleInstances.Gpu gpu : instance.gpus()) {
            IdlePeriod period = gpu.period();
            if (!(judges(period) && period.smActive() < threshold && period.quietFor(quiet))) {
                busy += gpu.fraction();
            }
        }
        return busy;
    }

    /** The released instances' GPUs over the period as one: GPU-seconds and costs summed, activity weighted. */
    private static IdlePeriod addUp(List<IdleInstances.Snapshot> instances) {
        IdlePeriod first = instances.get(0).gpus().get(0).period();
        double withActivity = 0;
        double active = 0;
        double observed = 0;
        double cost = 0;
        Instant quietSince = Instant.MIN;
        Set<String> jobs = new TreeSet<>();
        for (IdleInstances.Snapshot instance : instances) {
            for (IdleInstances.Gpu gpu : instance.gpus()) {
                IdlePeriod period = gpu.period();
                quietSince = period.quietSince().isAfter(quietSince) ? period.quietSince() : quietSince;
                withActivity += period.secondsWithActivity();
                active += period.smActive() * period.secondsWithActivity();
                observed += period.secondsObserved();
                cost += period.cost();
                jobs.addAll(period.jobs());
            }
        }
        return new IdlePeriod(first.latest(), first.from(), first.to(), withActivity,
                withActivity > 0 ? active / withActivity : 0, observed, cost, List.copyOf(jobs), quietSince);
    }

    /**
     * The recommendation to release what {@code release} names, saving its rate for the hours of a
     * month {@code idle} shows it idle. A release that waited longer than the period says why in its summary, and that
     * {@code idle} is then the time its releases kept the capacity away.
     */
    public Recommendation recommend(Holding holding, Release release, JobHours.Share idle, Instant now) {
        Duration quiet = release.quiet();
        IdlePeriod period = release.idle();
        double costPerHour = release.costPerHour();
        double hoursPerMonth = idle.hoursPerMonth();
        double saving = costPerHour * hoursPerMonth;
        int gpus = release.released().stream().mapToInt(instance -> instance.gpus().size()).sum();
        double coverage = Math.min(1, period.secondsObserved() / (period.minutes() * 60.0 * Math.max(1, gpus)));
        boolean shrink = release.instancesNeeded() > 0;
        double confidence = shrink ? SHRINK_BASE + SHRINK_COVERAGE * coverage
                : RELEASE_BASE + RELEASE_COVERAGE * coverage;
        IdleInstances.Snapshot first = release.released().get(0);
        GpuUsage latest = period.latest();
        String currency = latest.currency();

        List<String> instanceIds = release.released().stream().map(IdleInstances.Snapshot::instanceId).toList();
        List<String> gpuUuids = release.released().stream()
                .flatMap(instance -> instance.gpus().stream().map(IdleInstances.Gpu::uuid)).toList();
        boolean ofJob = holding.jobId() != null;
        var action = ofJob
                ? RecommendationAction.ReclaimIdle.ofJob(holding.jobId(), instanceIds, release.instancesNeeded(),
                        gpuUuids)
                : RecommendationAction.ReclaimIdle.instance(first.instanceId(), gpuUuids, first.jobs());

        var evidence = new RecommendationEvidence.ReclaimIdle(period.from(), period.to(), period.minutes(),
                (Long) quiet.toMinutes(), period.smActive(), activity.smActiveThreshold(), settings.withdrawSmActive(),
                period.secondsObserved(), period.secondsWithActivity(), release.instancesHeld(),
                release.instancesNeeded(), release.count(), release.busyGpus(), (Double) release.waitingGpus(),
                first.gpusPerInstance(), holding.reportedWork(), costPerHour,
                release.released().stream().anyMatch(instance -> instance.offer().lifecycle() == Lifecycle.RESERVED),
                idle.from(), idle.to(), idle.share(), hoursPerMonth, ofJob ? holding.jobId() : IdleInstances.NO_JOB,
                currency, null);

        String type = first.offer().instanceType();
        String summary;
        if (shrink) {
            // GPUs quiet for the period but not as long as the release waited are kept too, and not busy.
            String waiting = release.waitingGpus() > 0 ? String.format(Locale.ROOT, " and %.1f quiet for under %d"
                    + " minutes", release.waitingGpus(), quiet.toMinutes()) : "";
            summary = String.format(Locale.ROOT, "Job %s keeps %.1f GPU(s) busy%s on its %d %s instance(s): shrink it"
                            + " to %d and release %d, saving %.2f %s an hour, %.2f %s a month",
                    holding.jobId(), release.busyGpus(), waiting, release.instancesHeld(), type,
                    release.instancesNeeded(), release.count(), costPerHour, currency, saving, currency);
        } else {
            String who = ofJob
                    ? String.format(Locale.ROOT, "Job %s holds %d idle %s instance(s) on %s", holding.jobId(),
                            release.count(), type, first.host())
                    : String.format(Locale.ROOT, "Instance %s (%s on %s) %s and is idle", first.instanceId(), type,
                            first.host(), jobsOf(first));
            String worth = costPerHour > 0 ? String.format(Locale.ROOT, "releasing saves %.2f %s an hour, %.2f %s a"
                    + " month", costPerHour, currency, saving, currency)
                    : "releasing frees reserved capacity, paid for its term either way";
            summary = String.format(Locale.ROOT, "%s: SM activity %.1f%% under %.0f%% for %d minutes, idle %.0f%% of"
                            + " the time since %s; %s",
                    who, period.smActive() * 100, activity.smActiveThreshold() * 100, period.minutes(),
                    idle.share() * 100,
                    idle.from(), worth);
        }
        if (quiet.compareTo(settings.period()) > 0) {
            summary += String.format(Locale.ROOT, ". Its capacity came back within %d minutes of its last release"
                    + " followed: this one waited %d minutes quiet, and claims only the time its releases kept it"
                    + " away; scale down what brings it back", settings.period().toMinutes(), quiet.toMinutes());
        }
        return Recommendation.builder().open(RecommendationKind.RECLAIM_IDLE, holding.target(), now).summary(summary)
                .action(action).estimatedMonthlySaving(saving).currency(currency).confidence(confidence)
                .expiresAt(now.plus(ttl)).evidence(evidence).build();
    }

    /**
     * What an instance no one job holds ran over the period: no job, or jobs none of which reported work (one gone
     * since too).
     */
    private static String jobsOf(IdleInstances.Snapshot instance) {
        List<String> jobs = instance.jobs();
        return jobs.isEmpty() ? "runs no job"
                : String.format(Locale.ROOT, "ran %d job(s) over the period that reported no work (%s)", jobs.size(),
                        String.join(", ", jobs));
    }

    /** The instance of {@code snapshot}, as the target of a release no single job holds. */
    static Recommendation.Target target(IdleInstances.Snapshot snapshot) {
        return Recommendation.Target.instance(Placement.of(snapshot.host(), snapshot.instanceId(), snapshot.offer()));
    }
}
