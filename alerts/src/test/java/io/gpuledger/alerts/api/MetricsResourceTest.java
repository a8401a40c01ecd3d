package io.gpuledger.alerts.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.hamcrest.Matchers.containsString;

import io.gpuledger.alerts.ApiClients;
import io.gpuledger.alerts.UsageWindows;
import io.gpuledger.alerts.metrics.FleetMetrics;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@code GET /api/metrics}: only the families named, and with {@code gpu[]}, only those GPUs' series. */
@QuarkusTest
@WithTestResource(BareBroker.class)
class MetricsResourceTest {

    @Inject
    FleetMetrics metrics;

    @Test
    void shouldAnswerTheNamedFamilyOfTheNamedGpuOnly() {
        // Given the latest minutes of two GPUs
        Instant now = Instant.now();
        metrics.record(UsageWindows.lastMinute("i-api-metrics", "GPU-api-metrics-0", "api-metrics-team", now, 2.5,
                0.5), now);
        metrics.record(UsageWindows.lastMinute("i-api-metrics", "GPU-api-metrics-1", "api-metrics-team", now, 3.5,
                0.5), now);

        // Then one family of one GPU is its one sample, in the Prometheus text format
        String text = ApiClients.reader()
                .get("/api/metrics?name[]=gpuledger_gpu_cost_per_hour&gpu[]=GPU-api-metrics-0").then()
                .statusCode(200).contentType(containsString("text/plain")).extract().asString();
        assertThat(text.lines()).singleElement().satisfies(line -> {
            assertThat(line).startsWith("gpuledger_gpu_cost_per_hour{").contains("gpu=\"GPU-api-metrics-0\"",
                    "team=\"api-metrics-team\"");
            assertThat(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).isCloseTo(2.5, within(1e-9));
        });
    }

    @Test
    void shouldRefuseARequestThatNamesNoFamily() {
        ApiClients.reader().get("/api/metrics?gpu[]=GPU-api-metrics-0").then().statusCode(400)
                .body(containsString("name[]"));
    }
}
