package io.gpuledger.alerts.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.UsageWindows;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The fleet's spend now, with the part of it that nobody observed lately marked as estimated. */
class FleetBoardTest {

    private static final Instant T0 = Instant.parse("2026-11-30T09:00:00Z");
    private static final Placement NODE = new Placement("node-1", "i-1", "g5.xlarge", "aws", "us-east-1",
            Lifecycle.ON_DEMAND);

    @Test
    void shouldShowTheSpendOfAGpuGoneQuietAsAnEstimatedPartOfTheTotal() {
        // Given GPU-1 at 3 USD/h last heard of in minute 0, and GPU-2 at 2 USD/h reporting in minute 3
        FleetBoard board = new FleetBoard(Duration.ofMinutes(10));
        board.record(UsageWindows.minute(NODE, "GPU-1", "job", "red", T0, 3.0, 0.5, true), T0.plusSeconds(60));
        board.record(UsageWindows.minute(NODE, "GPU-2", "job", "red", T0.plusSeconds(180), 2.0, 0.5, false),
                T0.plusSeconds(200));

        // When the fleet's spend is asked
        FleetSummary summary = board.summary(T0.plusSeconds(200));

        // Then it is 3 + 2 = 5 USD/h, of which GPU-1's 3 USD/h are estimated, not observed
        FleetSummary.Row total = summary.total().get(0);
        assertThat(total.costPerHour()).isCloseTo(5.0, within(1e-9));
        assertThat(total.estimatedCostPerHour()).isCloseTo(3.0, within(1e-9));
    }
}
