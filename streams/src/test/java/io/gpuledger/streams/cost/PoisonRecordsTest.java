package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.EnrichedCapacityEvent;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.JobEconomics;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PlacedGpu;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Records that are not records at all (a JSON null, nothing, JSON of another type, no key), on every input
 * of the engine between good ones: each is kept with its reason (or, for prices, passed over and counted),
 * and what comes after is charged exactly as if it had not been there.
 */
class PoisonRecordsTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    /** p4d.24xlarge on demand: 32.77 USD an hour for its 8 GPUs. */
    private static final double GPU_PER_SECOND = 32.77 / 8 / 3600;
    private static final String GPU_A = "GPU-aaaaaaaa-0000-0000-0000-000000000001";
    private static final String GPU_B = "GPU-bbbbbbbb-0000-0000-0000-000000000002";

    private CostDriver cost;
    /** The latest window of each GPU read so far. */
    private final Map<String, GpuUsage> lastWindows = new LinkedHashMap<>();

    @BeforeEach
    void startDriver() {
        cost = new CostDriver("poison-records-test", T0);
        cost.publish(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8, 32.77,
                "USD", T0.minus(Duration.ofDays(30)), "test"));
    }

    @AfterEach
    void stopDriver() {
        cost.close();
    }

    /** A value that is no record of any kind, under a key as good as any: {@code null} value means none at all. */
    private record Poison(String name, String key, byte[] value, String field) {
    }

    /** Every poison for an input whose records are keyed {@code key}; the last is {@code valid} without a key. */
    private static List<Poison> poisons(String key, byte[] valid) {
        return List.of(
                new Poison("JSON null", key, bytes("null"), "$"),
                new Poison("empty value", key, new byte[0], "$"),
                new Poison("no value", key, null, "$"),
                new Poison("JSON array", key, bytes("[]"), "$"),
                new Poison("JSON string", key, bytes("\"x\""), "$"),
                new Poison("JSON number", key, bytes("42"), "$"),
                new Poison("no key", null, valid, "$key"));
    }

    @Test
    void shouldKeepEveryPoisonedSampleWithItsReasonAndChargeTheSamplesAfterItExactly() {
        // Given GPU A's first 10 s sample
        cost.send(sample(GPU_A, "node-a", T0.plusSeconds(10)));

        // When every poison comes on the telemetry topic, among them GPU A's next sample without a key
        List<Poison> poisons = poisons(GPU_A, Json.write(sample(GPU_A, "node-a", T0.plusSeconds(20))));
        pipe(cost.telemetry, poisons);
        // and then GPU A's samples to :30 and GPU B's first
        cost.send(sample(GPU_A, "node-a", T0.plusSeconds(20)));
        cost.send(sample(GPU_A, "node-a", T0.plusSeconds(30)));
        cost.send(sample(GPU_B, "node-b", T0.plusSeconds(20)));

        // Then A is charged its three samples, 30 s, and B its one, 10 s, at 32.77 / 8 an hour
        Map<String, GpuUsage> windows = latestWindows();
        assertThat(windows.get(GPU_A).secondsObserved()).isEqualTo(30.0);
        assertThat(windows.get(GPU_A).cost()).isCloseTo(30 * GPU_PER_SECOND, within(1e-12));
        assertThat(windows.get(GPU_B).cost()).isCloseTo(10 * GPU_PER_SECOND, within(1e-12));
        // and every poison is kept, as received, with why and where from
        assertKept(cost.telemetryDeadLetters, poisons, Topics.TELEMETRY.name());
    }

    @Test
    void shouldKeepEveryPoisonedWorkReportWithItsReasonAndCountTheReportsAfterIt() {
        // Given GPU A on job llm for a minute
        cost.send(sample(GPU_A, "node-a", T0.plusSeconds(60)).toBuilder().intervalSeconds(60).build());

        // When every poison comes on the work-report topic, among them a report of another node without a key
        List<Poison> poisons = poisons("llm", Json.write(tokens("node-b", 500_000)));
        pipe(cost.progress, poisons);
        // and then node-a's report of 1M tokens, and GPU B's minute
        cost.report(tokens("node-a", 1_000_000));
        cost.send(sample(GPU_B, "node-b", T0.plusSeconds(60)).toBuilder().intervalSeconds(60).jobId("other").build());

        // Then A and B cost 60 s each, and job llm's million tokens cost what A's minute did
        double minute = 60 * GPU_PER_SECOND;
        assertThat(latestWindows().get(GPU_A).cost()).isCloseTo(minute, within(1e-12));
        assertThat(latestWindows().get(GPU_B).cost()).isCloseTo(minute, within(1e-12));
        JobEconomics llm = lastEconomics("llm", T0);
        assertThat(llm.cost()).isCloseTo(minute, within(1e-12));
        assertThat(llm.costPerMillionUnits().get("tokens")).isCloseTo(minute / 1.0, within(1e-12));
        assertKept(cost.progressDeadLetters, poisons, Topics.JOB_PROGRESS.name());
    }

    @Test
    void shouldKeepEveryPoisonedNoticeWithItsReasonAndEnrichTheNoticesAfterIt() {
        // Given GPU A on instance i-node-a, placed by its window
        cost.send(sample(GPU_A, "node-a", T0.plusSeconds(10)));
        TestInputTopic<String, byte[]> notices = cost.driver.createInputTopic(Topics.CAPACITY_EVENTS.name(),
                Serdes.String().serializer(), Serdes.ByteArray().serializer());
        TestOutputTopic<String, byte[]> refused = cost.driver.createOutputTopic(
                Topics.CAPACITY_EVENT_DEAD_LETTERS.name(), Serdes.String().deserializer(),
                Serdes.ByteArray().deserializer());
        TestOutputTopic<String, EnrichedCapacityEvent> enriched = cost.driver.createOutputTopic(
                Topics.CAPACITY_EVENTS_ENRICHED.name(), Topics.CAPACITY_EVENTS_ENRICHED.keySerde().deserializer(),
                Topics.CAPACITY_EVENTS_ENRICHED.valueSerde().deserializer());

        // When every poison comes on the notice topic, among them a notice without a key
        List<Poison> poisons = poisons("i-node-a", Json.write(notice("first")));
        pipe(notices, poisons);
        // and then a notice for the instance, and GPU A's next sample
        CapacityEvent notice = notice("second");
        notices.pipeInput(new TestRecord<>(notice.instanceId(), Json.write(notice), T0));
        cost.send(sample(GPU_A, "node-a", T0.plusSeconds(20)));

        // Then the notice is enriched with GPU A, once, and A is charged its 20 s
        List<EnrichedCapacityEvent> out = enriched.readValuesToList();
        assertThat(out).hasSize(1);
        assertThat(out.get(0).event().eventId()).isEqualTo(notice.eventId());
        assertThat(out.get(0).gpus()).extracting(PlacedGpu::gpuUuid).containsExactly(GPU_A);
        assertThat(latestWindows().get(GPU_A).cost()).isCloseTo(20 * GPU_PER_SECOND, within(1e-12));
        assertKept(refused, poisons, Topics.CAPACITY_EVENTS.name());
    }

    @Test
    void shouldPassOverAndCountEveryPoisonedPriceRecordAndChargeTheVersionBeforeIt() {
        // Given the price of 32.77 since a month, and every poison on the price topic, each under a version key
        // of the same offer a second apart, where a lookup meets them before it; and a quote of 99 without a key
        TestInputTopic<String, byte[]> prices = cost.driver.createInputTopic(Topics.PRICES.name(),
                Serdes.String().serializer(), Serdes.ByteArray().serializer());
        PriceQuote withoutKey = new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB",
                8, 99.0, "USD", T0.plusSeconds(5), "test");
        List<Poison> poisons = new ArrayList<>();
        for (Poison poison : poisons(null, Json.write(withoutKey))) {
            if (poison.value() != null) { // no value is a tombstone: a version deleted, not a poison
                String version = poison.field().equals("$key") ? null
                        : PriceQuote.versionKey(withoutKey.offer(), T0.plusSeconds(1 + poisons.size()));
                poisons.add(new Poison(poison.name(), version, poison.value(), poison.field()));
            }
        }
        pipe(prices, poisons);

        // When GPU A reports three 10 s samples after it
        cost.send(sample(GPU_A, "node-a", T0.plusSeconds(10)));
        cost.send(sample(GPU_A, "node-a", T0.plusSeconds(20)));
        cost.send(sample(GPU_A, "node-a", T0.plusSeconds(30)));

        // Then all 30 s are charged at 32.77, none unpriced
        GpuUsage window = latestWindows().get(GPU_A);
        assertThat(window.cost()).isCloseTo(30 * GPU_PER_SECOND, within(1e-12));
        assertThat(window.unpricedSeconds()).isZero();
        // and each poison was counted as it arrived
        assertThat(metric("invalid-records-total", "prices")).isEqualTo(poisons.size());
    }

    private static void pipe(TestInputTopic<String, byte[]> topic, List<Poison> poisons) {
        for (Poison poison : poisons) {
            topic.pipeInput(new TestRecord<>(poison.key(), poison.value(), T0));
        }
    }

    /** Each poison, in order, key and bytes as received, with a reason, its field and where it came from. */
    private static void assertKept(TestOutputTopic<String, byte[]> deadLetters, List<Poison> poisons, String source) {
        List<TestRecord<String, byte[]>> kept = deadLetters.readRecordsToList();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < Math.min(kept.size(), poisons.size()); i++) {
            TestRecord<String, byte[]> letter = kept.get(i);
            Poison poison = poisons.get(i);
            assertThat(letter.key()).as(poison.name()).isEqualTo(poison.key());
            assertThat(letter.value()).as(poison.name()).isEqualTo(poison.value());
            assertThat(header(letter, DeadLetters.REASON)).as(poison.name()).isNotBlank();
            assertThat(header(letter, DeadLetters.FIELD)).as(poison.name()).isEqualTo(poison.field());
            assertThat(header(letter, DeadLetters.SOURCE_TOPIC)).as(poison.name()).isEqualTo(source);
            names.add(poison.name());
        }
        assertThat(names).hasSameSizeAs(poisons);
        assertThat(kept).hasSameSizeAs(poisons);
    }

    private Map<String, GpuUsage> latestWindows() {
        for (GpuUsage update : cost.usage.readValuesToList()) {
            lastWindows.put(update.gpuUuid(), update);
        }
        return lastWindows;
    }

    private JobEconomics lastEconomics(String job, Instant minute) {
        JobEconomics last = null;
        for (JobEconomics economics : cost.economics.readValuesToList()) {
            if (economics.jobId().equals(job) && economics.windowStart().equals(minute)) {
                last = economics;
            }
        }
        assertThat(last).as("economics of " + job + " at " + minute).isNotNull();
        return last;
    }

    private double metric(String name, String id) {
        return cost.driver.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && id.equals(e.getKey().tags().get("gpuledger-id")))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .sum();
    }

    private static TelemetrySample sample(String gpu, String host, Instant end) {
        return TelemetrySample.builder().gpuUuid(gpu).gpuModel("A100-40GB")
                .placement(new Placement(host, "i-" + host, "p4d.24xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND))
                .jobId("llm").team("research").time(end).intervalSeconds(10).smActive(0.5).build();
    }

    private static JobProgress tokens(String host, double units) {
        return new JobProgress("llm", "research", host, "i-" + host, List.of(), T0.plusSeconds(60), 60, units, "tokens",
                10, null, null, null, null);
    }

    private static CapacityEvent notice(String id) {
        Instant deadline = T0.plusSeconds(150);
        return new CapacityEvent(CapacityEvent.SCHEMA_VERSION, "aws:i-node-a:" + id, "aws", "us-east-1", "i-node-a",
                "p4d.24xlarge", "node-a", Lifecycle.ON_DEMAND, CapacityEventKind.SPOT_INTERRUPTION, "terminate",
                T0.plusSeconds(30), deadline, "aws-imds", null);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String header(TestRecord<String, byte[]> record, String name) {
        return DeadLetters.header(record.headers(), name);
    }
}
