package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuledger.ingest.prom.PrometheusText;
import io.gpuledger.ingest.sim.SimulatedGpu;
import io.gpuledger.model.Json;
import io.gpuledger.model.Recommendation;
import io.gpuledger.model.RecommendationKind;
import io.gpuledger.processes.AlertServiceProcess;
import io.gpuledger.processes.LocalPorts;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The demo as a newcomer runs it: every stage started, every simulated GPU priced at /q/metrics
 * (at prices its feed has confirmed) and idle GPUs recommended at /api/recommendations once a
 * minute has closed, nothing left running after.
 */
class DemoIT {

    private static final int GPUS = 12;

    @Test
    void shouldShowEveryGpuCostAndAnIdleRecommendationOnceAMinuteClosesAndStopCleanly() throws Exception {
        // Given the demo with a minute closing 5 s after its end, and idleness judged over one closed
        // minute: the first full minute's close, at most two minutes and 5 s after the fleet starts
        int port = LocalPorts.freePair();
        DemoOptions options = DemoOptions.parse(new String[] {"--gpus", String.valueOf(GPUS), "--interval", "1",
                "--grace", "5", "--http-port", String.valueOf(port), "--history", "off"},
                Map.of("GPULEDGER_RECOMMENDATION_RECLAIM_IDLE_PERIOD", "1m"));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Demo demo = new Demo(new PrintStream(printed, true, StandardCharsets.UTF_8));
        AlertServiceProcess alerts;
        try {
            demo.start(options);
            alerts = demo.alertService();
            String base = "http://127.0.0.1:" + port;
            String management = "http://127.0.0.1:" + AlertServiceProcess.managementPort(port);

            await().atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                List<PrometheusText.Sample> costs = PrometheusText.parse(get(management + "/q/metrics"))
                        .family("gpuledger_gpu_cost_per_hour");
                // Every GPU the fleet started with; an interrupted spot node's replacement may add more.
                assertThat(costs).extracting(sample -> sample.labels().get("gpu"))
                        .containsAll(demo.fleet().gpus().stream().map(SimulatedGpu::uuid).toList());
                assertThat(costs).allSatisfy(sample -> assertThat(sample.value()).isPositive());
                Recommendation[] recommendations = Json.read(get(base + "/api/recommendations")
                        .getBytes(StandardCharsets.UTF_8), Recommendation[].class);
                assertThat(Arrays.stream(recommendations).map(Recommendation::kind))
                        .contains(RecommendationKind.RECLAIM_IDLE);
                long gpusInFleetView = 0;
                for (var row : Json.MAPPER.readTree(get(base + "/api/fleet")).get("total")) {
                    gpusInFleetView += row.get("gpus").asLong();
                }
                assertThat(gpusInFleetView).isGreaterThanOrEqualTo(demo.fleet().gpus().size());
                assertThat(PrometheusText.parse(get(management + "/q/metrics"))
                        .family("gpuledger_pool_stale_priced_ratio")).isNotEmpty();
            });
            // And no pool's time is charged at a stale price: the demo's feed confirms what it publishes
            assertThat(PrometheusText.parse(get(management + "/q/metrics")).family("gpuledger_pool_stale_priced_ratio"))
                    .allSatisfy(sample -> assertThat(sample.value()).as("stale-priced share of %s", sample.labels())
                            .isZero());
            assertThat(printed.toString(StandardCharsets.UTF_8))
                    .contains(management + "/q/metrics").contains(base + "/api/recommendations")
                    .contains(base + "/api/fleet").contains(base + "/api/anomalies").contains("Bearer ")
                    .contains("reclaim-idle 1m, switch-instance-type 5m");
        } finally {
            demo.close();
        }
        assertThat(alerts.isAlive()).isFalse();
        assertThat(reachable("http://127.0.0.1:" + AlertServiceProcess.managementPort(port) + "/q/metrics")).isEmpty();
    }

    private static String get(String url) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static Optional<Integer> reachable(String url) {
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
            return Optional.of(http.send(HttpRequest.newBuilder(URI.create(url)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode());
        } catch (Exception e) {
            return Optional.empty();
        }
    }
}
