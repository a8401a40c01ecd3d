// Over 400 lines: the one place every input reaches every rule, with the withdrawal and sweep they share.
package io.gpuledger.alerts.recommend;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The recommendation rules and what they know, fed by the alert service's readers: prices into
 * the {@link PriceBoard}, windows, roll-ups, economics and work reports into the {@link JobBook},
 * {@link GpuMinutes}, {@link IdleInstances} and {@link PoolHours}. Every rule but the evacuation
 * judges closed windows only, over a sustained period of its own: an instance's idleness on
 * each of its complete closed minutes, a job on each of its minutes that is final, a pool's
 * reservation on each final hour. A capacity notice is judged at once. What a rule finds goes to
 * the {@link RecommendationDesk}; what it no longer finds is withdrawn there.
 *
 * <p>A kind's evidence is the closed minutes of its last period, added up (costs and units summed,
 * activity and ratios weighted by time). It is raised when its measure reaches one threshold, and once
 * raised (open, acknowledged or dismissed) it is withdrawn only when the measure falls past a second: a
 * measure that wavers around one threshold neither raises nor withdraws it in turn. For
 * {@code RECLAIM_IDLE} the measure is SM activity (raised under the first, withdrawn at or above the
 * second); for the others it is a saving or an overhead (raised at or above, withdrawn under).
 *
 * <p>Two rules hold across kinds. A job is told one place to go: of a switch, a move to spot and a
 * faster interconnect, only the one that stands, or else the best, is raised (a communication fix
 * that would move the job is then stated as advice to the job). And what a month can hold: the
 * claims on one job never add up to more than its monthly bill; a later finding is cut to what the
 * standing ones leave.
 *
 * <p>Time is the records' own: look-backs and the forgetting of jobs and instances follow the
 * newest window seen (the wall clock only where it is earlier), so that a restart working off a
 * backlog judges it as the live run did.
 */
public final class RecommendationRules {

    private static final Duration MINUTE = Duration.ofMinutes(1);
    /** The kinds whose target is a job and whose claims share its bill. */
    private static final List<RecommendationKind> JOB_KINDS = List.of(RecommendationKind.SWITCH_INSTANCE_TYPE,
            RecommendationKind.MOVE_TO_SPOT, RecommendationKind.REDUCE_COMMUNICATION, RecommendationKind.RECLAIM_IDLE);

    private final RecommendationDesk desk;
    private final GpuCatalog catalog;
    private final AlertSettings.Recommendation settings;
    private final Duration staleAfter;
    private final PriceBoard board;
    private final JobBook jobs;
    private final GpuMinutes gpuMinutes;
    private final IdleInstances idleInstances = new IdleInstances();
    private final IdleHours idleHours;
    private final PoolHours poolHours;
    private final EvacuateRule evacuate;
    private final IdleGpuRule reclaimIdle;
    /** The rules judged on a job's final minute, in the order their findings are weighed. */
    private final List<JobKind> jobKinds;
    private final ReserveCapacityRule reserve;
    /** The end of the newest window seen: the records' clock. */
    private volatile Instant recordTime = Instant.MIN;

    /** Rules that compare prices in different currencies at the shipped exchange rates. */
    public RecommendationRules(RecommendationDesk desk, GpuCatalog catalog, AlertSettings settings) {
        this(desk, catalog, settings, CurrencyRates.shipped("USD"));
    }

