package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's clock, which judges lateness and closes windows, against samples whose agents'
 * clocks run ahead: such a node is refused, and harms no other GPU of its partition.
 */
class EngineClockTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    /** 32 USD an hour for the 8 GPUs of a p4d.24xlarge. */
    private static final double GPU_PER_HOUR = 32.0 / 8;

    private CostDriver cost;
    private final Map<String, GpuUsage> windows = new LinkedHashMap<>();

    @BeforeEach
    void startDriver() {
        cost = new CostDriver("engine-clock-test", T0);
        cost.publish(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8, 32.0,
                "USD", T0.minus(Duration.ofDays(1)), "test"));
    }

    @AfterEach
    void stopDriver() {
        cost.close();
    }

    @Test
    void shouldChargeAllOfAnOnTimeGpusTimeWhileAnotherOnItsPartitionIsStampedFiveMinutesAhead() {
        // Given GPU-B on time and GPU-A, on a node whose clock runs 5 minutes fast, both sampled
        // every 10 s for 10 minutes, on the same partition, the wall clock keeping up with GPU-B
        for (int end = 10; end <= 600; end += 10) {
            cost.send(sample("GPU-B", T0.plusSeconds(end)));
            cost.sendAsStamped(sample("GPU-A", T0.plusSeconds(end + 300)));
            collectWindows();
        }

        // Then every second of GPU-B's 10 minutes is charged: 600 s at 4 USD/h, 0.6667 USD
        List<GpuUsage> gpuB = windows.values().stream().filter(w -> w.gpuUuid().equals("GPU-B")).toList();
        assertThat(gpuB).hasSize(10);
        assertThat(gpuB.stream().mapToDouble(GpuUsage::secondsObserved).sum()).isEqualTo(600.0);
        assertThat(gpuB.stream().mapToDouble(GpuUsage::cost).sum()).isCloseTo(600 * GPU_PER_HOUR / 3600,
                within(1e-9));
        // And none of GPU-A's time went into a window that had not happened yet
        assertThat(windows.values()).noneMatch(w -> w.gpuUuid().equals("GPU-A"));
        // And each of GPU-A's 60 samples is kept as from the future and counted so, not as late
        List<TestRecord<String, byte[]>> refused = cost.telemetryDeadLetters.readRecordsToList();
        assertThat(refused).hasSize(60).allSatisfy(record -> {
            assertThat(record.key()).isEqualTo("GPU-A");
            assertThat(DeadLetters.header(record.headers(), DeadLetters.REASON)).startsWith("time: from the future:");
        });
        assertThat(cost.deadLettersCounted("telemetry-future")).isEqualTo(60.0);
        assertThat(cost.deadLettersCounted("telemetry-late")).isZero();
    }

    @Test
    void shouldChargeASampleStampedAheadOfTheWallClockByLessThanTheAllowance() {
        // Given the allowance is 30 s by default
        assertThat(CostSettings.DEFAULT_MAX_AHEAD).isEqualTo(Duration.ofSeconds(30));

        // When a sample ending 20 s from now arrives, then (the wall clock moved on by two
        // updates, 4 s) one ending 40 s from then
        cost.sendAsStamped(sample("GPU-A", T0.plusSeconds(20)));
        cost.sendAsStamped(sample("GPU-B", T0.plusSeconds(4 + 40)));
        collectWindows();

        // Then the first is charged its 10 s and the second is refused as from the future
        assertThat(windows.get("GPU-A@" + T0).secondsObserved()).isEqualTo(10.0);
        assertThat(windows).doesNotContainKey("GPU-B@" + T0);
        assertThat(cost.deadLettersCounted("telemetry-future")).isEqualTo(1.0);
    }

    @Test
    void shouldRefuseAWorkReportStampedAheadOfTheWallClockByMoreThanTheAllowance() {
        // Given a GPU of job train sampled for a minute, the wall clock keeping up with it
        for (int end = 10; end <= 60; end += 10) {
            cost.send(sample("GPU-B", T0.plusSeconds(end)));
        }
        Instant now = cost.now();

        // When its node reports a minute of work stamped 20 s ahead of the wall clock, and a node
        // whose clock runs 2 minutes fast reports its own work of the same minute
        cost.reportAsStamped(tokens("node-GPU-B", now.plusSeconds(20), 1_000));
        cost.reportAsStamped(tokens("node-fast", now.plusSeconds(4 + 120), 5_000));

        // Then the first is taken and the second refused as from the future, with the allowance named
        List<TestRecord<String, byte[]>> refused = cost.progressDeadLetters.readRecordsToList();
        assertThat(refused).hasSize(1);
        assertThat(DeadLetters.header(refused.get(0).headers(), DeadLetters.REASON))
                .startsWith("time: from the future: " + now.plusSeconds(4 + 120))
                .contains("more than 30 s ahead");
        assertThat(cost.deadLettersCounted("job-progress")).isEqualTo(1.0);
    }

    @Test
    void shouldTakeWorkReportsAsFarAheadAsTheEngineIsToldTo() {
        // Given an engine told to take samples and reports up to 3 minutes ahead
        try (CostDriver lenient = new CostDriver("engine-clock-lenient-test", T0,
                CostSettings.of(CostDriver.GRACE, CurrencyRates.shipped("USD")).withMaxAhead(Duration.ofMinutes(3)))) {
            // When a node whose clock runs 2 minutes fast sends a sample and a report
            lenient.sendAsStamped(sample("GPU-A", T0.plusSeconds(120)));
            lenient.reportAsStamped(tokens("node-GPU-A", T0.plusSeconds(4 + 120), 1_000));

            // Then neither is refused
            assertThat(lenient.deadLettersCounted("telemetry-future")).isZero();
            assertThat(lenient.deadLettersCounted("job-progress")).isZero();
            assertThat(lenient.progressDeadLetters.readRecordsToList()).isEmpty();
        }
    }

    @Test
    void shouldChargeAllOfAnOnTimeGpusTimeWhileCatchingUpOnABacklogInWhichAnotherRanFiveMinutesAhead() {
        // Given ten minutes of backlog, in which GPU-B's node was on time and GPU-A's ran 5 minutes
        // fast, and an engine that starts after it: every sample lies in its wall clock's past
        Map<Boolean, Map<String, Double>> observed = new LinkedHashMap<>();
        for (boolean byBroker : List.of(true, false)) {
            CostSettings settings = CostSettings.of(CostDriver.GRACE, CurrencyRates.shipped("USD"));
            try (CostDriver catchingUp = new CostDriver("engine-clock-backlog-test-" + byBroker, T0,
                    byBroker ? settings.withBrokerStamped(Set.of(Topics.TELEMETRY.name(),
                            Topics.JOB_PROGRESS.name())) : settings)) {
                catchingUp.publish(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND,
                        "A100-40GB", 8, 32.0, "USD", T0.minus(Duration.ofDays(1)), "test"));
                catchingUp.advance(Duration.ofMinutes(15));
                // When it reads them in the order the broker took them, each dated by it
                for (int end = 10; end <= 600; end += 10) {
                    Instant taken = T0.plusSeconds(end);
                    catchingUp.sendTakenAt(sample("GPU-B", taken), taken);
                    catchingUp.sendTakenAt(sample("GPU-A", taken.plusSeconds(300)), taken);
                }
                catchingUp.reportTakenAt(tokens("node-GPU-A", T0.plusSeconds(600 + 300), 1_000),
                        T0.plusSeconds(600));
                Map<String, Double> seconds = new LinkedHashMap<>();
                catchingUp.usage.readValuesToList().forEach(w -> seconds.merge(w.gpuUuid() + "@" + w.windowStart(),
                        w.secondsObserved(), Math::max));
                Map<String, Double> perGpu = new LinkedHashMap<>();
                seconds.forEach((key, value) -> perGpu.merge(key.substring(0, key.indexOf('@')), value, Double::sum));
                perGpu.put("future", catchingUp.deadLettersCounted("telemetry-future"));
                perGpu.put("late", catchingUp.deadLettersCounted("telemetry-late"));
                perGpu.put("reports refused", catchingUp.deadLettersCounted("job-progress"));
                observed.put(byBroker, perGpu);
            }
        }

        // Then, where the broker dates the telemetry, all 600 s of GPU-B are charged, none of
        // GPU-A's, whose 60 samples and its report are refused as from the future
        Map<String, Double> byBroker = observed.get(true);
        assertThat(byBroker.get("GPU-B")).isEqualTo(600.0);
        assertThat(byBroker).doesNotContainKey("GPU-A");
        assertThat(byBroker.get("future")).isEqualTo(60.0);
        assertThat(byBroker.get("late")).isZero();
        assertThat(byBroker.get("reports refused")).isEqualTo(1.0);
        // while, dated by their producers, GPU-A's samples pass and GPU-B loses minutes as late
        Map<String, Double> byProducers = observed.get(false);
        assertThat(byProducers.get("GPU-A")).isPositive();
        assertThat(byProducers.get("late")).isPositive();
        assertThat(byProducers.get("GPU-B")).isLessThan(600.0);
    }

    private void collectWindows() {
        cost.usage.readValuesToList().forEach(w -> windows.put(w.gpuUuid() + "@" + w.windowStart(), w));
    }

    /** {@code units} tokens of job train done on {@code host} in the 60 s before {@code time}. */
    private static JobProgress tokens(String host, Instant time, double units) {
        return new JobProgress("train", "research", host, "i-" + host, List.of(), time, 60, units, "tokens", 10, null,
                null, null, null);
    }

    private static TelemetrySample sample(String gpu, Instant end) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB")
                .placement(new Placement("node-" + gpu, "i-" + gpu, "p4d.24xlarge", "aws", "us-east-1",
                        Lifecycle.ON_DEMAND))
                .jobId("train").time(end).intervalSeconds(10).smActive(0.5).build();
    }
}
