package io.gpuledger.alerts.recommend;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;

/**
 * The recommendation rules and what they know, fed by the alert service's readers: prices into
 * the {@link PriceBoard}, windows, roll-ups, economics and work reports into the {@link JobBook}
 * and {@link PoolHours}. A job's rules are judged on each of its economics records, a pool's
 * reservation on each final hour, a capacity notice at once. What a rule finds goes to the
 * {@link RecommendationDesk}; what it no longer finds is withdrawn there.
 */
public final class RecommendationRules {

    /** Thresholds and lifetimes; {@link #defaults(Duration)} gives the documented defaults. */
    public record Settings(Duration ttl, Duration reserveTtl, int reserveLookbackHours, double minMonthlySaving,
            double switchMinSavingRatio, double communicationBoundRatio, double interruptionsPerHour,
            int communicationWindows, Duration staleAfter, int maxPools) {

        public static Settings defaults(Duration ttl) {
            return new Settings(ttl, Duration.ofHours(2), 168, 10, SwitchInstanceTypeRule.DEFAULT_MIN_SAVING_RATIO,
                    SwitchInstanceTypeRule.DEFAULT_COMMUNICATION_BOUND_RATIO,
                    MoveToSpotRule.DEFAULT_INTERRUPTIONS_PER_HOUR, ReduceCommunicationRule.DEFAULT_CONSECUTIVE_WINDOWS,
                    Duration.ofMinutes(5), 10_000);
        }
    }

    private final RecommendationDesk desk;
    private final GpuCatalog catalog;
    private final PriceBoard board;
    private final JobBook jobs;
    private final PoolHours poolHours;
    private final EvacuateRule evacuate;
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
        this.board = new PriceBoard(rates);
        this.jobs = new JobBook(catalog, settings.staleAfter());
        this.poolHours = new PoolHours(settings.reserveLookbackHours(), settings.maxPools());
        this.evacuate = new EvacuateRule(settings.ttl());
        this.switchType = new SwitchInstanceTypeRule(settings.switchMinSavingRatio(), settings.minMonthlySaving(),
                settings.communicationBoundRatio(), SwitchInstanceTypeRule.DEFAULT_MEMORY_BOUND_DRAM_ACTIVE,
                SwitchInstanceTypeRule.DEFAULT_MEMORY_BOUND_SM_ACTIVE, settings.ttl());
        this.moveToSpot = new MoveToSpotRule(settings.interruptionsPerHour(),
                MoveToSpotRule.DEFAULT_RESTART_ALLOWANCE_SECONDS, settings.minMonthlySaving(), settings.ttl());
        this.reduceCommunication = new ReduceCommunicationRule(settings.communicationBoundRatio(),
                settings.communicationWindows(), ReduceCommunicationRule.DEFAULT_RECOVERABLE_SHARE,
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

    public void onWindow(GpuUsage window, Instant now) {
        jobs.onWindow(window, now);
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

    /** A job's economics: its rules are judged on its latest picture. */
    public void onEconomics(JobEconomics economics, Instant now) {
        jobs.onEconomics(economics, now);
        jobs.view(economics.jobId()).ifPresent(job -> {
            Recommendation.Target target = Recommendation.Target.job(job.jobId());
            Collection<JobView> peers = jobs.peers(now);
            judge(RecommendationKind.SWITCH_INSTANCE_TYPE, target,
                    switchType.evaluate(job, peers, board, catalog, now));
            judge(RecommendationKind.MOVE_TO_SPOT, target, moveToSpot.evaluate(job, board, now));
            judge(RecommendationKind.REDUCE_COMMUNICATION, target,
                    reduceCommunication.evaluate(job, board, catalog, now));
        });
    }

    /** Forgets jobs that ended, and withdraws what was recommended for them. */
    public void sweep(Instant now) {
        for (String jobId : jobs.sweep(now)) {
            reduceCommunication.forget(jobId);
            for (RecommendationKind kind : new RecommendationKind[] {RecommendationKind.SWITCH_INSTANCE_TYPE,
                    RecommendationKind.MOVE_TO_SPOT, RecommendationKind.REDUCE_COMMUNICATION}) {
                desk.withdraw(Recommendation.idFor(kind, "job", jobId));
            }
        }
    }

    private void judge(RecommendationKind kind, Recommendation.Target target, Optional<Recommendation> finding) {
        finding.ifPresentOrElse(desk::raise, () -> desk.withdraw(Recommendation.idFor(kind, target)));
    }
}