    /**
     * Each rule reads its own settings; the books keep what the rules' periods and look-backs need, as many pools
     * as {@code metrics.max-series}, and forget what went quiet for {@code metrics.stale-after}.
     *
     * @param rates the exchange rates the cost engine charges with, to compare offers quoted in other currencies
     * @throws IllegalArgumentException when the settings contradict one another ({@link #check})
     */
    public RecommendationRules(RecommendationDesk desk, GpuCatalog catalog, AlertSettings settings,
            CurrencyRates rates) {
        check(settings);
        AlertSettings.Recommendation recommendation = settings.recommendation();
        int maxPools = settings.metrics().maxSeries();
        this.desk = desk;
        this.catalog = catalog;
        this.settings = recommendation;
        this.staleAfter = settings.metrics().staleAfter();
        this.board = new PriceBoard(rates);
        this.jobs = new JobBook(catalog, staleAfter, longestJobPeriod(recommendation), recommendation.jobLookback(),
                maxPools);
        this.gpuMinutes = new GpuMinutes(recommendation.reclaimIdle().period());
        this.idleHours = new IdleHours(recommendation.jobLookback(), maxPools, recommendation.reclaimIdle().period());
        this.poolHours = new PoolHours(recommendation.reserve().lookbackHours(), maxPools);
        this.evacuate = new EvacuateRule(recommendation);
        this.reclaimIdle = new IdleGpuRule(recommendation, settings.idle());
        this.jobKinds = List.of(
                new JobKind(RecommendationKind.SWITCH_INSTANCE_TYPE, recommendation.switchInstanceType().period(),
                        new SwitchInstanceTypeRule(recommendation)),
                new JobKind(RecommendationKind.MOVE_TO_SPOT, recommendation.moveToSpot().period(),
                        new MoveToSpotRule(recommendation)),
                new JobKind(RecommendationKind.REDUCE_COMMUNICATION, recommendation.reduceCommunication().period(),
                        new ReduceCommunicationRule(recommendation)));
        this.reserve = new ReserveCapacityRule(recommendation);
        desk.onAcknowledged(this::onAcknowledged);
    }

    /**
     * Refuses settings the rules cannot work with: a period of evidence that is not whole minutes, a
     * threshold that withdraws a recommendation before it could be raised, a reservation record that a
     * restart would forget before the pool is judged again.
     */
    static void check(AlertSettings settings) {
        AlertSettings.Recommendation recommendation = settings.recommendation();
        Map<String, Duration> periods = new LinkedHashMap<>();
        periods.put("reclaim-idle", recommendation.reclaimIdle().period());
        periods.put("switch-instance-type", recommendation.switchInstanceType().period());
        periods.put("move-to-spot", recommendation.moveToSpot().period());
        periods.put("reduce-communication", recommendation.reduceCommunication().period());
        periods.forEach((kind, period) -> {
            if (period.compareTo(MINUTE) < 0 || period.toMillis() % MINUTE.toMillis() != 0) {
                throw new IllegalArgumentException("a period of evidence is whole minutes, at least one; was "
                        + period + " (" + kind + ")");
            }
        });
        double raisedUnder = settings.idle().smActiveThreshold();
        double withdrawnAt = recommendation.reclaimIdle().withdrawSmActive();
        if (withdrawnAt < raisedUnder) {
            throw new IllegalArgumentException("reclaim-idle: the SM activity it is withdrawn at (" + withdrawnAt
                    + ") must not be under the one it is raised under (" + raisedUnder + ")");
        }
        var switchType = recommendation.switchInstanceType();
        var spot = recommendation.moveToSpot();
        var communication = recommendation.reduceCommunication();
        atMostRaise("switch-instance-type", switchType.withdrawSavingRatio(), switchType.minSavingRatio());
        atMostRaise("move-to-spot", spot.withdrawNetSavingRatio(), spot.minNetSavingRatio());
        atMostRaise("reduce-communication", communication.withdrawRatio(), communication.minRatio());
        if (!(recommendation.servingHeadroom() >= 0)) {
            throw new IllegalArgumentException("serving headroom must not be negative, was "
                    + recommendation.servingHeadroom());
        }
        if (!(switchType.egressPricePerGb() >= 0)) {
            throw new IllegalArgumentException("egressPricePerGb must not be negative, was "
                    + switchType.egressPricePerGb());
        }
        checkReserve(recommendation.reserve());
    }

    private static void atMostRaise(String kind, double withdrawAt, double raiseAt) {
        if (!Double.isFinite(raiseAt) || !Double.isFinite(withdrawAt)) {
            throw new IllegalArgumentException("thresholds must be numbers, were " + raiseAt + " and " + withdrawAt);
        }
        if (withdrawAt > raiseAt) {
            throw new IllegalArgumentException(kind + ": the figure it is withdrawn under (" + withdrawAt
                    + ") must not be above the one it is raised at (" + raiseAt + ")");
        }
    }

