package io.gpuledger.alerts.recommend;

import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * MOVE_TO_SPOT: an interruptible, checkpointing job on on-demand capacity whose spot discount outweighs what
 * the expected interruptions would cost it; the arithmetic is in docs/recommendations.md.
 */
public final class MoveToSpotRule {

    /** One interruption per 20 hours of running one instance, where the price feed gives no frequency. */
    public static final double DEFAULT_INTERRUPTIONS_PER_HOUR = 0.05;

    /** Five minutes to get new capacity, start the job and load its checkpoint. */
    public static final double DEFAULT_RESTART_ALLOWANCE_SECONDS = 300;

    /** An hour of closed minutes; raised at a net saving ratio of 10%, withdrawn under 0. */
    public static final RecommendationRules.Evidence DEFAULT_EVIDENCE =
            new RecommendationRules.Evidence(Duration.ofHours(1), 0.10, 0);

    private final double interruptionsPerHour;
    private final double restartAllowanceSeconds;
    private final double minMonthlySaving;
    private final double minNetSavingRatio;
    private final double withdrawNetSavingRatio;
    private final Duration ttl;

    /**
     * @param minNetSavingRatio      net saving ratio a move needs to be recommended
     * @param withdrawNetSavingRatio net saving ratio under which a standing move is withdrawn
     */
    public MoveToSpotRule(double interruptionsPerHour, double restartAllowanceSeconds, double minMonthlySaving,
            double minNetSavingRatio, double withdrawNetSavingRatio, Duration ttl) {
        this.interruptionsPerHour = interruptionsPerHour;
        this.restartAllowanceSeconds = restartAllowanceSeconds;
        this.minMonthlySaving = minMonthlySaving;
        this.minNetSavingRatio = minNetSavingRatio;
        this.withdrawNetSavingRatio = withdrawNetSavingRatio;
        this.ttl = ttl;
    }

    /** @param held whether the job's move stands: then it needs only the withdrawal ratio */
    public Optional<Recommendation> evaluate(JobView job, PriceBoard board, Instant now, boolean held) {
        JobTraits traits = job.traitsOrNone();
        Offer pool = job.pool();
        if (!traits.isInterruptible() || traits.checkpointIntervalSeconds() == null
                || pool.lifecycle() != Lifecycle.ON_DEMAND) {
            return Optional.empty();
        }
        Map<Lifecycle, PriceQuote> offers = board.offersOf(pool.provider(), pool.region(), pool.instanceType());
        PriceQuote onDemandQuote = offers.get(Lifecycle.ON_DEMAND);
        PriceQuote spotQuote = offers.get(Lifecycle.SPOT);
        if (onDemandQuote == null || spotQuote == null || !onDemandQuote.currency().equals(spotQuote.currency())) {
            return Optional.empty();
        }
        Optional<PriceBoard.Price> onDemandPrice = board.priceIn(onDemandQuote, job.currency(), now);
        Optional<PriceBoard.Price> spotPrice = board.priceIn(spotQuote, job.currency(), now);
        if (onDemandPrice.isEmpty() || spotPrice.isEmpty()) {
            return Optional.empty();
        }
        double onDemand = onDemandPrice.get().pricePerHour();
        double spot = spotPrice.get().pricePerHour();
        double instances = job.gpuEquivalents() / onDemandQuote.gpuCount();
        double hourlySaving = (onDemand - spot) * instances;
        double hoursLost = (traits.checkpointIntervalSeconds() / 2 + restartAllowanceSeconds) / 3600;
        Double frequency = spotQuote.interruptionFrequency();
        double perInstanceHour = frequency != null ? frequency / Recommendation.HOURS_PER_MONTH
                : interruptionsPerHour;
        // Slice shares summed in floating point may overshoot a whole instance by a rounding error.
        double exposed = Math.max(1, Math.ceil(instances - 1e-9));
        double jobInterruptionsPerHour = perInstanceHour * exposed;
        double expectedCost = jobInterruptionsPerHour * hoursLost * spot * instances;
        double monthlySaving = (hourlySaving - expectedCost) * job.hoursPerMonth();
        double netSavingRatio = (hourlySaving - expectedCost) / hourlySaving;
        boolean worthIt = held ? netSavingRatio >= withdrawNetSavingRatio && monthlySaving >= 0
                : netSavingRatio >= minNetSavingRatio && monthlySaving >= minMonthlySaving;
        if (!(hourlySaving > 0) || !worthIt) {
            return Optional.empty();
        }

        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("onDemandPricePerHour", onDemand);
        evidence.put("spotPricePerHour", spot);
        evidence.put("quoteCurrency", spotQuote.currency());
        evidence.put("exchangeRate", spotPrice.get().exchangeRate());
        evidence.put("instances", instances);
        evidence.put("hourlySaving", hourlySaving);
        evidence.put("hoursPerMonth", job.hoursPerMonth());
        evidence.put("interruptionRateSource", frequency != null ? "catalog" : "default");
        if (frequency != null) {
            evidence.put("interruptionFrequency", frequency);
        }
        evidence.put("interruptionsPerInstanceHour", perInstanceHour);
        evidence.put("instancesExposed", (int) exposed);
        evidence.put("jobInterruptionsPerHour", jobInterruptionsPerHour);
        evidence.put("checkpointIntervalSeconds", traits.checkpointIntervalSeconds());
        evidence.put("restartAllowanceSeconds", restartAllowanceSeconds);
        evidence.put("hoursLostPerInterruption", hoursLost);
        evidence.put("expectedInterruptionCostPerHour", expectedCost);
        evidence.put("netSavingRatio", netSavingRatio);
        evidence.put("minNetSavingRatio", minNetSavingRatio);
        evidence.put("withdrawNetSavingRatio", withdrawNetSavingRatio);
        evidence.put("currency", job.currency());

        Map<String, Object> action = new LinkedHashMap<>();
        action.put("jobId", job.jobId());
        action.put("gpus", job.gpus());
        action.put("fromPool", pool.key());
        action.put("toPool", OfferFields.of(spotQuote, job.gpuModel()));

        String summary = String.format(Locale.ROOT,
                "Run interruptible job %s on %s spot instead of on demand: saves %.2f %s/h against %.2f expected"
                        + " to be lost to interruptions; %.2f %s a month",
                job.jobId(), pool.instanceType(), hourlySaving, job.currency(), expectedCost, monthlySaving,
                job.currency());
        return Optional.of(Recommendation.open(RecommendationKind.MOVE_TO_SPOT, Recommendation.Target.job(job.jobId()),
                summary, action, null, monthlySaving, job.currency(), confidence(hourlySaving, expectedCost), now,
                now.plus(ttl), evidence));
    }

    /**
     * 0.5 to 0.9: 0.5 plus 0.4 times the share of the saving left after the expected
     * interruptions, {@code (saving − expected) / saving}. A move that barely pays is a coin toss
     * on the interruption rate, which is itself an assumption.
     */
    static double confidence(double hourlySaving, double expectedCost) {
        return 0.5 + 0.4 * (hourlySaving - expectedCost) / hourlySaving;
    }
}
