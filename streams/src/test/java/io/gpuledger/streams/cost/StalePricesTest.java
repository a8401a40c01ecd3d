package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.UsageRollup;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A price feed that goes quiet: samples keep being charged at the last price known, and the time
 * charged more than the maximum age (30 minutes) after the price's latest confirmation is counted
 * as stale-priced. Time is pinned: one GPU sends a sample covering each minute, at the minute's end.
 */
class StalePricesTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final PriceQuote PRICE = new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND,
            "A100-40GB", 8, 32.0, "USD", T0.minus(Duration.ofDays(1)), "test");
    private static final double GPU_PER_HOUR = 32.0 / 8;
    private static final String POOL = "pool|aws|us-east-1|p4d.24xlarge|on-demand";

    private CostDriver cost;
    private Instant wallClock = T0;
    private final Map<Instant, GpuUsage> windows = new HashMap<>();
    private final Map<String, UsageRollup> rollups = new HashMap<>();
    private final Map<Instant, JobEconomics> economics = new HashMap<>();

    @BeforeEach
    void startDriver() {
        cost = new CostDriver("stale-prices-test", T0);
    }

    @AfterEach
    void stopDriver() {
        cost.close();
    }

    @Test
    void shouldChargeTheHourTheFeedWasSilentAtTheLastPriceAndFlagOnlyItsTimeBeyondTheMaxAge() {
        // Given a feed that confirms the price every 5 minutes for an hour, falls silent for an
        // hour, then comes back and confirms it every 5 minutes again, while the GPU reports on
        publish(PRICE.confirmedAt(T0));
        for (int minute = 1; minute <= 180; minute++) {
            send(minute);
            boolean feedRunning = minute <= 60 || minute >= 120;
            if (feedRunning && minute % 5 == 0) {
                publish(PRICE.confirmedAt(T0.plusSeconds(60L * minute)));
            }
        }

        // Then every minute is charged at the one price, exactly
        assertThat(windows).hasSize(180);
        for (GpuUsage window : windows.values()) {
            assertThat(window.cost()).as("cost of %s", window.windowStart())
                    .isCloseTo(60 * GPU_PER_HOUR / 3600, within(1e-15));
            assertThat(window.unpricedSeconds()).isZero();
        }
        // And the minutes from half an hour after the last confirmation (minute 60) until the feed came
        // back are stale-priced in full, and no other minute is at all
        for (int minute = 0; minute < 180; minute++) {
            double expected = minute >= 90 && minute < 120 ? 60 : 0;
            assertThat(windows.get(minute(minute)).stalePricedSeconds()).as("stale-priced seconds of minute %d", minute)
                    .isEqualTo(expected);
        }
        // And the hours say so: the silent hour half stale-priced, the hours before and after not at all
        assertThat(rollup(POOL, 0, Duration.ofHours(1)).totals().stalePricedSeconds()).isZero();
        assertThat(rollup(POOL, 60, Duration.ofHours(1)).totals().stalePricedSeconds()).isEqualTo(1800.0);
        assertThat(rollup(POOL, 60, Duration.ofHours(1)).totals().cost()).isCloseTo(GPU_PER_HOUR, within(1e-12));
        assertThat(rollup(POOL, 120, Duration.ofHours(1)).totals().stalePricedSeconds()).isZero();
        assertThat(rollup("gpu|GPU-1", 60, Duration.ofHours(1)).totals().stalePricedSeconds()).isEqualTo(1800.0);
        assertThat(rollup("job|train", 95, Duration.ofMinutes(1)).totals().stalePricedSeconds()).isEqualTo(60.0);
        assertThat(rollup("job|train", 125, Duration.ofMinutes(1)).totals().stalePricedSeconds()).isZero();
        assertThat(economics.get(minute(95)).stalePricedSeconds()).isEqualTo(60.0);
        assertThat(economics.get(minute(89)).stalePricedSeconds()).isZero();
    }

    @Test
    void shouldTakeAVersionNeverConfirmedAsObservedWhenItBecameValid() {
        // Given a version written before confirmations existed, valid from a day ago
        publish(PRICE);

        // When a sample of now comes
        send(1);

        // Then it is charged at that version, and flagged
        GpuUsage window = windows.get(minute(0));
        assertThat(window.cost()).isCloseTo(60 * GPU_PER_HOUR / 3600, within(1e-15));
        assertThat(window.stalePricedSeconds()).isEqualTo(60.0);
    }

    @Test
    void shouldNoLongerFlagTheSilentHourWhenItIsReplayedAfterTheFeedConfirmedThePriceAgain() {
        // Given the topic as compaction leaves it once the feed is back: the version, confirmed at minute 120
        publish(PRICE.confirmedAt(T0.plusSeconds(120 * 60)));

        // When the silent hour's samples are processed again
        for (int minute = 61; minute <= 120; minute++) {
            send(minute);
        }

        // Then none of them is stale-priced: the later confirmation vouches for the hour before it
        assertThat(windows.values()).allSatisfy(window -> assertThat(window.stalePricedSeconds()).isZero());
    }

    private void publish(PriceQuote quote) {
        cost.prices.pipeInput(quote.key(), quote, quote.observedAt());
    }

    /** The GPU's sample covering minute {@code minute - 1}, sent at its end, and what came out after it. */
    private void send(int minute) {
        TelemetrySample sample = TelemetrySample.builder().gpuUuid("GPU-1")
                .placement(new Placement("node-a", "i-a", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND))
                .jobId("train").time(minute(minute)).intervalSeconds(60).smActive(0.9).build();
        // The wall clock keeps up with the samples (it is at the sample's end when the sample
        // comes) and passes two update intervals after each: the GPU windows send their partials,
        // then the roll-ups theirs.
        Duration behind = Duration.between(wallClock, sample.time());
        if (!behind.isNegative() && !behind.isZero()) {
            advance(behind);
        }
        cost.telemetry.pipeInput(new TestRecord<>(sample.gpuUuid(), Json.write(sample), sample.time()));
        advance(CostSettings.DEFAULT_UPDATE_INTERVAL);
        advance(CostSettings.DEFAULT_UPDATE_INTERVAL);
        cost.usage.readValuesToList().forEach(window -> windows.put(window.windowStart(), window));
        cost.rollups.readValuesToList().forEach(rollup -> rollups.put(rollup.key() + "|" + rollup.windowStart() + "|"
                + Duration.between(rollup.windowStart(), rollup.windowEnd()), rollup));
        cost.economics.readValuesToList().forEach(jobMinute -> economics.put(jobMinute.windowStart(), jobMinute));
    }

    private void advance(Duration by) {
        cost.advance(by);
        wallClock = wallClock.plus(by);
    }

    private UsageRollup rollup(String key, int startMinute, Duration length) {
        UsageRollup rollup = rollups.get(key + "|" + minute(startMinute) + "|" + length);
        assertThat(rollup).as("roll-up %s from minute %d for %s", key, startMinute, length).isNotNull();
        return rollup;
    }

    private static Instant minute(int minute) {
        return T0.plusSeconds(60L * minute);
    }
}