    private static void checkReserve(AlertSettings.Reserve reserve) {
        int lookbackHours = reserve.lookbackHours();
        if (lookbackHours < 1) {
            throw new IllegalArgumentException("reserve: the lookback is at least an hour, was " + lookbackHours);
        }
        double percentile = reserve.baselinePercentile();
        if (!(percentile >= 0 && percentile < 1)) {
            throw new IllegalArgumentException("reserve: the baseline percentile is from 0 to under 1, was "
                    + percentile);
        }
        if (reserve.ttl().compareTo(Duration.ofHours(lookbackHours)) <= 0) {
            // After a restart a pool is judged again only once its look-back is seen again: a record that
            // expires sooner is forgotten, and a pool already covered would be asked to buy again.
            throw new IllegalArgumentException("reserve: the ttl (" + reserve.ttl()
                    + ") must be longer than the lookback (" + lookbackHours
                    + " h), so that a reservation outlives a restart");
        }
    }

    /** The longest period a job is judged over: how much of each job's history is kept. */
    private static Duration longestJobPeriod(AlertSettings.Recommendation settings) {
        Duration longest = settings.reclaimIdle().period();
        for (Duration period : List.of(settings.switchInstanceType().period(), settings.moveToSpot().period(),
                settings.reduceCommunication().period())) {
            longest = period.compareTo(longest) > 0 ? period : longest;
        }
        return longest;
    }

    /**
     * A capacity notice: the evacuation, published and sent at once. The jobs on capacity the cloud takes
     * back wait for new capacity until they report work again: their idle GPUs meanwhile are not idle.
     */
    public Optional<Recommendation> onCapacityEvent(EnrichedCapacityEvent event, Instant now) {
        if (EvacuateRule.isLossOfCapacity(event.event().kind())) {
            Instant at = event.event().deadline() != null ? event.event().deadline() : event.event().noticedAt();
            event.jobs().forEach(job -> jobs.interrupted(job.jobId(), at));
        }
        Optional<Recommendation> published = evacuate.evaluate(event, board, catalog, jobs, now).flatMap(desk::raise);
        published.ifPresent(r -> desk.flush());
        return published;
    }

    public void onPrice(PriceQuote quote) {
        board.update(quote);
    }

    /**
     * A GPU's window: where its job runs; once closed, a minute of the GPU's idleness, and once every
     * GPU of its instance has closed that minute, the idleness of what holds the instance judged.
     */
    public void onWindow(GpuUsage window, Instant now) {
        heard(window.windowEnd());
        jobs.onWindow(window, now);
        if (window.closed() && idleHours.following()) {
            // Capacity given back on advice that sends again is back: a new instance, or one never given back.
            if (window.jobId() != null && heldByOneJob(window.jobId())) {
                idleHours.heard(idleKey(Recommendation.Target.JOB, window.jobId()), window.instanceId(),
                        window.windowStart());
            }
            idleHours.heard(idleKey(Recommendation.Target.INSTANCE, window.instanceId()), window.instanceId(),
                    window.windowStart());
            if (IdleInstances.runsNoJob(window.jobId())) {
                // A new instance that runs no job may be spare capacity given back coming again: an autoscaler's
                // minimum replaces a node given back with another, a target never seen.
                idleHours.heard(spareKey(window.offer()), window.instanceId(), window.windowStart());
            }
        }
        gpuMinutes.jobBefore(window).ifPresent(before -> withdrawReleaseBy(before, window));
        gpuMinutes.add(window, now).ifPresent(period -> idleInstances
                .add(period, catalog.gpusPerInstance(window.offer(), board).orElse(null))
                .ifPresent(instance -> judgeIdle(instance, now)));
    }

