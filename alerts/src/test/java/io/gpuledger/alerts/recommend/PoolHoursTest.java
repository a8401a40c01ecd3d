package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Mean;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PoolHoursTest {

    private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");
    private static final Offer P4D = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND);

    @Test
    void shouldCountEachFinalHourAsInstancesInUse() {
        // Given p4d on demand at 32.77 USD per instance-hour (8 GPUs per instance)
        PriceBoard board = new PriceBoard();
        board.update(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8, 32.77,
                "USD", T0.minusSeconds(86_400), "test"));
        PoolHours hours = new PoolHours(3, 10);

        // When hour 0 used 12 GPU-hours (1.5 instances), hour 1 used 16 (2), hour 2 used 8 (1), hour 3 arrives
        List<PoolUsage> afterHour0 = hours.onRollup(hour(0, 12), board, GpuCatalog.defaults());
        List<PoolUsage> afterHour1 = hours.onRollup(hour(1, 16), board, GpuCatalog.defaults());
        hours.onRollup(hour(2, 8), board, GpuCatalog.defaults());
        List<PoolUsage> afterHour3 = hours.onRollup(hour(3, 8), board, GpuCatalog.defaults());

        // Then each hour counts once a newer one makes it final, as GPU-hours over 8 GPUs, oldest first
        assertThat(afterHour0).isEmpty();
        assertThat(afterHour1).singleElement().satisfies(usage -> {
            assertThat(usage.pool()).isEqualTo(P4D);
            assertThat(usage.instancesPerHour()).containsExactly(1.5);
            assertThat(usage.onDemandPricePerHour()).isCloseTo(32.77, within(1e-9));
        });
        assertThat(afterHour3).singleElement()
                .satisfies(usage -> assertThat(usage.instancesPerHour()).containsExactly(1.5, 2.0, 1.0));
    }

    @Test
    void shouldLeaveOutSpotPoolsAndMinuteWindows() {
        PoolHours hours = new PoolHours(3, 10);
        Offer spot = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT);
        UsageRollup spotHour = new UsageRollup(UsageRollup.Dimension.POOL, spot.key(), T0, T0.plusSeconds(3600),
                "USD", 8, null, totals(8 * 3600));
        UsageRollup minute = new UsageRollup(UsageRollup.Dimension.POOL, P4D.key(), T0, T0.plusSeconds(60), "USD", 8,
                null, totals(480));

        assertThat(hours.onRollup(spotHour, new PriceBoard(), GpuCatalog.defaults())).isEmpty();
        assertThat(hours.onRollup(minute, new PriceBoard(), GpuCatalog.defaults())).isEmpty();
    }

    private static UsageRollup hour(int index, double gpuHours) {
        Instant start = T0.plusSeconds(3600L * index);
        return new UsageRollup(UsageRollup.Dimension.POOL, P4D.key(), start, start.plusSeconds(3600), "USD", 16,
                null, totals(gpuHours * 3600));
    }

    private static UsageTotals totals(double gpuSeconds) {
        return new UsageTotals(1, gpuSeconds, 0, 0, 0, 0, 0, 0, Mean.NONE, Mean.NONE, Mean.NONE, Mean.NONE, Mean.NONE,
                0, 0);
    }
}
