package io.gpuledger.alerts.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.ApiClients;
import io.gpuledger.alerts.UsageWindows;
import io.gpuledger.alerts.fleet.FleetBoard;
import io.gpuledger.alerts.fleet.FleetSummary;
import io.gpuledger.model.Json;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** {@code GET /api/fleet}: the spend now of the GPUs the board holds, by team among the rest. */
@QuarkusTest
@WithTestResource(BareBroker.class)
class FleetResourceTest {

    @Inject
    FleetBoard board;

    @Test
    void shouldAnswerWhatATeamSpendsNow() {
        // Given a team's two GPUs on one instance, their latest minutes just closed, one of them busy
        Instant now = Instant.now();
        board.record(UsageWindows.lastMinute("i-api-fleet", "GPU-api-fleet-0", "api-fleet-team", now, 4.0, 0.0), now);
        board.record(UsageWindows.lastMinute("i-api-fleet", "GPU-api-fleet-1", "api-fleet-team", now, 4.0, 0.9), now);

        // When
        byte[] body = ApiClients.reader().get("/api/fleet").then().statusCode(200).extract().asByteArray();
        FleetSummary summary = Json.read(body, FleetSummary.class);

        // Then the team's row adds up both, the idle one's spend as idle
        FleetSummary.Row team = summary.byTeam().stream().filter(row -> row.key().equals("api-fleet-team"))
                .findFirst().orElseThrow();
        assertThat(team.currency()).isEqualTo("USD");
        assertThat(team.gpus()).isEqualTo(2);
        assertThat(team.costPerHour()).isCloseTo(8.0, within(1e-9));
        assertThat(team.idleCostPerHour()).isCloseTo(4.0, within(1e-9));
        assertThat(summary.asOf()).isAfterOrEqualTo(now.minusSeconds(1));
    }
}