    /**
     * A GPU that runs another job than in its minute before (or turned shared, or no longer is) is not the job's
     * before to release: what stands for that job (or, where no one job held it, for its instance) with the GPU's
     * instance in it is withdrawn at once. The former holder is judged no more for the instance, and its advice would
     * otherwise stand for its time to live; the GPU is followed afresh for its new holder ({@link GpuMinutes}).
     */
    private void withdrawReleaseBy(String jobBefore, GpuUsage window) {
        boolean ofOneJob = heldByOneJob(jobBefore);
        Recommendation.Target target = ofOneJob ? Recommendation.Target.job(jobBefore)
                : Recommendation.Target.instance(window.placement());
        String id = Recommendation.idFor(RecommendationKind.RECLAIM_IDLE, target);
        boolean releasesIt = desk.get(id).map(Recommendation::action)
                .filter(action -> action instanceof RecommendationAction.ReclaimIdle release && (!ofOneJob
                        || release.instanceIds() != null && release.instanceIds().contains(window.instanceId())))
                .isPresent();
        if (releasesIt) {
            desk.withdraw(id);
        }
    }

    private static boolean heldByOneJob(String holder) {
        return !holder.equals(IdleInstances.NO_JOB) && !holder.equals(IdleInstances.SHARED)
                && !holder.equals(TelemetrySample.SHARED_JOB);
    }

    public void onRollup(UsageRollup rollup, Instant now) {
        heard(rollup.windowEnd());
        jobs.onRollup(rollup, now);
        for (PoolUsage usage : poolHours.onRollup(rollup, board, catalog)) {
            if (usage.hours() < settings.reserve().lookbackHours()) {
                // Too little of it seen (a new pool, a restart): not judged, and what stands is left standing.
                continue;
            }
            Recommendation.Target target = Recommendation.Target.pool(usage.pool());
            Optional<Recommendation> standing = desk.get(Recommendation.idFor(RecommendationKind.RESERVE_CAPACITY,
                    target));
            Optional<Recommendation> finding = reserve.evaluate(usage, board, now, standing);
            if (finding.isEmpty() && standing.filter(r -> r.status() == RecommendationStatus.ACKNOWLEDGED)
                    .isPresent()) {
                // Acknowledged is bought: a commitment runs its term whatever the prices do now, and withdrawing
                // it would let a later record ask for the same instances again.
                continue;
            }
            judge(RecommendationKind.RESERVE_CAPACITY, target, finding);
        }
    }

    public void onProgress(JobProgress progress, Instant now) {
        jobs.onProgress(progress, now);
    }

    /**
     * A version of a job minute's economics: once it makes one of the job's minutes final, the
     * job's rules are judged on its closed minutes over each one's period, once the job has been
     * followed for its look-back (its saving a month depends on how much of the time it runs). A
     * version of a minute still open (the engine re-sends a minute as its samples and reports
     * arrive) judges nothing.
     */
    public void onEconomics(JobEconomics economics, Instant now) {
        heard(economics.windowEnd());
        if (!jobs.onEconomics(economics, now)) {
            return;
        }
        String jobId = economics.jobId();
        Recommendation.Target target = Recommendation.Target.job(jobId);
        Map<RecommendationKind, Judged> judged = new LinkedHashMap<>();
        for (JobKind each : jobKinds) {
            if (jobs.sharedWithin(jobId, each.period())) {
                // Its picture is of GPUs it shared (JobBook#view): what stood for it when they were its alone goes.
                desk.withdraw(Recommendation.idFor(each.kind(), target));
                continue;
            }
            JobRule.Situation situation = new JobRule.Situation(board, catalog, now,
                    () -> jobs.peers(recordTime, each.period()), standing(each.kind(), target), true);
            view(jobId, each.period()).ifPresent(job -> judged.put(each.kind(), Judged.of(each, job, situation)));
        }
        oneMove(judged);
        double bill = judged.values().stream().mapToDouble(j -> j.job().costPerHour() * j.job().hoursPerMonth())
                .max().orElse(0);
        // What stands is judged first: read once, not in every comparison of the sort.
        Set<RecommendationKind> standing = EnumSet.noneOf(RecommendationKind.class);
        judged.keySet().stream().filter(kind -> held(kind, target)).forEach(standing::add);
        List<RecommendationKind> order = new ArrayList<>(judged.keySet());
        order.sort(Comparator.comparing((RecommendationKind kind) -> !standing.contains(kind))
                .thenComparing(kind -> -judged.get(kind).finding().map(Recommendation::estimatedMonthlySaving)
                        .orElse(0.0)));
        for (RecommendationKind kind : order) {
            judge(kind, target, judged.get(kind).finding().flatMap(finding -> withinBill(finding, bill)));
        }
    }

