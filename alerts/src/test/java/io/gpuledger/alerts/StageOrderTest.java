package io.gpuledger.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.alerts.anomaly.AnomalyDesk;
import io.gpuledger.alerts.anomaly.WatchStage;
import io.gpuledger.alerts.api.BareBroker;
import io.gpuledger.alerts.fleet.FleetBoard;
import io.gpuledger.alerts.metrics.FleetMetricsStage;
import io.gpuledger.alerts.recommend.RecommendationDesk;
import io.gpuledger.alerts.recommend.RulesStage;
import io.gpuledger.alerts.webhook.WebhookStage;
import io.quarkus.arc.ClientProxy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** Without a lease the service starts at once, opening its stages in the order {@link AlertService} documents. */
@QuarkusTest
@WithTestResource(BareBroker.class)
class StageOrderTest {

    @Inject
    AlertService service;

    /** Every stage bean, built here if nothing asked for it before. */
    @Inject
    Instance<Stage> stages;

    @Test
    void shouldOpenEveryStageInTheDocumentedOrder() {
        // Given a service started without a lease, then its stages were opened in order, and all of them
        assertThat(service.started()).isTrue();
        assertThat(service.openedStages()).extracting(stage -> (Object) ClientProxy.unwrap(stage).getClass())
                .containsExactly(FleetBoard.class, RecommendationDesk.class, AnomalyDesk.class,
                        FleetMetricsStage.class, WatchStage.class, RulesStage.class, ReaderStage.class,
                        WebhookStage.class);
        assertThat(stages.stream().map(Stage::isOpen)).hasSize(8).containsOnly(true);
    }
}
