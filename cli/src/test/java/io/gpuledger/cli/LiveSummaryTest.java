package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LiveSummaryTest {

    /** The shape {@code GET /api/fleet} answers: totals per currency first, then by pool, team and lifecycle. */
    private static final String FLEET = """
            {"asOf":"2026-03-01T12:00:30Z","newestWindow":"2026-03-01T12:00:00Z",
             "total":[{"key":"all","currency":"CNY","gpus":1,"costPerHour":28.5,"idleCostPerHour":0.0,\
            "estimatedCostPerHour":0.0},
                      {"key":"all","currency":"USD","gpus":2,"costPerHour":2.234875,"idleCostPerHour":0.5,\
            "estimatedCostPerHour":0.0}],
             "byPool":[{"key":"aws|us-east-1|g5.xlarge|on-demand","currency":"USD","gpus":1,"costPerHour":1.006,\
            "idleCostPerHour":0.5,"estimatedCostPerHour":0.0}],
             "byTeam":[],"byLifecycle":[]}
            """;

    /** {@code /api/metrics?name[]=gpuledger_recommendations_total}: the family alone. */
    private static final String COUNTS = """
            # HELP gpuledger_recommendations_total Recommendation records published to gpu.recommendations.v1, by kind \
            and the status they carry
            # TYPE gpuledger_recommendations_total counter
            gpuledger_recommendations_total{kind="EVACUATE",status="open"} 1.0
            gpuledger_recommendations_total{kind="RECLAIM_IDLE",status="open"} 2.0
            gpuledger_recommendations_total{kind="RECLAIM_IDLE",status="withdrawn"} 1.0
            gpuledger_recommendations_total{kind="RESERVE_CAPACITY",status="open"} 1.0
            gpuledger_recommendations_total{kind="MOVE_TO_SPOT",status="open"} 0.0
            gpuledger_recommendations_total{kind="SWITCH_INSTANCE_TYPE",status="acknowledged"} 1.0
            """;

    @Test
    void shouldSumSpendPerCurrencyAndCountRecommendationsToActOnByKindAndNameTheKindsSeen() {
        String recommendations = "[{\"schemaVersion\":1,\"id\":\"reclaim_idle:instance:i-a\",\"kind\":\"RECLAIM_IDLE\","
                + "\"target\":{\"type\":\"instance\",\"id\":\"i-a\"},\"summary\":\"idle\","
                        + "\"estimatedMonthlySaving\":724.3,"
                + "\"currency\":\"USD\",\"confidence\":0.9,\"createdAt\":\"2026-03-01T12:00:00Z\","
                + "\"expiresAt\":\"2026-03-01T12:10:00Z\",\"evidence\":{}},"
                + "{\"schemaVersion\":1,\"id\":\"evacuate:instance:i-1\",\"kind\":\"EVACUATE\","
                + "\"target\":{\"type\":\"instance\",\"id\":\"i-1\"},\"summary\":\"go\",\"estimatedMonthlySaving\":0,"
                + "\"confidence\":0.95,\"createdAt\":\"2026-03-01T12:00:00Z\",\"expiresAt\":\"2026-03-01T12:02:00Z\"},"
                + "{\"schemaVersion\":1,\"id\":\"reclaim_idle:instance:i-b\",\"kind\":\"RECLAIM_IDLE\","
                        + "\"status\":\"withdrawn\","
                + "\"target\":{\"type\":\"instance\",\"id\":\"i-b\"},\"summary\":\"idle\",\"estimatedMonthlySaving\":1,"
                + "\"confidence\":0.9,\"createdAt\":\"2026-03-01T12:00:00Z\",\"expiresAt\":\"2026-03-01T12:10:00Z\"}]";

        String line = new LiveSummary("http://127.0.0.1:1", 4).line(FLEET, COUNTS, recommendations);

        // Spend: the totals' rates per currency (1.006 + 1.228875 = 2.234875 USD/h, shown 2.23); GPUs 1 + 2.
        // Seen: the kinds published open at least once (a reservation whose record expired among them;
        // not a move counted zero, nor a switch known only as acknowledged), in the order of the kinds
        assertThat(line).isEqualTo(
                "GPUs seen 3/4 | spend 28.50 CNY/h + 2.23 USD/h | recommendations 2 (evacuate: 1, reclaim idle: 1)"
                        + " | kinds seen 3/6: evacuate, reclaim idle, reserve capacity");
    }

    @Test
    void shouldSayNoKindWasSeenBeforeTheFirstRecommendation() {
        String line = new LiveSummary("http://127.0.0.1:1", 4).line("""
                {"asOf":"2026-03-01T12:00:30Z","total":[],"byPool":[],"byTeam":[],"byLifecycle":[]}""", "", "[]");

        assertThat(line).isEqualTo("GPUs seen 0/4 | spend none yet | recommendations 0 | kinds seen 0/6");
    }
}