    /** A job rule, the kind it raises and the period of the job's minutes it judges. */
    private record JobKind(RecommendationKind kind, Duration period, JobRule rule) {
    }

    /** A job kind's picture, what it was judged against and what it found. */
    private record Judged(JobKind each, JobView job, JobRule.Situation situation, Optional<Recommendation> finding) {

        static Judged of(JobKind each, JobView job, JobRule.Situation situation) {
            return new Judged(each, job, situation, each.rule().judge(job, situation)
                    .map(r -> withPeriod(r, job, each.period())));
        }

        /** Judged again where the job may not move. */
        Judged withoutMove() {
            return of(each, job, situation.withoutMove());
        }
    }

    /**
     * Keeps one move of the job among what the kinds found: the one that stands, or else the one with
     * the highest confidence × saving. The others are judged again where the job may not move: a switch or a
     * move to spot that loses is not raised; a communication fix that loses is stated as advice to the job instead.
     */
    private void oneMove(Map<RecommendationKind, Judged> judged) {
        Map<RecommendationKind, Recommendation> moves = new LinkedHashMap<>();
        judged.forEach((kind, found) -> found.finding().filter(RecommendationRules::movesTheJob)
                .ifPresent(finding -> moves.put(kind, finding)));
        if (moves.size() < 2) {
            return;
        }
        String jobId = judged.values().iterator().next().job().jobId();
        RecommendationKind kept = moves.keySet().stream()
                .filter(kind -> desk.get(Recommendation.idFor(kind, "job", jobId))
                        .filter(r -> r.status() != RecommendationStatus.WITHDRAWN && movesTheJob(r)).isPresent())
                .findFirst()
                .orElseGet(() -> moves.entrySet().stream().max(Comparator.comparingDouble(
                        (Map.Entry<RecommendationKind, Recommendation> e) -> e.getValue().confidence()
                                * e.getValue().estimatedMonthlySaving())).orElseThrow().getKey());
        for (RecommendationKind kind : moves.keySet()) {
            if (kind == kept) {
                continue;
            }
            judged.put(kind, judged.get(kind).withoutMove());
        }
    }

    /** Whether following the recommendation moves its job to another pool. */
    private static boolean movesTheJob(Recommendation recommendation) {
        return recommendation.action() instanceof RecommendationAction.Move move && move.movesTheJob();
    }

    /**
     * The finding with its claim cut to what its job's month can hold: {@code billPerMonth} less what
     * the job's other standing recommendations claim; empty when they leave nothing for a claim.
     */
    private Optional<Recommendation> withinBill(Recommendation finding, double billPerMonth) {
        if (!finding.target().type().equals(Recommendation.Target.JOB) || !(billPerMonth > 0)) {
            return Optional.of(finding);
        }
        double others = 0;
        for (RecommendationKind kind : JOB_KINDS) {
            if (kind != finding.kind()) {
                others += desk.get(Recommendation.idFor(kind, finding.target()))
                        .filter(r -> r.status().actionable()).map(Recommendation::estimatedMonthlySaving).orElse(0.0);
            }
        }
        double room = billPerMonth - others;
        if (finding.estimatedMonthlySaving() <= room) {
            return Optional.of(finding);
        }
        if (room <= 0) {
            return Optional.empty();
        }
        var cap = new RecommendationEvidence.Cap(finding.estimatedMonthlySaving(), billPerMonth, others);
        return Optional.of(finding.withFigures(room,
                finding.evidence() instanceof RecommendationEvidence.Capped capped ? capped.capped(cap)
                        : finding.evidence()));
    }

