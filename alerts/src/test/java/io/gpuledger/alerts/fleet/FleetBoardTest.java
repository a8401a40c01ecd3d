package io.gpuledger.alerts.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.UsageWindows;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobPart;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TelemetrySample;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
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

    @Test
    void shouldCountAGpuInThePoolAndTeamOfItsLatestWindow() {
        // Given GPU-1 at 3 USD/h on an on-demand g5.xlarge of team red, then on a spot one of team blue
        Placement spot = new Placement("node-2", "i-2", "g5.xlarge", "aws", "us-east-1", Lifecycle.SPOT);
        FleetBoard board = new FleetBoard(Duration.ofMinutes(10));
        board.record(UsageWindows.minute(NODE, "GPU-1", "job", "red", T0, 3.0, 0.5, true), T0.plusSeconds(60));
        board.record(UsageWindows.minute(spot, "GPU-1", "job", "blue", T0.plusSeconds(60), 1.0, 0.5, false),
                T0.plusSeconds(90));

        // When the fleet's spend is asked
        FleetSummary summary = board.summary(T0.plusSeconds(90));

        // Then the GPU counts once, at 1 USD/h, in the spot pool and team blue only
        assertThat(summary.byPool()).singleElement().satisfies(row -> {
            assertThat(row.key()).contains("spot");
            assertThat(row.costPerHour()).isCloseTo(1.0, within(1e-9));
        });
        assertThat(summary.byTeam()).singleElement().satisfies(row -> assertThat(row.key()).isEqualTo("blue"));
        assertThat(summary.total().get(0).gpus()).isEqualTo(1);
    }

    @Test
    void shouldGiveEachTeamItsJobsPartsOfASharedGpuAndTheNodesTeamTheRest() {
        // Given a GPU at 3 USD/h on a node of team platform, shared by ranker (team search, half of its cost) and
        // notebook (team research, 0.3 of it); the rest, 0.2, taken by no job
        GpuUsage whole = UsageWindows.minute(NODE, "GPU-1", TelemetrySample.SHARED_JOB, "platform", T0, 3.0, 0.5,
                true);
        double cost = whole.cost();
        GpuUsage shared = whole.toBuilder().sharingJobs(2).jobParts(List.of(
                new JobPart("ranker", "search", 30, 0.5 * cost, 0, 0),
                new JobPart("notebook", "research", 18, 0.3 * cost, 0, 0))).build();
        FleetBoard board = new FleetBoard(Duration.ofMinutes(10));
        board.record(shared, T0.plusSeconds(60));

        // When the fleet's spend is asked
        FleetSummary summary = board.summary(T0.plusSeconds(60));

        // Then search spends 1.5 USD/h, research 0.9 and platform the rest, 0.6: together the GPU's 3 USD/h, as the
        // teams' cost metrics split it
        Map<String, Double> byTeam = summary.byTeam().stream()
                .collect(Collectors.toMap(FleetSummary.Row::key, FleetSummary.Row::costPerHour));
        assertThat(byTeam).containsOnlyKeys("search", "research", "platform");
        assertThat(byTeam.get("search")).isCloseTo(1.5, within(1e-9));
        assertThat(byTeam.get("research")).isCloseTo(0.9, within(1e-9));
        assertThat(byTeam.get("platform")).isCloseTo(0.6, within(1e-9));
        assertThat(summary.total().get(0).costPerHour()).isCloseTo(3.0, within(1e-9));
    }
}
