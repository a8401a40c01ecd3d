package io.gpuledger.alerts.recommend;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationAction.MoveToSpot;
import io.gpuledger.model.RecommendationAction.PricedOffer;
import io.gpuledger.model.RecommendationEvidence;
import io.gpuledger.model.RecommendationKind;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * MOVE_TO_SPOT: an interruptible, checkpointing job on on-demand capacity that would pay less on
 * spot of the same type for the work it keeps, interruptions included. A job on several instances
 * is taken as synchronous: losing any one stops all of them, and all lose the work since the last
 * checkpoint ({@link SpotRenewal}). It is judged at the pessimistic edge of the interruption band
 * the price feed gives (a stated default where it gives none), and the evidence shows what the
 * band's other edge would save. Where the move does not pay but a shorter checkpoint interval would
 * make it pay, that is what is recommended, not the move. The arithmetic is in
 * docs/recommendations.md.
 */
public final class MoveToSpotRule implements JobRule {

    /** No interval under ten minutes is suggested: writing a large model's checkpoint takes minutes. */
    static final double SHORTEST_SUGGESTED_CHECKPOINT_SECONDS = 600;

    /** Advice that needs a change to the job before anything moves: a person must act first. */
    static final double CONFIDENCE_CHECKPOINT_FIRST = 0.4;

    private final double interruptionsPerHour;
    private final double restartSeconds;
    private final double minMonthlySaving;
    private final double minNetSavingRatio;
    private final double withdrawNetSavingRatio;
    private final Duration ttl;

    /**
     * Reads its net saving ratios from {@code move-to-spot.*}, what spot is assumed to do where the price feed
     * does not say from {@code spot.*}, the least saving a month and how long a record lives from the
     * recommendations' settings.
     */
    public MoveToSpotRule(AlertSettings.Recommendation recommendation) {
        this.interruptionsPerHour = recommendation.spot().interruptionsPerHour();
        this.restartSeconds = recommendation.spot().restart().toSeconds();
        this.minMonthlySaving = recommendation.minMonthlySaving();
        this.minNetSavingRatio = recommendation.moveToSpot().minNetSavingRatio();
        this.withdrawNetSavingRatio = recommendation.moveToSpot().withdrawNetSavingRatio();
        this.ttl = recommendation.ttl();
    }

    /**
     * Nothing where the job may not move: advice to checkpoint more often is given only on the way to a move.
     */
    @Override
    public Optional<Recommendation> judge(JobView job, Situation situation) {
        if (!situation.mayMoveJob()) {
            return Optional.empty();
        }
        String standingStep = situation.standing()
                .map(r -> r.action() instanceof MoveToSpot standing ? standing.step() : null).orElse(null);
        return evaluate(job, situation.board(), situation.now(), standingStep);
    }

    /** The prices and sizes a move is worked out with, in the job's currency. */
    private record Prices(PriceBoard.Price spot, double onDemandPerHour, double spotPerHour, double instances,
            int spotInstances) {

        PriceQuote spotQuote() {
            return spot.quote();
        }

        /** What spot saves an hour with no interruption at all. */
        double grossSaving() {
            return onDemandPerHour - spotPerHour;
        }
    }

    /**
     * What spot makes of an hour of the job's work at one interruption rate: the share of wall time
     * that does work kept, and what an hour of work kept saves against on demand.
     */
    private record Outcome(SpotRenewal renewal, double usefulFraction, double hourlySaving, double netSavingRatio) {

        static Outcome of(SpotRenewal renewal, Prices prices) {
            double fraction = renewal.usefulFraction();
            double saving = prices.onDemandPerHour() - prices.spotPerHour() / fraction;
            return new Outcome(renewal, fraction, saving, saving / prices.grossSaving());
        }
    }

    /** The interruptions per instance-hour judged at (the band's upper edge), its lower edge, and where from. */
    private record Band(double high, double low, String source) {
    }

    /** @param held whether the job's move to spot stands: then it needs only the withdrawal ratio */
    public Optional<Recommendation> evaluate(JobView job, PriceBoard board, Instant now, boolean held) {
        return evaluate(job, board, now, held ? MoveToSpot.STEP_MOVE : null);
    }