    /**
     * Judges what holds the instance whose minute just completed: the job holding it, over every
     * instance it holds whole, or the instance itself when no single job holds it.
     */
    private void judgeIdle(IdleInstances.Snapshot instance, Instant now) {
        IdleInstances.Gpu anyGpu = instance.gpus().get(0);
        Instant from = anyGpu.period().from();
        Instant to = instance.completeAt();
        boolean ofOneJob = heldByOneJob(instance.holder());
        IdleGpuRule.Holding holding;
        Optional<JobView> job = Optional.empty();
        if (ofOneJob) {
            String jobId = instance.holder();
            if (!idleInstances.allCompleteAt(jobId, to)) {
                // Judged once every instance of the job has this minute: minutes of two ends do not mix.
                return;
            }
            job = jobs.view(jobId, MINUTE);
            boolean serving = jobs.traits(jobId).isServing();
            holding = new IdleGpuRule.Holding(Recommendation.Target.job(jobId), jobId,
                    idleInstances.heldBy(jobId, to), jobs.reportedWork(jobId, from, to), serving);
        } else {
            // A shared GPU's jobs are those that took a part of it, not the "shared" its window names.
            boolean worked = instance.jobs().stream().anyMatch(jobId -> jobs.reportedWork(jobId, from, to));
            holding = new IdleGpuRule.Holding(IdleGpuRule.target(instance), null, List.of(instance), worked);
        }
        Recommendation.Target target = holding.target();
        // A job the cloud took capacity from waits for more, its instances idle meanwhile: one of its jobs does on a
        // shared instance too (one still there: a job gone from it does not wait for it).
        boolean waits = ofOneJob ? jobs.waiting(holding.jobId(), to)
                : instance.jobsNow().stream().anyMatch(jobId -> jobs.waiting(jobId, to));
        Duration period = settings.reclaimIdle().period();
        boolean held = held(RecommendationKind.RECLAIM_IDLE, target);
        String own = idleKey(target);
        // An instance that runs no job is spare capacity of its pool too: where the pool's spare capacity came back
        // by itself after a release, a new instance in it is that capacity, and waits as it does.
        String spare = instance.holder().equals(IdleInstances.NO_JOB) ? spareKey(instance.offer()) : null;
        String key = spare != null && idleHours.periods(spare) > idleHours.periods(own) ? spare : own;
        int periods = idleHours.periods(key);
        Optional<IdleGpuRule.Release> release = waits ? Optional.empty()
                : reclaimIdle.release(holding, held, period.multipliedBy(periods));
        idleHours.add(own, to.minus(MINUTE), release.map(IdleGpuRule.Release::count).orElse(0));
        if (spare != null) {
            // Followed while any of its spare instances is judged; what a release of one kept away is counted there.
            idleHours.add(spare, to.minus(MINUTE), 0);
        }
        Optional<Recommendation> finding = release.flatMap(found -> idleHours.share(key, to, found.count())
                .map(idle -> reclaimIdle.recommend(holding, found, idle, now)));
        if (finding.isPresent() && ofOneJob) {
            double bill = job.filter(RecommendationRules::followedForLookback)
                    .map(view -> view.costPerHour() * view.hoursPerMonth()).orElse(0.0);
            finding = finding.flatMap(found -> withinBill(found, bill));
        }
        judge(RecommendationKind.RECLAIM_IDLE, target, finding);
    }

    /** The key of a target in {@link IdleHours}: a job and an instance may have the same name. */
    private static String idleKey(Recommendation.Target target) {
        return idleKey(target.type(), target.id());
    }

    private static String idleKey(String type, String id) {
        return type + "/" + id;
    }

    /** The key in {@link IdleHours} of the spare capacity of a pool: its instances that run no job. */
    private static String spareKey(Offer pool) {
        return idleKey(Recommendation.Target.POOL, pool.key());
    }

