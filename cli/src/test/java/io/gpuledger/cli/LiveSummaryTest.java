package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LiveSummaryTest {

    private static final String METRICS = """
            # HELP gpuledger_gpu_cost_per_hour Observed spend rate of one GPU
            # TYPE gpuledger_gpu_cost_per_hour gauge
            gpuledger_gpu_cost_per_hour{currency="USD",gpu="GPU-a",host="n1",instance_type="g5.xlarge",lifecycle="on-demand",provider="aws",region="us-east-1"} 1.006
            gpuledger_gpu_cost_per_hour{currency="USD",gpu="GPU-b",host="n1",instance_type="p4d.24xlarge",lifecycle="spot",provider="aws",region="us-east-1"} 1.228875
            gpuledger_gpu_cost_per_hour{currency="CNY",gpu="GPU-c",host="n2",instance_type="GN10Xp",lifecycle="on-demand",provider="tencent",region="ap-shanghai"} 28.5
            gpuledger_gpu_sm_active_ratio{gpu="GPU-a",host="n1",instance_type="g5.xlarge",lifecycle="on-demand",provider="aws",region="us-east-1"} 0.01
            # HELP gpuledger_recommendations_total Recommendation records published to gpu.recommendations.v1, by kind and the status they carry
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
        String recommendations = "[{\"schemaVersion\":1,\"id\":\"reclaim_idle:gpu:GPU-a\",\"kind\":\"RECLAIM_IDLE\","
                + "\"target\":{\"type\":\"gpu\",\"id\":\"GPU-a\"},\"summary\":\"idle\",\"estimatedMonthlySaving\":724.3,"
                + "\"currency\":\"USD\",\"confidence\":0.9,\"createdAt\":\"2026-03-01T12:00:00Z\","
                + "\"expiresAt\":\"2026-03-01T12:10:00Z\",\"evidence\":{}},"
                + "{\"schemaVersion\":1,\"id\":\"evacuate:instance:i-1\",\"kind\":\"EVACUATE\","
                + "\"target\":{\"type\":\"instance\",\"id\":\"i-1\"},\"summary\":\"go\",\"estimatedMonthlySaving\":0,"
                + "\"confidence\":0.95,\"createdAt\":\"2026-03-01T12:00:00Z\",\"expiresAt\":\"2026-03-01T12:02:00Z\"},"
                + "{\"schemaVersion\":1,\"id\":\"reclaim_idle:gpu:GPU-b\",\"kind\":\"RECLAIM_IDLE\",\"status\":\"withdrawn\","
                + "\"target\":{\"type\":\"gpu\",\"id\":\"GPU-b\"},\"summary\":\"idle\",\"estimatedMonthlySaving\":1,"
                + "\"confidence\":0.9,\"createdAt\":\"2026-03-01T12:00:00Z\",\"expiresAt\":\"2026-03-01T12:10:00Z\"}]";

        String line = new LiveSummary("http://127.0.0.1:1", 4).line(METRICS, recommendations);

        // Seen: the kinds published open at least once (a reservation whose record expired among them;
        // not a move counted zero, nor a switch known only as acknowledged), in the order of the kinds
        assertThat(line).isEqualTo(
                "GPUs seen 3/4 | spend 28.50 CNY/h + 2.23 USD/h | recommendations 2 (evacuate: 1, reclaim idle: 1)"
                        + " | kinds seen 3/6: evacuate, reclaim idle, reserve capacity");
    }

    @Test
    void shouldSayNoKindWasSeenBeforeTheFirstRecommendation() {
        String line = new LiveSummary("http://127.0.0.1:1", 4).line("", "[]");

        assertThat(line).isEqualTo("GPUs seen 0/4 | spend none yet | recommendations 0 | kinds seen 0/6");
    }
}
