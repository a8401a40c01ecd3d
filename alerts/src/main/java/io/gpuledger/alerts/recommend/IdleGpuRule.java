package io.gpuledger.alerts.recommend;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * RECLAIM_IDLE: a GPU whose time-weighted SM activity over its closed minutes of the period
 * ({@link GpuMinutes}: 30 minutes by default) stays under the threshold (5% by default), judged
 * once that time holds enough known activity to tell idle from a pause. Once raised it is withdrawn
 * only when the activity over the period reaches the withdrawal threshold (10% by default): a GPU
 * that wakes for a minute in half an hour is still idle, and one at the threshold does not flap.
 * Releasing the GPU saves what it spent per hour over the period, for as long as it stays released:
 * the monthly saving is that rate for all 720 hours, as though nobody wanted it back within the
 * month, and the evidence says so ({@code hoursPerMonth}). A notebook's GPU taken again at its
 * user's next session saves its rate until then: once released, the GPU sends nothing, so the rule
 * cannot see how long that is.
 */
public final class IdleGpuRule {

    /** Half an hour of closed minutes; raised under 5% SM activity, withdrawn at 10%. */
    public static final RecommendationRules.Evidence DEFAULT_EVIDENCE =
            new RecommendationRules.Evidence(Duration.ofMinutes(30), 0.05, 0.10);
    /** A third of each minute, on average, with an activity reading. */
    public static final double DEFAULT_MIN_OBSERVED_SECONDS = 20;

    private final RecommendationRules.Evidence evidence;
    private final double minObservedSecondsPerMinute;
    private final Duration ttl;

    /**
     * @param evidence                    the period, the SM activity it is raised under and the one it is
     *                                    withdrawn at
     * @param minObservedSecondsPerMinute seconds of known activity needed per minute of the period
     */
    public IdleGpuRule(RecommendationRules.Evidence evidence, double minObservedSecondsPerMinute, Duration ttl) {
        this.evidence = evidence;
        this.minObservedSecondsPerMinute = minObservedSecondsPerMinute;
        this.ttl = ttl;
    }

    /**
     * Whether the period says enough to judge the GPU at all: enough wall-clock time whose activity
     * is known (a MIG slice's as a whole GPU's). Time of samples without an activity reading is
     * charged, but says nothing of idleness.
     */
    public boolean judges(IdlePeriod period) {
        return period.secondsWithActivity() >= minObservedSecondsPerMinute * period.minutes();
    }

    /**
     * The recommendation the period calls for; empty when the GPU is not idle enough, or when
     * {@code held} (its recommendation stands) and its activity has reached the withdrawal threshold.
     */
    public Optional<Recommendation> evaluate(IdlePeriod period, boolean held, Instant now) {
        double threshold = held ? evidence.withdrawAt() : evidence.raiseAt();
        if (!judges(period) || !(period.smActive() < threshold)) {
            return Optional.empty();
        }
        GpuUsage usage = period.latest();
        double costPerHour = period.costPerHour();
        Map<String, Object> evidenceFields = new LinkedHashMap<>();
        evidenceFields.put("periodStart", period.from().toString());
        evidenceFields.put("periodEnd", period.to().toString());
        evidenceFields.put("periodMinutes", period.minutes());
        evidenceFields.put("smActive", period.smActive());
        evidenceFields.put("smActiveThreshold", evidence.raiseAt());
        evidenceFields.put("withdrawSmActive", evidence.withdrawAt());
        evidenceFields.put("secondsObserved", period.secondsObserved());
        evidenceFields.put("secondsWithActivity", period.secondsWithActivity());
        evidenceFields.put("idleCostPerHour", costPerHour);
        evidenceFields.put("hoursPerMonth", Recommendation.HOURS_PER_MONTH);
        evidenceFields.put("jobId", usage.jobId());
        // Confidence grows with how much of the period was observed: a full half hour of idleness
        // says more than a few minutes of it.
        double coverage = Math.min(1, period.secondsObserved() / (period.minutes() * 60.0));
        double confidence = 0.5 + 0.4 * coverage;
        String currency = usage.currency() == null ? "" : usage.currency();
        return Optional.of(Recommendation.open(RecommendationKind.RECLAIM_IDLE, target(usage),
                String.format(Locale.ROOT, "GPU %s on %s (%s) has been idle for %d minutes: SM activity %.1f%%"
                                + " below %.0f%%; reclaiming it saves %.2f %s per hour it stays released",
                        usage.gpuIndex(), usage.host(), usage.instanceType(), period.minutes(),
                        period.smActive() * 100, evidence.raiseAt() * 100, costPerHour, currency),
                Map.of("release", "gpu", "gpuUuid", usage.gpuUuid(), "instanceId", usage.instanceId()), null,
                costPerHour * Recommendation.HOURS_PER_MONTH, usage.currency(), confidence, now, now.plus(ttl),
                evidenceFields));
    }

    /** The GPU of {@code usage}, where it is. */
    static Recommendation.Target target(GpuUsage usage) {
        return new Recommendation.Target("gpu", usage.gpuUuid(), usage.host(), usage.instanceId(), usage.provider(),
                usage.region(), usage.instanceType(), usage.lifecycle());
    }
}
