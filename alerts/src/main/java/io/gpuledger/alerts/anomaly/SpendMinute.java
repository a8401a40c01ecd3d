package io.gpuledger.alerts.anomaly;

import io.gpuledger.model.Check;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one team, job, pool or project spent in one closed minute, and how that cost splits by
 * other dimensions: for a team, {@code "job" → jobId → cost} and {@code "pool" → pool key → cost}.
 *
 * @param dimension   {@code team}, {@code job}, {@code pool} or {@code project}
 * @param minuteStart the start of the minute; the minute ends one minute later
 * @param cost        spent in the minute, in {@code currency}
 * @param parts       the minute's cost by other dimension and id, in {@code currency}; empty when not known
 */
public record SpendMinute(String dimension, String subject, Instant minuteStart, double cost, String currency,
                          Map<String, Map<String, Double>> parts) {

    public static final Duration LENGTH = Duration.ofMinutes(1);

    public SpendMinute {
        Check.identity("dimension", dimension);
        Check.present("subject", subject);
        Check.instant("minuteStart", minuteStart);
        Check.nonNegative("cost", cost);
        Check.currency("currency", currency);
        Map<String, Map<String, Double>> copy = new LinkedHashMap<>();
        if (parts != null) {
            parts.forEach((partDimension, costs) -> copy.put(partDimension, Map.copyOf(costs)));
        }
        parts = Map.copyOf(copy);
    }

    /** A minute whose split by other dimensions is not known. */
    public static SpendMinute of(String dimension, String subject, Instant minuteStart, double cost, String currency) {
        return new SpendMinute(dimension, subject, minuteStart, cost, currency, Map.of());
    }

    /** The minute's cost as a rate per hour. */
    public double perHour() {
        return cost * 60;
    }

    public Instant minuteEnd() {
        return minuteStart.plus(LENGTH);
    }
}
