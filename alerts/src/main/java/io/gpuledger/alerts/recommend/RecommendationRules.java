package io.gpuledger.alerts.recommend;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.RecommendationStatus;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The recommendation rules and what they know, fed by the alert service's readers: prices into
 * the {@link PriceBoard}, windows, roll-ups, economics and work reports into the {@link JobBook},
 * {@link GpuMinutes} and {@link PoolHours}. Every rule but the evacuation judges closed windows
 * only, over a sustained period ({@link Evidence}): a GPU on each of its closed minutes, a job on
 * each of its minutes that is final, a pool's reservation on each final hour. A capacity notice is
 * judged at once. What a rule finds goes to the {@link RecommendationDesk}; what it no longer finds
 * is withdrawn there.
 */
public final class RecommendationRules {

    /**
     * The evidence a kind is judged on: the closed minutes of the last {@code period}, added up
     * (costs and units summed, activity and ratios weighted by time). It is raised when its measure
     * reaches {@code raiseAt}, and once raised (open, acknowledged or dismissed) it is withdrawn only
     * when the measure falls past {@code withdrawAt}: a measure that wavers around one threshold
     * neither raises nor withdraws it in turn. For {@code RECLAIM_IDLE} the measure is SM activity
     * (raised under {@code raiseAt}, withdrawn at or above {@code withdrawAt}); for the others it is
     * a saving or an overhead (raised at or above {@code raiseAt}, withdrawn under {@code withdrawAt}).
     */
    public record Evidence(Duration period, double raiseAt, double withdrawAt) {

        public Evidence {
            Objects.requireNonNull(period, "period");
            if (period.compareTo(MINUTE) < 0 || period.toMillis() % MINUTE.toMillis() != 0) {
                throw new IllegalArgumentException("a period of evidence is whole minutes, at least one; was "
                        + period);
            }
            if (!Double.isFinite(raiseAt) || !Double.isFinite(withdrawAt)) {
                throw new IllegalArgumentException("thresholds must be numbers, were " + raiseAt + " and "
                        + withdrawAt);
            }
        }

        /** Minutes in the period. */
        public long minutes() {
            return period.toMinutes();
        }
    }

    /**
     * Thresholds, lifetimes and the evidence of each kind; {@link #defaults(Duration)} gives the
     * documented defaults.
     *
     * @param idleMinObservedSeconds seconds of known SM activity a GPU needs per minute of its
     *                               period, on average, to be judged idle or not
     * @param jobLookback            the clock time a job's running time is counted over, to turn its
     *                               saving per hour into one per month ({@link JobHours}); a job is
     *                               judged by the switch, spot and communication rules once followed that long
     */
    public record Settings(Duration ttl, Duration reserveTtl, int reserveLookbackHours, double minMonthlySaving,
            double communicationBoundRatio, double interruptionsPerHour, Duration staleAfter, int maxPools,
            Evidence reclaimIdle, double idleMinObservedSeconds, Evidence switchInstanceType, Evidence moveToSpot,
            Evidence reduceCommunication, Duration jobLookback) {

        /** A day: a job that runs part of each day is seen for a whole cycle of it. */
        public static final Duration DEFAULT_JOB_LOOKBACK = Duration.ofHours(24);

        public Settings {
            Objects.requireNonNull(jobLookback, "jobLookback");
            if (reclaimIdle.withdrawAt() < reclaimIdle.raiseAt()) {
                throw new IllegalArgumentException("reclaim-idle: the SM activity it is withdrawn at ("
                        + reclaimIdle.withdrawAt() + ") must not be under the one it is raised under ("
                        + reclaimIdle.raiseAt() + ")");
            }
            Map<String, Evidence> atLeast = Map.of("switch-instance-type", switchInstanceType,
                    "move-to-spot", moveToSpot, "reduce-communication", reduceCommunication);
            atLeast.forEach((kind, evidence) -> {
                if (evidence.withdrawAt() > evidence.raiseAt()) {
                    throw new IllegalArgumentException(kind + ": the figure it is withdrawn under ("
                            + evidence.withdrawAt() + ") must not be above the one it is raised at ("
                            + evidence.raiseAt() + ")");
                }
            });
        }

        public static Settings defaults(Duration ttl) {
            return new Settings(ttl, Duration.ofHours(2), 168, 10,
                    SwitchInstanceTypeRule.DEFAULT_COMMUNICATION_BOUND_RATIO,
                    MoveToSpotRule.DEFAULT_INTERRUPTIONS_PER_HOUR, Duration.ofMinutes(5), 10_000,
                    IdleGpuRule.DEFAULT_EVIDENCE, IdleGpuRule.DEFAULT_MIN_OBSERVED_SECONDS,
                    SwitchInstanceTypeRule.DEFAULT_EVIDENCE, MoveToSpotRule.DEFAULT_EVIDENCE,
                    ReduceCommunicationRule.DEFAULT_EVIDENCE, DEFAULT_JOB_LOOKBACK);
        }

        /** The same settings, with jobs' running time counted over {@code lookback}. */
        public Settings withJobLookback(Duration lookback) {
            return new Settings(ttl, reserveTtl, reserveLookbackHours, minMonthlySaving, communicationBoundRatio,
                    interruptionsPerHour, staleAfter, maxPools, reclaimIdle, idleMinObservedSeconds, switchInstanceType,
                    moveToSpot, reduceCommunication, lookback);
        }

        /** The longest period a job is judged over: how much of each job's history is kept. */
        Duration longestJobPeriod() {
            Duration longest = switchInstanceType.period();
            for (Evidence evidence : new Evidence[] {moveToSpot, reduceCommunication}) {
                longest = evidence.period().compareTo(longest) > 0 ? evidence.period() : longest;
            }
            return longest;
        }
    }

