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
 * RECLAIM_IDLE: a GPU whose time-weighted SM activity over a window stays under the threshold
 * (5% by default), judged once the window holds enough time of known activity to tell idle from
 * a pause.
 */
public final class IdleGpuRule {

    private final double smActiveThreshold;
    private final double minObservedSeconds;
    private final Duration ttl;

    public IdleGpuRule(double smActiveThreshold, double minObservedSeconds, Duration ttl) {
        this.smActiveThreshold = smActiveThreshold;
        this.minObservedSeconds = minObservedSeconds;
        this.ttl = ttl;
    }

    /**
     * Whether the window says enough to judge the GPU at all: enough wall-clock time whose activity
     * is known (a MIG slice's as a whole GPU's). Time of samples without an activity reading is
     * charged, but says nothing of idleness.
     */
    public boolean judges(GpuUsage usage) {
        return usage.secondsWithActivity() >= minObservedSeconds;
    }

    public boolean isIdle(GpuUsage usage) {
        return judges(usage) && usage.smActive() < smActiveThreshold;
    }

    public Optional<Recommendation> evaluate(GpuUsage usage, Instant now) {
        if (!isIdle(usage)) {
            return Optional.empty();
        }
        Recommendation.Target target = new Recommendation.Target("gpu", usage.gpuUuid(), usage.host(),
                usage.instanceId(), usage.provider(), usage.region(), usage.instanceType(), usage.lifecycle());
        double costPerHour = usage.costPerHour();
        Map<String, Object> evidence = new LinkedHashMap<>();
        evidence.put("windowStart", usage.windowStart().toString());
        evidence.put("windowEnd", usage.windowEnd().toString());
        evidence.put("smActive", usage.smActive());
        evidence.put("smActiveThreshold", smActiveThreshold);
        evidence.put("secondsObserved", usage.secondsObserved());
        evidence.put("idleCostPerHour", costPerHour);
        evidence.put("jobId", usage.jobId());
        // Confidence grows with how much of the window was observed: a full minute of idleness
        // says more than half a minute of it.
        double coverage = Math.min(1, usage.secondsObserved() / windowSeconds(usage));
        double confidence = 0.5 + 0.4 * coverage;
        return Optional.of(Recommendation.open(RecommendationKind.RECLAIM_IDLE, target,
                String.format(Locale.ROOT, "GPU %s on %s (%s) is idle: SM activity %.1f%% below %.0f%%; reclaiming it saves %.2f %s per hour",
                        usage.gpuIndex(), usage.host(), usage.instanceType(), usage.smActive() * 100,
                        smActiveThreshold * 100, costPerHour, usage.currency() == null ? "" : usage.currency()),
                Map.of("release", "gpu", "gpuUuid", usage.gpuUuid(), "instanceId", usage.instanceId()), null,
                costPerHour * Recommendation.HOURS_PER_MONTH, usage.currency(), confidence, now, now.plus(ttl),
                evidence));
    }

    private static double windowSeconds(GpuUsage usage) {
        return Duration.between(usage.windowStart(), usage.windowEnd()).toMillis() / 1000.0;
    }
}