    /** A release is being done: the time its capacity then sends nothing counts as idle time of its pattern. */
    private void onAcknowledged(Recommendation acknowledged) {
        if (acknowledged.kind() == RecommendationKind.RECLAIM_IDLE) {
            RecommendationEvidence.ReclaimIdle release = acknowledged.evidence() instanceof
                    RecommendationEvidence.ReclaimIdle evidence ? evidence : null;
            double count = release != null ? release.instancesToRelease() : 1;
            Set<String> given = new HashSet<>();
            Set<String> kept = new HashSet<>();
            Optional<Offer> spareOf = Optional.empty();
            if (acknowledged.action() instanceof RecommendationAction.ReclaimIdle action) {
                given.addAll(action.shrinksAJob() ? action.instanceIds() : List.of(action.instanceId()));
                if (action.shrinksAJob() && release != null) {
                    // The job's other instances, kept or shared with other jobs, are not its capacity coming back.
                    kept.addAll(idleInstances.ranJob(action.jobId(), release.periodEnd()));
                    kept.removeAll(given);
                } else if (action.jobIds() == null && release != null) {
                    // An instance that ran no job: its pool's spare capacity went with it.
                    spareOf = acknowledged.target().offer();
                }
            }
            idleHours.releasedOnAdvice(idleKey(acknowledged.target()), count,
                    release != null && release.instancesNeeded() == 0, given, kept, acknowledged.updatedAt());
            spareOf.ifPresent(pool -> {
                // The pool's other instances are not that capacity coming back; a new one that runs no job is.
                Set<String> others = gpuMinutes.instancesOf(pool);
                others.removeAll(given);
                idleHours.releasedOnAdvice(spareKey(pool), count, true, given, others, acknowledged.updatedAt());
            });
        }
    }

    /**
     * Forgets jobs that ended, and withdraws what was recommended for them; forgets GPUs and
     * instances gone quiet. Jobs end, and look-backs age, by the records' clock as well as the wall
     * clock: a backlog worked off in minutes keeps the hours it is judged on.
     */
    public void sweep(Instant now) {
        for (String jobId : jobs.sweep(now)) {
            for (JobKind each : jobKinds) {
                desk.withdraw(Recommendation.idFor(each.kind(), "job", jobId));
            }
        }
        gpuMinutes.sweep(now.minus(staleAfter));
        Instant records = recordTime;
        if (!records.equals(Instant.MIN)) {
            Instant clock = records.isBefore(now) ? records : now;
            idleInstances.sweep(clock.minus(staleAfter));
            idleHours.sweep(clock);
        }
    }

    private void heard(Instant windowEnd) {
        if (windowEnd.isAfter(recordTime)) {
            recordTime = windowEnd;
        }
    }

    /** The job's picture over {@code period}, once it has been followed for its look-back. */
    private Optional<JobView> view(String jobId, Duration period) {
        return jobs.view(jobId, period).filter(RecommendationRules::followedForLookback);
    }

    private void judge(RecommendationKind kind, Recommendation.Target target, Optional<Recommendation> finding) {
        finding.ifPresentOrElse(desk::raise, () -> desk.withdraw(Recommendation.idFor(kind, target)));
    }

    /** The recommendation of {@code kind} for {@code target}, while it stands (open, acknowledged or dismissed). */
    private Optional<Recommendation> standing(RecommendationKind kind, Recommendation.Target target) {
        return desk.get(Recommendation.idFor(kind, target)).filter(r -> r.status() != RecommendationStatus.WITHDRAWN);
    }

    /**
     * Whether the recommendation of {@code kind} for {@code target} stands: then its rule holds it to the
     * withdrawal threshold rather than the raising one.
     */
    private boolean held(RecommendationKind kind, Recommendation.Target target) {
        return standing(kind, target).isPresent();
    }

    /**
     * Whether the job's running time is known over its whole look-back: a job judged sooner, without
     * it, would claim a month of a saving it may make a few hours a day. Until then it is not judged
     * at all, so what stands for it (read back after a restart) is not withdrawn.
     */
    private static boolean followedForLookback(JobView job) {
        return job.running() != null;
    }

    /**
     * The recommendation with the period its job's figures were added up over, and the look-back its
     * running time was counted over, first in its evidence.
     */
    private static Recommendation withPeriod(Recommendation found, JobView job, Duration period) {
        var over = new RecommendationEvidence.Period(job.windowEnd().minus(period), job.windowEnd(),
                period.toMinutes(), job.running().from(), job.running().to(), job.running().share());
        return found.withFigures(found.estimatedMonthlySaving(),
                found.evidence() instanceof RecommendationEvidence.OverPeriod figures ? figures.over(over)
                        : found.evidence());
    }
}