    private static final Duration MINUTE = Duration.ofMinutes(1);

    private final RecommendationDesk desk;
    private final GpuCatalog catalog;
    private final Settings settings;
    private final PriceBoard board;
    private final JobBook jobs;
    private final GpuMinutes gpuMinutes;
    private final PoolHours poolHours;
    private final EvacuateRule evacuate;
    private final IdleGpuRule reclaimIdle;
    private final SwitchInstanceTypeRule switchType;
    private final MoveToSpotRule moveToSpot;
    private final ReduceCommunicationRule reduceCommunication;
    private final ReserveCapacityRule reserve;

    /** Rules that compare prices in different currencies at the shipped exchange rates. */
    public RecommendationRules(RecommendationDesk desk, GpuCatalog catalog, Settings settings) {
        this(desk, catalog, settings, CurrencyRates.shipped("USD"));
    }

    /** @param rates the exchange rates the cost engine charges with, to compare offers quoted in other currencies */
    public RecommendationRules(RecommendationDesk desk, GpuCatalog catalog, Settings settings, CurrencyRates rates) {
        this.desk = desk;
        this.catalog = catalog;
        this.settings = settings;
        this.board = new PriceBoard(rates);
        this.jobs = new JobBook(catalog, settings.staleAfter(), settings.longestJobPeriod(), settings.jobLookback(),
                settings.maxPools());
        this.gpuMinutes = new GpuMinutes(settings.reclaimIdle().period());
        this.poolHours = new PoolHours(settings.reserveLookbackHours(), settings.maxPools());
        this.evacuate = new EvacuateRule(settings.ttl());
        this.reclaimIdle = new IdleGpuRule(settings.reclaimIdle(), settings.idleMinObservedSeconds(), settings.ttl());
        Evidence switchEvidence = settings.switchInstanceType();
        this.switchType = new SwitchInstanceTypeRule(switchEvidence.raiseAt(), switchEvidence.withdrawAt(),
                settings.minMonthlySaving(), settings.communicationBoundRatio(),
                SwitchInstanceTypeRule.DEFAULT_MEMORY_BOUND_DRAM_ACTIVE,
                SwitchInstanceTypeRule.DEFAULT_MEMORY_BOUND_SM_ACTIVE, settings.ttl());
        this.moveToSpot = new MoveToSpotRule(settings.interruptionsPerHour(),
                MoveToSpotRule.DEFAULT_RESTART_ALLOWANCE_SECONDS, settings.minMonthlySaving(),
                settings.moveToSpot().raiseAt(), settings.moveToSpot().withdrawAt(), settings.ttl());
        this.reduceCommunication = new ReduceCommunicationRule(settings.reduceCommunication().raiseAt(),
                settings.reduceCommunication().withdrawAt(), ReduceCommunicationRule.DEFAULT_RECOVERABLE_SHARE,
                settings.minMonthlySaving(), settings.ttl());
        this.reserve = new ReserveCapacityRule(settings.reserveLookbackHours(), settings.minMonthlySaving(),
                settings.reserveTtl());
    }

    /** A capacity notice: the evacuation, published and sent at once. */
    public Optional<Recommendation> onCapacityEvent(EnrichedCapacityEvent event, Instant now) {
        Optional<Recommendation> published = evacuate.evaluate(event, board, catalog, now).flatMap(desk::raise);
        published.ifPresent(r -> desk.flush());
        return published;
    }

