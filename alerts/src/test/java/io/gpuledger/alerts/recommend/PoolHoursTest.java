package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.alerts.TestSettings;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.UsageRollup;
import io.gpuledger.model.UsageTotals;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
            assertThat(usage.currency()).isEqualTo("USD");
        });
        assertThat(afterHour3).singleElement()
                .satisfies(usage -> assertThat(usage.instancesPerHour()).containsExactly(1.5, 2.0, 1.0));
    }

    @Test
    void shouldCountTheClockHoursAPoolScaledToZeroAsIdle() {
        // Given p4d on demand at 32.77 and reserved at 21.3005 USD per instance-hour, and a pool of
        // one instance busy from 00:00 to 08:00 every day for three weeks, scaled to zero the rest
        PriceBoard board = new PriceBoard();
        board.update(p4d(Lifecycle.ON_DEMAND, 32.77));
        board.update(p4d(Lifecycle.RESERVED, 21.3005));
        PoolHours hours = new PoolHours(168, 10);
        List<PoolUsage> judged = new ArrayList<>();
        for (int day = 0; day < 21; day++) {
            for (int hour = 0; hour < 8; hour++) {
                judged.addAll(hours.onRollup(hour(24 * day + hour, 8), board, GpuCatalog.defaults()));
            }
        }

        // When the first hour of the next day arrives
        judged.addAll(hours.onRollup(hour(24 * 21, 8), board, GpuCatalog.defaults()));

        // Then the last week is judged on its 168 clock hours: 7 x 8 = 56 busy, 112 idle, u1 = 56 / 168 = 1/3
        PoolUsage lastWeek = judged.get(judged.size() - 1);
        assertThat(lastWeek.hours()).isEqualTo(168);
        assertThat(lastWeek.utilizationOfInstance(1)).isCloseTo(1.0 / 3, within(1e-9));
        // and it is not worth reserving: break-even 21.3005 / 32.77 = 0.65 > 1/3. Reserving would
        // "save" 720 x (32.77 x 1/3 - 21.3005) = 720 x -10.377167 = -7471.56 USD a month,
        // where counting only the busy hours (u1 = 1) claims 720 x (32.77 - 21.3005) = +8258.04
        assertThat(720 * (32.77 * lastWeek.utilizationOfInstance(1) - 21.3005)).isCloseTo(-7471.56, within(0.01));
        assertThat(new ReserveCapacityRule(TestSettings.recommendation(
                "gpuledger.recommendation.reserve.lookback-hours", "168",
                "gpuledger.recommendation.reserve.term-months", "12",
                "gpuledger.recommendation.min-monthly-saving", "10",
                "gpuledger.recommendation.reserve.ttl", "2h"))
                .evaluate(lastWeek, board, T0.plus(Duration.ofDays(21)), Optional.empty()))
                .isEmpty();
    }

    @Test
    void shouldCountTheHoursUpToTheClockAfterAPoolStopped() {
        // Given a p4d pool of one instance busy for hours 0 to 3, then silent
        PriceBoard board = new PriceBoard();
        board.update(p4d(Lifecycle.ON_DEMAND, 32.77));
        PoolHours hours = new PoolHours(4, 10);
        for (int hour = 0; hour < 4; hour++) {
            hours.onRollup(hour(hour, 8), board, GpuCatalog.defaults());
        }

        // When another pool's hours 4 to 6 move the clock to 07:00, so that hours up to 05:00 are final
        Offer spot = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT);
        List<PoolUsage> judged = new ArrayList<>();
        for (int hour = 4; hour < 7; hour++) {
            Instant start = T0.plusSeconds(3600L * hour);
            judged.addAll(hours.onRollup(new UsageRollup(UsageRollup.Dimension.POOL, spot.key(), start,
                    start.plusSeconds(3600), "USD", 8, null, totals(8 * 3600)), board, GpuCatalog.defaults()));
        }

        // Then the silent pool's last four hours are 2 and 3 busy, 4 and 5 idle
        assertThat(judged).last().satisfies(usage -> {
            assertThat(usage.pool()).isEqualTo(P4D);
            assertThat(usage.instancesPerHour()).containsExactly(1.0, 1.0, 0.0, 0.0);
        });
    }

    @Test
    void shouldCountTheHoursOfAReplayThatComeAfterTheMinutesFollowingThem() {
        // Given a p4d pool of two instances (16 GPUs), replayed from a backlog as the engine sends one:
        // for each hour, the minutes up to five past the next hour first, then the complete hour
        PriceBoard board = new PriceBoard();
        board.update(p4d(Lifecycle.ON_DEMAND, 32.77));
        PoolHours hours = new PoolHours(4, 10);
        List<PoolUsage> judged = new ArrayList<>();

        // When four hours are replayed so
        for (int hour = 0; hour < 4; hour++) {
            Instant minute = T0.plusSeconds(3600L * (hour + 1) + 240);
            judged.addAll(hours.onRollup(new UsageRollup(UsageRollup.Dimension.POOL, P4D.key(), minute,
                    minute.plusSeconds(60), "USD", 16, null, totals(16 * 60)), board, GpuCatalog.defaults()));
            judged.addAll(hours.onRollup(hour(hour, 16), board, GpuCatalog.defaults()));
        }

        // Then each hour counts its two instances, though the minutes after it had made it final
        // (at 05:05 the clock has passed 03:00 + 1 h + 2 min: hours 0 to 3 are final)
        assertThat(judged).last().satisfies(usage -> assertThat(usage.instancesPerHour())
                .containsExactly(2.0, 2.0, 2.0, 2.0));
        assertThat(hours.late()).isZero();
    }

    @Test
    void shouldReviseAFinalHourWithItsLaterVersionAndLeaveOutOneOlderThanTheLookback() {
        // Given hours 0 and 2 of the pool: hour 0 is final, hour 1 (not sent yet) too, at 03:00 less the slack
        PriceBoard board = new PriceBoard();
        board.update(p4d(Lifecycle.ON_DEMAND, 32.77));
        PoolHours hours = new PoolHours(3, 10);
        hours.onRollup(hour(0, 8), board, GpuCatalog.defaults());
        List<PoolUsage> beforeHour1 = hours.onRollup(hour(2, 16), board, GpuCatalog.defaults());

        // When hour 1 arrives, then hours 3 and 4, then hour 0 again
        List<PoolUsage> afterHour1 = hours.onRollup(hour(1, 8), board, GpuCatalog.defaults());
        List<PoolUsage> afterHour3 = hours.onRollup(hour(3, 8), board, GpuCatalog.defaults());
        hours.onRollup(hour(4, 8), board, GpuCatalog.defaults());
        List<PoolUsage> afterHour0Again = hours.onRollup(hour(0, 16), board, GpuCatalog.defaults());

        // Then hour 1 was idle until it came, and the pool is judged again with it: 8 GPU-hours / 8 = 1
        assertThat(beforeHour1).singleElement()
                .satisfies(usage -> assertThat(usage.instancesPerHour()).containsExactly(1.0, 0.0));
        assertThat(afterHour1).singleElement()
                .satisfies(usage -> assertThat(usage.instancesPerHour()).containsExactly(1.0, 1.0));
        assertThat(afterHour3).singleElement()
                .satisfies(usage -> assertThat(usage.instancesPerHour()).containsExactly(1.0, 1.0, 2.0));
        // and hour 0, out of the three hours kept since hour 3 (hours 1 to 3), is late and left out
        assertThat(afterHour0Again).isEmpty();
        assertThat(hours.late()).isEqualTo(1);
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

    private static PriceQuote p4d(Lifecycle lifecycle, double pricePerHour) {
        return new PriceQuote("aws", "us-east-1", "p4d.24xlarge", lifecycle, "A100-40GB", 8, pricePerHour, "USD",
                T0.minusSeconds(86_400), "test");
    }

    private static UsageRollup hour(int index, double gpuHours) {
        Instant start = T0.plusSeconds(3600L * index);
        return new UsageRollup(UsageRollup.Dimension.POOL, P4D.key(), start, start.plusSeconds(3600), "USD", 16,
                null, totals(gpuHours * 3600));
    }

    private static UsageTotals totals(double gpuSeconds) {
        return UsageTotals.builder().samples(1).sum(UsageTotals.Sum.GPU_SECONDS, gpuSeconds).build();
    }
}
