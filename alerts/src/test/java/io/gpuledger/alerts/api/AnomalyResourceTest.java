package io.gpuledger.alerts.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

import io.gpuledger.alerts.ApiClients;
import io.gpuledger.alerts.anomaly.AnomalyDesk;
import io.gpuledger.alerts.webhook.SampleAnomalies;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.Json;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code GET /api/anomalies}: what the desk holds, filtered by kind, dimension and subject, as on the topic. */
@QuarkusTest
@WithTestResource(BareBroker.class)
class AnomalyResourceTest {

    @Inject
    AnomalyDesk anomalies;

    @Test
    void shouldAnswerTheAnomaliesOfASubjectAsPublished() {
        // Given two anomalies of one team, an hour apart, and a price spike of an offer
        CostAnomaly earlier = SampleAnomalies.spendRate("api-anomaly-team", 0);
        CostAnomaly later = SampleAnomalies.spendRate("api-anomaly-team", 1);
        CostAnomaly spike = SampleAnomalies.priceSpike("api-anomaly-offer");
        List.of(earlier, later, spike).forEach(anomalies::publish);

        // Then the team's come newest first, and the spike by its kind and dimension
        assertThat(anomalies("/api/anomalies?subject=api-anomaly-team")).containsExactly(later, earlier);
        assertThat(anomalies("/api/anomalies?kind=price_spike&dimension=offer&subject=api-anomaly-offer"))
                .containsExactly(spike);
        assertThat(anomalies("/api/anomalies?kind=SPEND_RATE&subject=api-anomaly-offer")).isEmpty();
    }

    @Test
    void shouldRefuseAnUnknownKind() {
        ApiClients.reader().get("/api/anomalies?kind=gpu-melting").then().statusCode(400)
                .body(containsString("unknown kind 'gpu-melting'"));
    }

    private static List<CostAnomaly> anomalies(String path) {
        byte[] body = ApiClients.reader().get(path).then().statusCode(200).extract().asByteArray();
        return List.of(Json.read(body, CostAnomaly[].class));
    }
}