    /**
     * @param standingStep the step of the job's recommendation that stands ({@code move} or
     *                     {@code checkpoint-more-often}); null when none does. A standing move needs only the
     *                     withdrawal ratio; advice to checkpoint more often is kept while the interval it names
     *                     still makes spot pay, and never turns into a move that the raise threshold refuses
     */
    public Optional<Recommendation> evaluate(JobView job, PriceBoard board, Instant now, String standingStep) {
        boolean moveHeld = MoveToSpot.STEP_MOVE.equals(standingStep);
        boolean adviceHeld = MoveToSpot.STEP_CHECKPOINT.equals(standingStep);
        JobTraits traits = job.traitsOrNone();
        Offer pool = job.pool();
        if (!traits.isInterruptible() || traits.checkpointIntervalSeconds() == null
                || pool.lifecycle() != Lifecycle.ON_DEMAND) {
            return Optional.empty();
        }
        Optional<Prices> found = prices(job, board, now);
        if (found.isEmpty() || !(found.get().grossSaving() > 0)) {
            return Optional.empty();
        }
        Prices prices = found.get();
        Band band = band(prices.spotQuote());
        double checkpointHours = traits.checkpointIntervalSeconds() / 3600;
        SpotRenewal judged = new SpotRenewal(prices.spotInstances(), perInstanceHour(band, true), checkpointHours,
                restartSeconds / 3600);
        Outcome atJudged = Outcome.of(judged, prices);
        double ratioNeeded = moveHeld ? withdrawNetSavingRatio : minNetSavingRatio;
        double monthly = atJudged.hourlySaving() * job.hoursPerMonth();
        if (atJudged.netSavingRatio() >= ratioNeeded && (moveHeld ? monthly >= 0 : monthly >= minMonthlySaving)) {
            return Optional.of(recommendation(job, prices, band, atJudged, MoveToSpot.STEP_MOVE, now));
        }
        // The interval named is where spot pays the raise threshold, standing or not: the advice does not drift
        // toward the interval at which spot only breaks even.
        return shorterCheckpoint(judged, prices, minNetSavingRatio).map(suggested -> Outcome.of(suggested, prices))
                .filter(outcome -> adviceHeld ? outcome.hourlySaving() > 0
                        : outcome.hourlySaving() * job.hoursPerMonth() >= minMonthlySaving)
                .map(outcome -> recommendation(job, prices, band, outcome, MoveToSpot.STEP_CHECKPOINT, now));
    }

    /**
     * The job checkpointing at the longest interval, in whole minutes and no shorter than
     * {@link #SHORTEST_SUGGESTED_CHECKPOINT_SECONDS}, at which spot saves {@code ratioNeeded} of its
     * gross saving; empty when there is none.
     */
    private static Optional<SpotRenewal> shorterCheckpoint(SpotRenewal judged, Prices prices, double ratioNeeded) {
        // onDemand − spot / f ≥ ratio × gross  ⇔  f ≥ spot / (onDemand − ratio × gross)
        double fractionNeeded = prices.spotPerHour() / (prices.onDemandPerHour() - ratioNeeded * prices.grossSaving());
        OptionalDouble longest = judged.longestCheckpointReaching(fractionNeeded);
        if (longest.isEmpty()) {
            return Optional.empty();
        }
        double minutes = Math.floor(longest.getAsDouble() * 60);
        if (minutes * 60 < SHORTEST_SUGGESTED_CHECKPOINT_SECONDS || minutes / 60 >= judged.checkpointHours()) {
            return Optional.empty();
        }
        return Optional.of(judged.checkpointingEvery(minutes / 60));
    }

    private static Optional<Prices> prices(JobView job, PriceBoard board, Instant now) {
        Offer pool = job.pool();
        Map<Lifecycle, PriceQuote> offers = board.offersOf(pool.provider(), pool.region(), pool.instanceType());
        PriceQuote onDemandQuote = offers.get(Lifecycle.ON_DEMAND);
        PriceQuote spotQuote = offers.get(Lifecycle.SPOT);
        if (onDemandQuote == null || spotQuote == null || !onDemandQuote.currency().equals(spotQuote.currency())) {
            return Optional.empty();
        }
        Optional<PriceBoard.Price> onDemand = board.priceIn(onDemandQuote, job.currency(), now);
        Optional<PriceBoard.Price> spot = board.priceIn(spotQuote, job.currency(), now);
        if (onDemand.isEmpty() || spot.isEmpty()) {
            return Optional.empty();
        }
        double instances = job.gpuEquivalents() / onDemandQuote.gpuCount();
        // Spot is bought in whole instances; slice shares summed in floating point may overshoot one by a hair.
        int spotInstances = (int) Math.max(1, Math.ceil(instances - 1e-9));
        return Optional.of(new Prices(spot.get(), onDemand.get().pricePerHour() * instances,
                spot.get().pricePerHour() * spotInstances, instances, spotInstances));
    }

