package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What one sample adds to a window's totals when its GPU's activity is known, idle, or unknown. */
class UsageTotalsTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    /** Per GPU and hour: 7.2 USD/h makes 0.002 USD a second, easy to follow by hand. */
    private static final double PRICE = 7.2;

    @Test
    void shouldChargeASampleWithoutAnActivityReadingInFullAndCountItNeitherIdleNorBusy() {
        // Given a 10-second sample whose GPU gave no activity reading
        TelemetrySample unknown = sample(10, null).build();

        // When it is charged
        UsageTotals totals = UsageTotals.ZERO.add(unknown, PRICE);

        // Then its 10 s cost 10 × 0.002 = 0.02 USD, none of it idle, and the 10 s are counted as unknown
        assertThat(totals.gpuSeconds()).isEqualTo(10.0);
        assertThat(totals.cost()).isCloseTo(0.02, within(1e-12));
        assertThat(totals.idleSeconds()).isZero();
        assertThat(totals.idleCost()).isZero();
        assertThat(totals.activityUnknownSeconds()).isEqualTo(10.0);
        assertThat(totals.smActive().value()).isNull();
    }

    @Test
    void shouldKeepUnknownActivityOutOfIdleTimeAndOutOfTheMeanActivity() {
        // Given, on one GPU: 10 s unknown, 20 s at 1% (idle), 30 s at 90%, and a 3/7 MIG slice unknown for 14 s
        TelemetrySample unknown = sample(10, null).build();
        TelemetrySample idle = sample(20, 0.01).build();
        TelemetrySample busy = sample(30, 0.9).build();
        TelemetrySample slice = sample(14, null).migProfile("3g.40gb").gpuFraction(3.0 / 7).build();

        // When all four are charged
        UsageTotals totals = UsageTotals.ZERO.add(unknown, PRICE).add(idle, PRICE).add(busy, PRICE).add(slice, PRICE);

        // Then every second is charged: 10 + 20 + 30 + 14 × 3/7 = 66 GPU seconds, 66 × 0.002 = 0.132 USD
        assertThat(totals.gpuSeconds()).isCloseTo(66.0, within(1e-9));
        assertThat(totals.cost()).isCloseTo(0.132, within(1e-12));
        // only the 20 s at 1% are idle: 20 × 0.002 = 0.04 USD
        assertThat(totals.idleSeconds()).isEqualTo(20.0);
        assertThat(totals.idleCost()).isCloseTo(0.04, within(1e-12));
        // 10 + 6 s are unknown, and the mean is over the 50 known seconds: (0.01 × 20 + 0.9 × 30) / 50 = 0.544
        assertThat(totals.activityUnknownSeconds()).isCloseTo(16.0, within(1e-9));
        assertThat(totals.smActive().value()).isCloseTo(0.544, within(1e-12));
    }

    @Test
    void shouldGiveAMigSliceItsShareOfTheBoardsEnergyAndNvlinkTrafficItsSamplesCarry() {
        // Given a GPU's board at 300 W sending 1 GB/s over NVLink, as dcgm-exporter writes it on each slice's series
        // (device readings are copied to every GPU instance: fixtures/dcgm-exporter/mig-a30-1g6gb-issue317)
        TelemetrySample whole = sample(14, 0.5).powerWatts(300.0).nvlinkTxBytesPerSecond(1e9).build();
        TelemetrySample slice = sample(14, 0.5).powerWatts(300.0).nvlinkTxBytesPerSecond(1e9).migProfile("3g.40gb")
                .gpuFraction(3.0 / 7).build();
        TelemetrySample rest = sample(14, 0.5).powerWatts(300.0).nvlinkTxBytesPerSecond(1e9).migProfile("4g.40gb")
                .gpuFraction(4.0 / 7).build();

        // When each is charged
        UsageTotals wholeTotals = UsageTotals.ZERO.add(whole, PRICE);
        UsageTotals sliceTotals = UsageTotals.ZERO.add(slice, PRICE);
        UsageTotals restTotals = UsageTotals.ZERO.add(rest, PRICE);

        // Then the 3/7 slice takes 6 of the board's 14 s: 300 W × 6 s = 0.0005 kWh and 6 GB, by hand, and the two
        // slices of the GPU add up to its board's 300 W × 14 s, not twice it
        assertThat(wholeTotals.energyKwh()).isCloseTo(300 * 14 / 3.6e6, within(1e-15));
        assertThat(sliceTotals.energyKwh()).isCloseTo(0.0005, within(1e-15));
        assertThat(sliceTotals.nvlinkBytes()).isCloseTo(6e9, within(1e-3));
        assertThat(sliceTotals.energyKwh() + restTotals.energyKwh()).isCloseTo(wholeTotals.energyKwh(), within(1e-15));
        // its power reading is the board's, as read
        assertThat(sliceTotals.mean(Reading.POWER_WATTS).value()).isEqualTo(300.0);
    }

    @Test
    void shouldSplitASharedGpusChargeIntoPartsAndAnUnallocatedRestThatAddUpToIt() {
        // Given a 10-second sample at 300 W, 2% active (idle), charged 0.02 USD
        UsageTotals charged = UsageTotals.ZERO.add(sample(10, 0.02).powerWatts(300.0).build(), PRICE);

        // When a job takes 0.3 of it by memory and the rest is left
        UsageTotals part = charged.part(0.3);
        UsageTotals rest = charged.less(part);
        UsageTotals jobs = part.sharedBy(SharePolicy.MEMORY);

        // Then the job has 3 s, 0.006 USD (all idle) and 0.3 of the energy, counted as memory-shared time
        assertThat(jobs.gpuSeconds()).isCloseTo(3.0, within(1e-12));
        assertThat(jobs.cost()).isCloseTo(0.006, within(1e-12));
        assertThat(jobs.idleCost()).isCloseTo(0.006, within(1e-12));
        assertThat(jobs.energyKwh()).isCloseTo(0.3 * 300 * 10 / 3.6e6, within(1e-15));
        assertThat(jobs.sum(UsageTotals.Sum.MEMORY_SHARED_SECONDS)).isCloseTo(3.0, within(1e-12));
        assertThat(jobs.sharedGpuSeconds()).isCloseTo(3.0, within(1e-12));
        assertThat(jobs.sharedBy()).isEqualTo(SharePolicy.MEMORY);
        assertThat(jobs.unallocatedCost()).isZero();
        assertThat(jobs.samples()).isEqualTo(1);
        // And the rest is the charge less the part, its cost unallocated; together they are the charge
        assertThat(rest.cost()).isEqualTo(charged.cost() - part.cost());
        assertThat(rest.unallocatedCost()).isEqualTo(rest.cost());
        assertThat(part.cost() + rest.cost()).isCloseTo(charged.cost(), within(1e-18));
        assertThat(rest.gpuSeconds()).isCloseTo(7.0, within(1e-12));
        assertThat(rest.smActive().value()).isCloseTo(0.02, within(1e-12));
        // And totals of one job's GPU say nothing of sharing
        assertThat(charged.sharedGpuSeconds()).isZero();
        assertThat(charged.sharedBy()).isNull();
    }

    @Test
    void shouldAddUpUnknownActivityAcrossWindowsLikeEveryOtherSum() {
        // Given two windows: one with 10 s unknown and 20 s known, one with 5 s unknown
        UsageTotals first = UsageTotals.ZERO.add(sample(10, null).build(), PRICE).add(sample(20, 0.5).build(), PRICE);
        UsageTotals second = UsageTotals.ZERO.add(sample(5, null).build(), PRICE);

        // When they are added up, as a roll-up does
        UsageTotals both = first.plus(second);

        // Then 10 + 5 = 15 s are unknown, of 35 charged
        assertThat(both.activityUnknownSeconds()).isEqualTo(15.0);
        assertThat(both.gpuSeconds()).isEqualTo(35.0);
        assertThat(both.idleSeconds()).isZero();
    }

    private static TelemetrySample.Builder sample(double seconds, Double smActive) {
        return TelemetrySample.builder().gpuUuid("GPU-1").gpuModel("A100-80GB")
                .placement(new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND))
                .time(T0.plusSeconds(60)).intervalSeconds(seconds).smActive(smActive);
    }
}
