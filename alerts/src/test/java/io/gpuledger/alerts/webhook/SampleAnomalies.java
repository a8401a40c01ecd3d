package io.gpuledger.alerts.webhook;

import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import java.time.Instant;
import java.util.Map;

/** Cost anomalies for tests: a team spending four times its baseline rate in one hour. */
public final class SampleAnomalies {

    static final Instant WINDOW_START = Instant.parse("2024-05-01T10:00:00Z");

    private SampleAnomalies() {
    }

    /** A critical spend-rate anomaly of {@code team}, its id unique per team and hour. */
    public static CostAnomaly spendRate(String team, int hour) {
        Instant start = WINDOW_START.plusSeconds(3600L * hour);
        return new CostAnomaly(CostAnomaly.SCHEMA_VERSION,
                CostAnomaly.idFor(AnomalyKind.SPEND_RATE, "team", team, start),
                AnomalyKind.SPEND_RATE, "team", team, CostAnomaly.Severity.CRITICAL, "spend per hour",
                120.0, 512.4, 392.4, CostAnomaly.percentAbove(120.0, 512.4), "USD",
                start, start.plusSeconds(3600), start.plusSeconds(3660),
                new CostAnomaly.Cause("job", "train-42", 300.0, 300.0 / 392.4),
                "Team " + team + " spends 512.40 USD per hour against a baseline of 120.00 USD",
                Map.of("baselineHours", 168, "pool", "aws|us-east-1|p4d.24xlarge|on-demand"));
    }

    /** A warning-level price spike with no root cause and nothing expected. */
    public static CostAnomaly priceSpike(String offer) {
        return new CostAnomaly(CostAnomaly.SCHEMA_VERSION,
                CostAnomaly.idFor(AnomalyKind.PRICE_SPIKE, "offer", offer, WINDOW_START),
                AnomalyKind.PRICE_SPIKE, "offer", offer, CostAnomaly.Severity.WARNING, "price per instance-hour",
                0.0, 1234.5, 1234.5, null, "EUR",
                WINDOW_START.minusSeconds(600), WINDOW_START.plusSeconds(86_400), WINDOW_START.plusSeconds(60),
                null, "A new price of 1,234.50 EUR per instance-hour", Map.of());
    }
}