    public void onPrice(PriceQuote quote) {
        board.update(quote);
    }

    /** A GPU's window: where its job runs; once closed, a minute of the GPU's idleness judged over the period. */
    public void onWindow(GpuUsage window, Instant now) {
        jobs.onWindow(window, now);
        gpuMinutes.add(window, now).filter(reclaimIdle::judges).ifPresent(period -> {
            Recommendation.Target target = IdleGpuRule.target(period.latest());
            judge(RecommendationKind.RECLAIM_IDLE, target,
                    reclaimIdle.evaluate(period, held(RecommendationKind.RECLAIM_IDLE, target), now));
        });
    }

    public void onRollup(UsageRollup rollup, Instant now) {
        jobs.onRollup(rollup, now);
        for (PoolUsage usage : poolHours.onRollup(rollup, board, catalog)) {
            judge(RecommendationKind.RESERVE_CAPACITY, Recommendation.Target.pool(usage.pool()),
                    reserve.evaluate(usage, board, now));
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
        if (!jobs.onEconomics(economics, now)) {
            return;
        }
        String jobId = economics.jobId();
        Recommendation.Target target = Recommendation.Target.job(jobId);
        Duration switchPeriod = settings.switchInstanceType().period();
        jobs.view(jobId, switchPeriod).filter(RecommendationRules::followedForLookback).ifPresent(job -> judge(
                RecommendationKind.SWITCH_INSTANCE_TYPE, target,
                switchType.evaluate(job, jobs.peers(now, switchPeriod), board, catalog, now,
                        held(RecommendationKind.SWITCH_INSTANCE_TYPE, target)).map(r -> withPeriod(r, job,
                                switchPeriod))));
        Duration spotPeriod = settings.moveToSpot().period();
        jobs.view(jobId, spotPeriod).filter(RecommendationRules::followedForLookback).ifPresent(job -> judge(
                RecommendationKind.MOVE_TO_SPOT, target,
                moveToSpot.evaluate(job, board, now, held(RecommendationKind.MOVE_TO_SPOT, target))
                        .map(r -> withPeriod(r, job, spotPeriod))));
        Duration communicationPeriod = settings.reduceCommunication().period();
        jobs.view(jobId, communicationPeriod).filter(RecommendationRules::followedForLookback).ifPresent(job -> judge(
                RecommendationKind.REDUCE_COMMUNICATION, target,
                reduceCommunication.evaluate(job, board, catalog, now,
                        held(RecommendationKind.REDUCE_COMMUNICATION, target))
                        .map(r -> withPeriod(r, job, communicationPeriod))));
    }

    /** Forgets jobs that ended, and withdraws what was recommended for them; forgets GPUs gone quiet. */
    public void sweep(Instant now) {
        for (String jobId : jobs.sweep(now)) {
            for (RecommendationKind kind : new RecommendationKind[] {RecommendationKind.SWITCH_INSTANCE_TYPE,
                    RecommendationKind.MOVE_TO_SPOT, RecommendationKind.REDUCE_COMMUNICATION}) {
                desk.withdraw(Recommendation.idFor(kind, "job", jobId));
            }
        }
        gpuMinutes.sweep(now.minus(settings.staleAfter()));
    }

    private void judge(RecommendationKind kind, Recommendation.Target target, Optional<Recommendation> finding) {
        finding.ifPresentOrElse(desk::raise, () -> desk.withdraw(Recommendation.idFor(kind, target)));
    }

    /**
     * Whether the recommendation of {@code kind} for {@code target} stands (open, acknowledged or
     * dismissed): then its rule holds it to the withdrawal threshold rather than the raising one.
     */
    private boolean held(RecommendationKind kind, Recommendation.Target target) {
        return desk.get(Recommendation.idFor(kind, target))
                .map(r -> r.status() != RecommendationStatus.WITHDRAWN).orElse(false);
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
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("periodStart", job.windowEnd().minus(period).toString());
        evidence.put("periodEnd", job.windowEnd().toString());
        evidence.put("periodMinutes", period.toMinutes());
        evidence.put("lookbackStart", job.running().from().toString());
        evidence.put("lookbackEnd", job.running().to().toString());
        evidence.put("runningShare", job.running().share());
        evidence.putAll(found.evidence());
        return new Recommendation(found.schemaVersion(), found.id(), found.kind(), found.status(), found.target(),
                found.summary(), found.action(), found.deadline(), found.estimatedMonthlySaving(), found.currency(),
                found.confidence(), found.createdAt(), found.updatedAt(), found.expiresAt(), evidence);
    }
}
