package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Reading;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageTotals;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each second of a GPU charged once, in the minute it falls in: samples of a second agent charge
 * only what no sample covered before, and a long sample is spread over its minutes, those already
 * closed counted as late seconds.
 */
class CoveredSecondsTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

    private CostDriver cost;
    private final Map<String, GpuUsage> windows = new LinkedHashMap<>();

    @BeforeEach
    void startDriver() {
        cost = new CostDriver("covered-seconds-test", T0.minus(Duration.ofMinutes(10)));
        publishPrice(32.0, T0.minus(Duration.ofDays(1)));
    }

    @AfterEach
    void stopDriver() {
        cost.close();
    }

    @Test
    void shouldChargeAGpuReportedByTwoAgentsFiveSecondsOutOfPhaseItsWallTimeOnce() {
        // Given one agent sampling a GPU every 10 s for an hour, ending at 10 s, 20 s, ... 3600 s,
        // and a second agent sampling it every 10 s too, ending at 15 s, 25 s, ... 3595 s
        // When their samples arrive as they are taken
        sendInTimeOrder(everyInterval(10, 10, 3600), everyInterval(10, 15, 3595));

        // Then the GPU's hour, [0 s, 3600 s) that the two cover together, is charged once:
        // 3600 s at 32 USD/h ÷ 8 GPUs = 4 USD
        assertThat(total(GpuUsage::secondsObserved)).isCloseTo(3600.0, withinPercentage(0.1));
        assertThat(total(GpuUsage::cost)).isCloseTo(3600 * (32.0 / 8) / 3600, withinPercentage(0.1));
    }

    @Test
    void shouldChargeAGpuSampledEvery7SecondsByOneAgentAndEvery10ByAnotherItsWallTimeOnce() {
        // Given one agent sampling a GPU every 10 s for an hour (ends 10 s, 20 s, ... 3600 s) and
        // another every 7 s (ends 7 s, 14 s, ... 3598 s)
        // When their samples arrive as they are taken
        sendInTimeOrder(everyInterval(10, 10, 3600), everyInterval(7, 7, 3598));

        // Then the hour the two cover together, [0 s, 3600 s), is charged once: 3600 s, 4 USD
        assertThat(total(GpuUsage::secondsObserved)).isCloseTo(3600.0, withinPercentage(0.1));
        assertThat(total(GpuUsage::cost)).isCloseTo(3600 * (32.0 / 8) / 3600, withinPercentage(0.1));
    }

    @Test
    void shouldChargeOnlyTheUncoveredSecondsOfASampleInEveryTimeProportionalFigure() {
        // Given an idle GPU's sample of [0 s, 10 s) at 300 W
        cost.send(sample("GPU-1", T0.plusSeconds(10), 10).toBuilder().smActive(0.01).powerWatts(300.0).build());

        // When a second agent's sample of [5 s, 15 s) arrives, at 300 W and 1 GB/s over NVLink
        cost.send(sample("GPU-1", T0.plusSeconds(15), 10).toBuilder().smActive(0.01).powerWatts(300.0)
                .nvlinkTxBytesPerSecond(1e9).build());
        collectWindows();

        // Then it is charged its 5 seconds not covered before, half of each figure: 10 s + 5 s
        UsageTotals totals = windows.get("GPU-1@" + T0).totals();
        assertThat(totals.samples()).isEqualTo(2);
        assertThat(totals.gpuSeconds()).isEqualTo(15.0);
        assertThat(totals.cost()).isCloseTo(15 * (32.0 / 8) / 3600, within(1e-12));
        assertThat(totals.idleSeconds()).isEqualTo(15.0);
        assertThat(totals.idleCost()).isCloseTo(15 * (32.0 / 8) / 3600, within(1e-12));
        assertThat(totals.energyKwh()).isCloseTo(300.0 * 15 / 3_600_000, within(1e-12));
        assertThat(totals.nvlinkBytes()).isCloseTo(1e9 * 5, within(1e-3));
        assertThat(totals.mean(Reading.POWER_WATTS).value()).isCloseTo(300.0, within(1e-9));
        assertThat(totals.smActive().value()).isCloseTo(0.01, within(1e-12));
        assertThat(cost.deadLettersCounted("telemetry-duplicate")).isZero();

        // And a third sample of [2 s, 12 s), all of whose seconds were charged, is refused as a duplicate
        cost.send(sample("GPU-1", T0.plusSeconds(12), 10));
        assertThat(cost.deadLettersCounted("telemetry-duplicate")).isEqualTo(1.0);
    }

    @Test
    void shouldSpreadAFiveMinuteSampleOverItsMinutesEachAtThePriceInForceInIt() {
        // Given a node sampling a GPU every 5 minutes, and the price raised from 32 to 48 USD/h
        // two minutes into its second sample
        publishPrice(48.0, T0.plusSeconds(120));
        cost.send(sample("GPU-1", T0, 300));

        // When its sample of [0 s, 300 s) arrives at its end
        cost.send(sample("GPU-1", T0.plusSeconds(300), 300));
        collectWindows();

        // Then each of its five minutes holds its 60 s, the first two at 32 USD/h, the other three at 48
        for (int minute = 0; minute < 5; minute++) {
            GpuUsage window = windows.get("GPU-1@" + T0.plusSeconds(60L * minute));
            assertThat(window.secondsObserved()).as("minute %d", minute).isEqualTo(60.0);
            double perHour = minute < 2 ? 32.0 : 48.0;
            assertThat(window.cost()).as("minute %d", minute).isCloseTo(60 * (perHour / 8) / 3600, within(1e-12));
        }
        // And nothing of it was late
        assertThat(lateSeconds()).isZero();
        assertThat(cost.telemetryDeadLetters.isEmpty()).isTrue();
    }

    @Test
    void shouldChargeASampleThatStraddlesAMinutesEndInBothMinutesEachAtItsOwnPrice() {
        // Given the price raised from 32 to 48 USD/h at the start of the second minute
        publishPrice(48.0, T0.plusSeconds(60));

        // When a 10 s sample of [55 s, 65 s) arrives
        cost.send(sample("GPU-1", T0.plusSeconds(65), 10));
        collectWindows();

        // Then each minute holds its 5 s, the first at 32 USD/h, the second at 48, and counts the sample
        GpuUsage first = windows.get("GPU-1@" + T0);
        GpuUsage second = windows.get("GPU-1@" + T0.plusSeconds(60));
        assertThat(first.secondsObserved()).isEqualTo(5.0);
        assertThat(first.cost()).isCloseTo(5 * (32.0 / 8) / 3600, within(1e-12));
        assertThat(first.samples()).isEqualTo(1);
        assertThat(second.secondsObserved()).isEqualTo(5.0);
        assertThat(second.cost()).isCloseTo(5 * (48.0 / 8) / 3600, within(1e-12));
        assertThat(second.samples()).isEqualTo(1);
    }

    @Test
    void shouldChargeTheOpenMinutesOfALongSampleOrAReplayedSpoolAndCountTheRestAsLateSeconds() {
        // Given GPU-B reporting on time every 10 s for 10 minutes: at 600 s the engine's clock is at
        // the middle of its last sample, 595 s, and minutes that ended by 475 s (end plus 2 min of
        // grace) are closed: minutes 0 to 6; minutes 7 (420–480 s), 8 and 9 are open
        for (int end = 10; end <= 600; end += 10) {
            cost.send(sample("GPU-B", T0.plusSeconds(end), 10));
        }

        // When GPU-C's node sends one sample of [300 s, 600 s), and GPU-A's replays its spool of
        // 10 s samples from [360 s, 600 s), after an outage
        cost.send(sample("GPU-C", T0.plusSeconds(600), 300));
        for (int end = 370; end <= 600; end += 10) {
            cost.send(sample("GPU-A", T0.plusSeconds(end), 10));
        }
        collectWindows();

        // Then GPU-C is charged the 180 s of its open minutes 7, 8 and 9, 60 s each
        for (int minute = 7; minute <= 9; minute++) {
            assertThat(windows.get("GPU-C@" + T0.plusSeconds(60L * minute)).secondsObserved()).isEqualTo(60.0);
        }
        assertThat(windows.keySet()).filteredOn(key -> key.startsWith("GPU-C@")).hasSize(3);
        // And GPU-A the 180 s of the same minutes, its six samples of minute 6 refused as late
        assertThat(windows.values().stream().filter(w -> w.gpuUuid().equals("GPU-A"))
                .mapToDouble(GpuUsage::secondsObserved).sum()).isEqualTo(180.0);
        assertThat(cost.deadLettersCounted("telemetry-late")).isEqualTo(6.0);
        assertThat(cost.telemetryDeadLetters.readRecordsToList()).hasSize(6)
                .allSatisfy(record -> assertThat(record.key()).isEqualTo("GPU-A"));
        // And the seconds of the closed minutes 5 and 6 are counted as late: GPU-C's 120, GPU-A's 60
        assertThat(lateSeconds()).isEqualTo(120.0 + 60.0);
        // And GPU-B lost nothing
        assertThat(windows.values().stream().filter(w -> w.gpuUuid().equals("GPU-B"))
                .mapToDouble(GpuUsage::secondsObserved).sum()).isEqualTo(600.0);
    }

    /** GPU-1's samples of {@code interval} seconds, ending {@code firstEnd} to {@code lastEnd} seconds after T0. */
    private static List<TelemetrySample> everyInterval(int interval, int firstEnd, int lastEnd) {
        List<TelemetrySample> samples = new ArrayList<>();
        for (int end = firstEnd; end <= lastEnd; end += interval) {
            samples.add(sample("GPU-1", T0.plusSeconds(end), interval));
        }
        return samples;
    }

    /** Sends the agents' samples in the order of their times, as they are taken. */
    private void sendInTimeOrder(List<TelemetrySample> oneAgent, List<TelemetrySample> another) {
        List<TelemetrySample> samples = new ArrayList<>(oneAgent);
        samples.addAll(another);
        samples.sort(Comparator.comparing(TelemetrySample::time));
        for (TelemetrySample sample : samples) {
            cost.send(sample);
            collectWindows();
        }
    }

    private double total(java.util.function.ToDoubleFunction<GpuUsage> figure) {
        return windows.values().stream().mapToDouble(figure).sum();
    }

    /** The latest update of each GPU window sent so far, by GPU and window start. */
    private void collectWindows() {
        cost.usage.readValuesToList().forEach(w -> windows.put(w.gpuUuid() + "@" + w.windowStart(), w));
    }

    private double lateSeconds() {
        return cost.driver.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("late-seconds-total")
                        && "telemetry".equals(e.getKey().tags().get("gpuledger-id")))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }

    private void publishPrice(double perHour, Instant validFrom) {
        cost.publish(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8, perHour,
                "USD", validFrom, "test"));
    }

    private static TelemetrySample sample(String gpu, Instant end, double interval) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB")
                .placement(new Placement("node-" + gpu, "i-" + gpu, "p4d.24xlarge", "aws", "us-east-1",
                        Lifecycle.ON_DEMAND))
                .jobId("train").time(end).intervalSeconds(interval).smActive(0.5).build();
    }
}