    /** The band of the share of instances taken back a month, from the spot quote, or the default rate. */
    private Band band(PriceQuote spotQuote) {
        Double high = spotQuote.interruptionFrequency();
        if (high == null) {
            return new Band(interruptionsPerHour, interruptionsPerHour, "default");
        }
        return new Band(high, spotQuote.interruptionFrequencyFloor(), "catalog");
    }

    private double perInstanceHour(Band band, boolean high) {
        double value = high ? band.high() : band.low();
        return band.source().equals("catalog") ? value / Recommendation.HOURS_PER_MONTH : value;
    }

    private Recommendation recommendation(JobView job, Prices prices, Band band, Outcome outcome, String step,
            Instant now) {
        SpotRenewal renewal = outcome.renewal();
        // A band of one figure (or the default rate) has nothing below what was judged.
        Outcome atLow = band.low() == band.high() ? outcome : Outcome.of(new SpotRenewal(renewal.instances(),
                perInstanceHour(band, false), renewal.checkpointHours(), renewal.restartHours()), prices);
        double hours = job.hoursPerMonth();
        double monthlySaving = outcome.hourlySaving() * hours;

        boolean catalogBand = band.source().equals("catalog");
        boolean moves = step.equals(MoveToSpot.STEP_MOVE);
        // A job that should first checkpoint more often is told how often, and the pool it would then move to.
        double seconds = renewal.checkpointHours() * 3600;
        var evidence = new RecommendationEvidence.MoveToSpot(null, prices.onDemandPerHour() / prices.instances(),
                prices.spot().pricePerHour(), prices.spotQuote().currency(), prices.spot().exchangeRate(),
                prices.instances(), prices.spotInstances(), prices.grossSaving(), outcome.hourlySaving(), hours,
                band.source(), catalogBand ? band.high() : null, catalogBand ? band.low() : null,
                renewal.interruptionsPerInstanceHour(), atLow.renewal().interruptionsPerInstanceHour(),
                renewal.jobInterruptionsPerHour(), job.traitsOrNone().checkpointIntervalSeconds(),
                renewal.restartHours() * 3600, outcome.usefulFraction(), atLow.usefulFraction(), monthlySaving,
                atLow.hourlySaving() * hours, hours * (1 / outcome.usefulFraction() - 1), outcome.netSavingRatio(),
                minNetSavingRatio, withdrawNetSavingRatio, job.currency(), moves ? null : seconds,
                moves ? null : PricedOffer.of(prices.spotQuote(), job.gpuModel()), null);

        MoveToSpot action;
        String summary;
        if (moves) {
            action = MoveToSpot.move(job.jobId(), job.gpus(), job.pool().key(),
                    PricedOffer.of(prices.spotQuote(), job.gpuModel()), prices.spotInstances());
            summary = String.format(Locale.ROOT,
                    "Run interruptible job %s on %d %s spot instance(s) instead of on demand: with %.1f%% of its time"
                            + " lost to interruptions it saves %.2f %s an hour of work, %.2f %s a month",
                    job.jobId(), prices.spotInstances(), job.pool().instanceType(),
                    (1 - outcome.usefulFraction()) * 100, outcome.hourlySaving(), job.currency(), monthlySaving,
                    job.currency());
        } else {
            action = MoveToSpot.checkpointEvery(job.jobId(), job.gpus(), job.pool().key(), seconds);
            summary = String.format(Locale.ROOT,
                    "Interruptible job %s would lose money on %s spot checkpointing every %.0f minutes; checkpointing"
                            + " every %.0f minutes, spot would save %.2f %s a month",
                    job.jobId(), job.pool().instanceType(), job.traitsOrNone().checkpointIntervalSeconds() / 60,
                    seconds / 60, monthlySaving, job.currency());
        }
        double confidence = moves ? confidence(outcome.netSavingRatio())
                : CONFIDENCE_CHECKPOINT_FIRST;
        return Recommendation.builder()
                .open(RecommendationKind.MOVE_TO_SPOT, Recommendation.Target.job(job.jobId()), now).summary(summary)
                .action(action).estimatedMonthlySaving(monthlySaving).currency(job.currency()).confidence(confidence)
                .expiresAt(now.plus(ttl)).evidence(evidence).build();
    }

    /**
     * 0.5 to 0.9: 0.5 plus 0.4 times the share of the saving left after the interruptions at the
     * band's pessimistic edge. A move that barely pays there depends on the rate, which is last
     * month's history at best.
     */
    static double confidence(double netSavingRatio) {
        return 0.5 + 0.4 * Math.max(0, Math.min(1, netSavingRatio));
    }
}
