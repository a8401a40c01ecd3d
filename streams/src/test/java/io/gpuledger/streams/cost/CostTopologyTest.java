package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.CurrencyRates;
import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Reading;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CostTopologyTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final String GPU = "GPU-5fd4f087-86f3-7a43-b711-4771313afc50";

    private CostDriver cost;
    private TopologyTestDriver driver;
    private TestInputTopic<String, PriceQuote> prices;
    private TestInputTopic<String, byte[]> telemetry;
    private TestOutputTopic<String, GpuUsage> usage;
    private TestOutputTopic<String, byte[]> deadLetters;

    @BeforeEach
    void startDriver() {
        cost = new CostDriver("cost-topology-test", T0);
        driver = cost.driver;
        prices = cost.prices;
        telemetry = cost.telemetry;
        usage = cost.usage;
        deadLetters = cost.telemetryDeadLetters;
    }

    @AfterEach
    void stopDriver() {
        cost.close();
    }

    @Test
    void shouldChargeEachSampleAtThePriceInForceAtItsTime() {
        // Given the on-demand p4d price, raised from 32.77 to 40.00 half a minute into the window
        publishPrice(32.77, T0.minus(Duration.ofDays(30)));
        publishPrice(40.00, T0.plusSeconds(30));

        // When six 10-second samples arrive; midpoints at :05 :15 :25 fall before the change, :35 :45 :55 after
        for (int i = 1; i <= 6; i++) {
            send(sample(T0.plusSeconds(10L * i), 10, 0.8));
        }

        // Then each sample was charged at the price of its own time, per GPU (8 GPUs per instance)
        GpuUsage window = latestWindows().get(T0);
        double expected = 30.0 / 3600 * 32.77 / 8 + 30.0 / 3600 * 40.00 / 8;
        assertThat(window.cost()).isCloseTo(expected, within(1e-12));
        assertThat(window.currency()).isEqualTo("USD");
        assertThat(window.secondsObserved()).isEqualTo(60.0);
        assertThat(window.unpricedSeconds()).isZero();
        assertThat(window.samples()).isEqualTo(6);
        assertThat(window.windowEnd()).isEqualTo(T0.plusSeconds(60));
    }

    @Test
    void shouldChargeEachSecondOfASampleAtThePriceInForceAtThatSecond() {
        // Given a price raised from 32.77 to 40.00 at 13.2 s into the minute, inside a sample's interval
        publishPrice(32.77, T0.minus(Duration.ofDays(30)));
        publishPrice(40.00, T0.plusMillis(13_200));

        // When one 10-second sample covers 10 s to 20 s
        send(sample(T0.plusSeconds(20), 10, 0.8));

        // Then its seconds 10, 11 and 12 (middles 10.5 to 12.5 s) are charged the old price, and the
        // seven from 13 on (middles 13.5 to 19.5 s) the new one, per GPU of the 8
        GpuUsage window = latestWindows().get(T0);
        double expected = 3.0 / 3600 * 32.77 / 8 + 7.0 / 3600 * 40.00 / 8;
        assertThat(window.cost()).isCloseTo(expected, within(1e-12));
        assertThat(window.secondsObserved()).isEqualTo(10.0);
        assertThat(window.samples()).isEqualTo(1);
    }

    @Test
    void shouldUseAPriceChangeThatArrivesAfterTheSamplesOnlyForLaterSamples() {
        // Given a price, and samples already charged at it
        publishPrice(32.77, T0.minus(Duration.ofDays(30)));
        send(sample(T0.plusSeconds(10), 10, 0.8));
        // When a new version, valid from now on, arrives, and a late sample of the earlier time follows
        publishPrice(50.00, T0.plusSeconds(20));
        send(sample(T0.plusSeconds(30), 10, 0.8));
        send(sample(T0.plusSeconds(20), 10, 0.8));

        // Then the late sample is still charged at the price of its own time
        double expected = 20.0 / 3600 * 32.77 / 8 + 10.0 / 3600 * 50.00 / 8;
        assertThat(latestWindows().get(T0).cost()).isCloseTo(expected, within(1e-12));
    }

    @Test
    void shouldCountSamplesWithoutAPriceAsUnpricedAndChargeNothing() {
        publishPrice(32.77, T0.minus(Duration.ofDays(30)));

        send(sample(T0.plusSeconds(10), 10, 0.5));
        send(sampleOn(Lifecycle.SPOT, T0.plusSeconds(20), 10));

        GpuUsage window = latestWindows().get(T0);
        assertThat(window.secondsObserved()).isEqualTo(20.0);
        assertThat(window.unpricedSeconds()).isEqualTo(10.0);
        assertThat(window.cost()).isCloseTo(10.0 / 3600 * 32.77 / 8, within(1e-12));
    }

    @Test
    void shouldChargeAMigSliceItsShareOfTheGpu() {
        publishPrice(32.77, T0.minus(Duration.ofDays(30)));

        send(sample(T0.plusSeconds(10), 10, 0.5).toBuilder().migProfile("3g.20gb").gpuFraction(3.0 / 7).build());

        assertThat(latestWindows().get(T0).cost()).isCloseTo(10.0 / 3600 * 32.77 / 8 * 3 / 7, within(1e-12));
    }

    @Test
    void shouldAverageSmActivityOverTimeAndOpenANewWindowEachMinute() {
        publishPrice(32.77, T0.minus(Duration.ofDays(30)));

        send(sample(T0.plusSeconds(10), 10, 0.9));
        send(sample(T0.plusSeconds(40), 30, 0.1));
        send(sample(T0.plusSeconds(70), 10, 0.02));

        Map<Instant, GpuUsage> windows = latestWindows();
        assertThat(windows).containsOnlyKeys(T0, T0.plusSeconds(60));
        assertThat(windows.get(T0).smActive()).isCloseTo((0.9 * 10 + 0.1 * 30) / 40, within(1e-12));
        assertThat(windows.get(T0.plusSeconds(60)).smActive()).isCloseTo(0.02, within(1e-12));
        assertThat(windows.get(T0.plusSeconds(60)).secondsObserved()).isEqualTo(10.0);
    }

    @Test
    void shouldRouteCorruptTelemetryToDeadLetterTopic() {
        publishPrice(32.77, T0.minus(Duration.ofDays(30)));
        byte[] corrupt = "{\"gpuUuid\":\"GPU-1\",\"smActive\":".getBytes(StandardCharsets.UTF_8);
        byte[] outOfRange = Json.write(sample(T0.plusSeconds(10), 10, 0.5)).clone();
        String tooBusy = new String(outOfRange, StandardCharsets.UTF_8).replace("\"smActive\":0.5", "\"smActive\":7");

        telemetry.pipeInput(new TestRecord<>("GPU-1", corrupt, T0));
        telemetry.pipeInput(new TestRecord<>(GPU, tooBusy.getBytes(StandardCharsets.UTF_8), T0));
        send(sample(T0.plusSeconds(20), 10, 0.5));

        List<TestRecord<String, byte[]>> refused = deadLetters.readRecordsToList();
        assertThat(refused).hasSize(2);
        assertThat(refused.get(0).value()).isEqualTo(corrupt);
        assertThat(header(refused.get(0), DeadLetters.REASON)).contains("invalid TelemetrySample");
        assertThat(header(refused.get(0), DeadLetters.SOURCE_TOPIC)).isEqualTo(Topics.TELEMETRY.name());
        assertThat(header(refused.get(0), DeadLetters.SOURCE_OFFSET)).isEqualTo("0");
        assertThat(header(refused.get(1), DeadLetters.FIELD)).isEqualTo("smActive");
        assertThat(header(refused.get(1), DeadLetters.REASON))
                .isEqualTo("smActive: must be a ratio between 0 and 1, was 7.0");
        assertThat(header(refused.get(1), DeadLetters.SOURCE_OFFSET)).isEqualTo("1");
        // and the good sample after them is still charged, and the refusals are counted
        assertThat(latestWindows().get(T0).samples()).isEqualTo(1);
        assertThat(deadLettersCounted("telemetry")).isEqualTo(2.0);
    }

    /**
     * Once a GPU is followed, its samples are read taking its identity from the last one written
     * alike: a refusal, another GPU's body under its key and a change of job still come out as
     * for a GPU seen the first time.
     */
    @Test
    void shouldJudgeAndChargeAFollowedGpusSamplesAsAnyOther() {
        publishPrice(32.77, T0.minus(Duration.ofDays(30)));
        send(sample(T0.plusSeconds(10), 10, 0.5));
        String tooBusy = Json.writeString(sample(T0.plusSeconds(20), 10, 0.5)).replace("\"smActive\":0.5",
                "\"smActive\":7");
        telemetry.pipeInput(new TestRecord<>(GPU, tooBusy.getBytes(StandardCharsets.UTF_8), T0));
        telemetry.pipeInput(new TestRecord<>(GPU, Json.write(sample(T0.plusSeconds(20), 10, 0.5).toBuilder()
                .gpuUuid("GPU-another").build()), T0));
        send(sample(T0.plusSeconds(30), 10, 0.5).toBuilder().jobId("train-llm-2").build());

        List<TestRecord<String, byte[]>> refused = deadLetters.readRecordsToList();
        assertThat(refused).extracting(record -> header(record, DeadLetters.FIELD)).containsExactly("smActive", "$key");
        GpuUsage window = latestWindows().get(T0);
        assertThat(window.samples()).isEqualTo(2);
        assertThat(window.jobId()).isEqualTo("train-llm-2");
        assertThat(deadLettersCounted("telemetry")).isEqualTo(2.0);
    }

    @Test
    void shouldRefuseTelemetryKeyedByAnythingButItsGpu() {
        telemetry.pipeInput(new TestRecord<>("node-a1", Json.write(sample(T0.plusSeconds(10), 10, 0.5)), T0));

        TestRecord<String, byte[]> refused = deadLetters.readRecord();
        assertThat(header(refused, DeadLetters.FIELD)).isEqualTo("$key");
        assertThat(usage.isEmpty()).isTrue();
    }

    @Test
    void shouldAddALateSampleWithinGraceAndRefuseOneLaterStill() {
        publishPrice(32.77, T0.minus(Duration.ofDays(30)));
        send(sample(T0.plusSeconds(10), 10, 0.5));
        // Stream time moves two and a half minutes on: the first window has ended, its grace (2 min) not yet
        send(sample(T0.plusSeconds(150), 10, 0.5));
        send(sample(T0.plusSeconds(20), 10, 0.5));
        // and then past the grace of the first window
        send(sample(T0.plusSeconds(190), 10, 0.5));
        send(sample(T0.plusSeconds(30), 10, 0.5));

        assertThat(latestWindows().get(T0).samples()).isEqualTo(2);
        TestRecord<String, byte[]> late = deadLetters.readRecord();
        assertThat(header(late, DeadLetters.FIELD)).isEqualTo("time");
        assertThat(header(late, DeadLetters.REASON)).startsWith("time: late: its window ended at 2026-03-01T12:01:00Z");
        assertThat(deadLetters.isEmpty()).isTrue();
        assertThat(deadLettersCounted("telemetry-late")).isEqualTo(1.0);
    }

    @Test
    void shouldRefuseASampleSentAgainAndChargeItOnce() {
        // Given a GPU's three 10-second samples
        publishPrice(32.77, T0.minus(Duration.ofDays(30)));
        sendTenSecondSamplesEndingAt(10_000, 20_000, 30_000);

        // When its agent sends the second and the last one again (a resend after its own crash, say)
        sendTenSecondSamplesEndingAt(20_000, 30_000);

        // Then each is charged once, and the copies are kept with the reason
        GpuUsage window = latestWindows().get(T0);
        assertThat(window.samples()).isEqualTo(3);
        assertThat(window.cost()).isCloseTo(30.0 / 3600 * 32.77 / 8, within(1e-12));
        List<TestRecord<String, byte[]>> refused = deadLetters.readRecordsToList();
        assertThat(refused).hasSize(2).allSatisfy(record -> {
            assertThat(header(record, DeadLetters.FIELD)).isEqualTo("time");
            assertThat(header(record, DeadLetters.REASON)).startsWith("time: duplicate: all the time it covers");
        });
        assertThat(header(refused.get(0), DeadLetters.REASON)).contains("2026-03-01T12:00:10Z to 2026-03-01T12:00:20Z");
        assertThat(deadLettersCounted("telemetry-duplicate")).isEqualTo(2.0);
    }

    @Test
    void shouldChargeSamplesThatOverlapEarlierOnesOnlyForTheSecondsTheyAdd() {
        publishPrice(32.77, T0.minus(Duration.ofDays(30)));
        // Given samples every 10 s whose times wander by up to a second (each says it covers 10 s):
        // they cover the seconds whose middle they span, :00–:09, :11–:20 and :20–:29
        sendTenSecondSamplesEndingAt(10_000, 20_900, 30_400);
        // When a second agent starts reporting the same GPU, 4 s after the first each time: it
        // covers :24–:33, :30–:39 and :34–:43
        sendTenSecondSamplesEndingAt(34_400, 40_000, 44_000);

        // Then each sample is charged the seconds it adds: 10 + 10 + 9 (:20 was covered), then
        // 4 (:30–:33), 6 (:34–:39) and 4 (:40–:43), 43 s in all, and none is refused
        GpuUsage window = latestWindows().get(T0);
        assertThat(window.samples()).isEqualTo(6);
        assertThat(window.secondsObserved()).isCloseTo(10 + 10 + 9 + 4 + 6 + 4, within(1e-9));
        assertThat(window.cost()).isCloseTo(43.0 / 3600 * 32.77 / 8, within(1e-12));
        assertThat(deadLetters.readRecordsToList()).isEmpty();
        assertThat(deadLettersCounted("telemetry-duplicate")).isZero();
    }

    @Test
    void shouldConvertPricesIntoTheReportingCurrency() {
        PriceQuote yuan = new PriceQuote("tencent", "ap-shanghai", "GN10Xp", Lifecycle.ON_DEMAND, "A100-80GB", 1, 28.5,
                "CNY", T0.minus(Duration.ofDays(1)), "test");
        prices.pipeInput(yuan.key(), yuan, T0);

        send(sampleOn(Lifecycle.ON_DEMAND, T0.plusSeconds(60), 60).toBuilder()
                .placement(new Placement("node-t", "ins-1", "GN10Xp", "tencent", "ap-shanghai", Lifecycle.ON_DEMAND))
                .build());

        GpuUsage window = latestWindows().get(T0);
        assertThat(window.currency()).isEqualTo("USD");
        assertThat(window.cost()).isCloseTo(28.5 * 0.14 / 60, within(1e-12));
        assertThat(window.unpricedSeconds()).isZero();
    }

    @Test
    void shouldChargeReservedCapacityItsEffectiveReservedRate() {
        publishPrice(32.77, T0.minus(Duration.ofDays(30)));
        PriceQuote reserved = new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.RESERVED, "A100-40GB", 8,
                21.3005, "USD", T0.minus(Duration.ofDays(30)), "test");
        prices.pipeInput(reserved.key(), reserved, T0);

        send(sampleOn(Lifecycle.RESERVED, T0.plusSeconds(60), 60));

        assertThat(latestWindows().get(T0).costPerHour()).isCloseTo(21.3005 / 8, within(1e-9));
    }

    @Test
    void shouldCountIdleCostEnergyAndMeansOfTheReadingsThatWereThere() {
        publishPrice(36.0, T0.minus(Duration.ofDays(30)));

        send(sample(T0.plusSeconds(20), 20, 0.01).toBuilder().powerWatts(90.0).dramActive(0.02).build());
        send(sample(T0.plusSeconds(60), 40, 0.8).toBuilder().powerWatts(400.0).tensorActive(0.5)
                .nvlinkTxBytesPerSecond(1e9).build());

        GpuUsage window = latestWindows().get(T0);
        assertThat(window.totals().idleSeconds()).isEqualTo(20.0);
        assertThat(window.totals().idleCost()).isCloseTo(36.0 / 8 * 20 / 3600, within(1e-12));
        assertThat(window.totals().energyKwh()).isCloseTo((90.0 * 20 + 400.0 * 40) / 3_600_000, within(1e-12));
        assertThat(window.totals().mean(Reading.POWER_WATTS).value())
                .isCloseTo((90.0 * 20 + 400.0 * 40) / 60, within(1e-9));
        assertThat(window.totals().mean(Reading.DRAM_ACTIVE).value()).isCloseTo(0.02, within(1e-12));
        assertThat(window.totals().mean(Reading.TENSOR_ACTIVE).value()).isCloseTo(0.5, within(1e-12));
        assertThat(window.totals().nvlinkBytes()).isEqualTo(40e9);
        assertThat(window.smActive()).isCloseTo((0.01 * 20 + 0.8 * 40) / 60, within(1e-12));
    }

    @Test
    void shouldChargeTheTimeOfASampleWithoutAnActivityReadingAndCountNoneOfItIdle() {
        // Given 36 USD/h for an instance of 8 GPUs: 4.5 USD per GPU-hour
        publishPrice(36.0, T0.minus(Duration.ofDays(30)));

        // When a GPU sends 20 s with no activity reading, then 40 s at 1% (idle)
        send(sample(T0.plusSeconds(20), 20, 0.5).toBuilder().smActive(null).build());
        send(sample(T0.plusSeconds(60), 40, 0.01));

        // Then all 60 s are charged: 4.5 × 60 / 3600 = 0.075 USD
        GpuUsage window = latestWindows().get(T0);
        assertThat(window.secondsObserved()).isEqualTo(60.0);
        assertThat(window.cost()).isCloseTo(0.075, within(1e-12));
        // only the 40 s at 1% are idle (4.5 × 40 / 3600 = 0.05 USD); the 20 s unknown are neither idle nor busy
        assertThat(window.totals().idleSeconds()).isEqualTo(40.0);
        assertThat(window.totals().idleCost()).isCloseTo(0.05, within(1e-12));
        assertThat(window.totals().activityUnknownSeconds()).isEqualTo(20.0);
        // and the mean activity is that of the 40 s known, not pulled down by the unknown 20 s
        assertThat(window.smActive()).isCloseTo(0.01, within(1e-12));
    }

    @Test
    void shouldNameEveryOperatorStoreAndRepartitionTopicOfTheWholeEngine() {
        String description = CostTopology.build(CostDriver.GRACE, CurrencyRates.shipped("USD")).describe().toString();

        assertThat(description).doesNotContain("KSTREAM-").doesNotContain("KTABLE-")
                .contains("rollup-partials-repartition", CostTopology.USAGE_STORE, CostTopology.PARTIALS_STORE,
                        CostTopology.CLOCK_STORE, CostTopology.ROLLUP_STORE, CostTopology.ROLLUP_MINUTES_STORE,
                        CostTopology.SOURCES_STORE,
                        CostTopology.PRICE_STORE);
    }

    private void publishPrice(double pricePerHour, Instant validFrom) {
        PriceQuote quote = new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8,
                pricePerHour, "USD", validFrom, "test");
        prices.pipeInput(quote.key(), quote, T0);
    }

    private void send(TelemetrySample sample) {
        cost.send(sample);
    }

    /** Samples of 10 s each, at half SM activity, ending so many milliseconds after {@code T0}. */
    private void sendTenSecondSamplesEndingAt(long... millisAfterT0) {
        for (long millis : millisAfterT0) {
            send(sample(T0.plusMillis(millis), 10, 0.5));
        }
    }

    private static TelemetrySample sample(Instant end, double interval, double smActive) {
        return sampleOn(Lifecycle.ON_DEMAND, end, interval).toBuilder().smActive(smActive).build();
    }

    private static TelemetrySample sampleOn(Lifecycle lifecycle, Instant end, double interval) {
        return TelemetrySample.builder().gpuUuid(GPU).gpuModel("A100-40GB")
                .placement(new Placement("node-a1", "i-0abc", "p4d.24xlarge", "aws", "us-east-1", lifecycle))
                .jobId("train-llm").time(end).intervalSeconds(interval).smActive(0.5).build();
    }

    /** The last update of each window, by window start. */
    private Map<Instant, GpuUsage> latestWindows() {
        Map<Instant, GpuUsage> windows = new LinkedHashMap<>();
        for (GpuUsage update : usage.readValuesToList()) {
            windows.put(update.windowStart(), update);
        }
        return windows;
    }

    private double deadLettersCounted(String input) {
        return driver.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("dead-letters-total")
                        && input.equals(e.getKey().tags().get("gpuledger-id")))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }

    private static String header(TestRecord<String, byte[]> record, String name) {
        return DeadLetters.header(record.headers(), name);
    }
}
