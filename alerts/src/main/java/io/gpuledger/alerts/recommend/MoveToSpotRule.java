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
 * MOVE_TO_SPOT: an interruptible job on on-demand capacity whose instance type is also sold as
 * spot in the same region, where the spot discount outweighs what the interruptions would cost.
 *
 * <p>A job is charged per GPU, so it moves its GPUs' share of instances:
 * {@code instances = gpuEquivalents / gpusPerInstance}, where MIG slices count their share of a
 * GPU (seven 1/7 slices of a one-GPU instance are one instance). Per hour it saves
 * {@code (onDemand − spot) × instances}. Each interruption loses, on average, the work since the
 * last checkpoint, half the checkpoint interval, plus the time to get new capacity and restart
 * from the checkpoint (the restart allowance), all paid at spot:
 * {@code expected cost per hour = rate × (checkpointInterval / 2 + restart) × spot × instances}.
 * The move is recommended when what is left of the saving after that expected cost, as a share of
 * the saving (the net saving ratio), is at least the minimum (10% by default) and worth the minimum
 * money a month; the monthly saving is the difference, over 720 hours. Once it stands, it is
 * withdrawn only when the net saving ratio falls under the withdrawal threshold (0 by default: when
 * the move would lose money), so a spot price that wavers does not raise and withdraw it in turn.
 * The job's GPUs are counted over the period it is judged on, as the mean over its closed minutes.
 *
 * <p>The interruption rate is a setting, not a measurement: clouds publish spot interruption
 * frequencies in bands (AWS's Spot Instance Advisor: under 5% to over 20% of instances a month),
 * not as a rate per running hour. The default of 0.05 per hour (one interruption in 20 hours of
 * running) is deliberately pessimistic; set it from the fleet's own count of interruptions.
 *
 * <p>A job that does not say it is interruptible, or does not say how often it checkpoints, is
 * never moved: without the interval the work lost cannot be estimated.
 */
public final class MoveToSpotRule {

    /** One interruption per 20 hours of running. */
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

    /** As {@link #evaluate(JobView, PriceBoard, Instant, boolean)}, for a job with nothing standing. */
    public Optional<Recommendation> evaluate(JobView job, PriceBoard board, Instant now) {
        return evaluate(job, board, now, false);
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
        PriceQuote onDemand = offers.get(Lifecycle.ON_DEMAND);
        PriceQuote spot = offers.get(Lifecycle.SPOT);
        if (onDemand == null || spot == null || !onDemand.currency().equals(job.currency())
                || !spot.currency().equals(job.currency())) {
            return Optional.empty();
        }
        double instances = job.gpuEquivalents() / onDemand.gpuCount();
        double hourlySaving = (onDemand.pricePerHour() - spot.pricePerHour()) * instances;
        double hoursLost = (traits.checkpointIntervalSeconds() / 2 + restartAllowanceSeconds) / 3600;
        double expectedCost = interruptionsPerHour * hoursLost * spot.pricePerHour() * instances;
        double monthlySaving = (hourlySaving - expectedCost) * Recommendation.HOURS_PER_MONTH;
        double netSavingRatio = (hourlySaving - expectedCost) / hourlySaving;
        boolean worthIt = held ? netSavingRatio >= withdrawNetSavingRatio && monthlySaving >= 0
                : netSavingRatio >= minNetSavingRatio && monthlySaving >= minMonthlySaving;
        if (!(hourlySaving > 0) || !worthIt) {
            return Optional.empty();
        }

        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("onDemandPricePerHour", onDemand.pricePerHour());
        evidence.put("spotPricePerHour", spot.pricePerHour());
        evidence.put("instances", instances);
        evidence.put("hourlySaving", hourlySaving);
        evidence.put("interruptionsPerHour", interruptionsPerHour);
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
        action.put("toPool", OfferFields.of(spot, job.gpuModel()));

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
