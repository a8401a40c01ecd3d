package io.gpuledger.model;

import static io.gpuledger.model.ContractFixtures.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class EnrichedCapacityEventTest {

    private static final CapacityEvent NOTICE = new CapacityEvent(CapacityEvent.SCHEMA_VERSION,
            CapacityEvent.idOf("aws", "i-0abc", CapacityEventKind.SPOT_INTERRUPTION, "2026-03-01T12:02:00Z"),
            "aws", "us-east-1", "i-0abc", "p4d.24xlarge", "node-a1", Lifecycle.SPOT,
            CapacityEventKind.SPOT_INTERRUPTION, "terminate", T0, T0.plusSeconds(120), "aws-imds",
            "{\"action\": \"terminate\", \"time\": \"2026-03-01T12:02:00Z\"}");

    @Test
    void shouldSumTheGpusOfEachJobAndOfTheInstance() {
        // Given three GPUs of two jobs, listed out of order
        List<PlacedGpu> gpus = List.of(gpu(2, "serve-chat", 1.5, "USD"), gpu(0, "train-llm", 1.25, "USD"),
                gpu(1, "train-llm", 1.25, "USD"));

        // When the notice is enriched with them
        EnrichedCapacityEvent enriched = EnrichedCapacityEvent.placed(NOTICE, T0, gpus);

        // Then the GPUs are listed by index, the biggest job first, and the instance costs their sum
        assertThat(enriched.gpus()).extracting(PlacedGpu::gpuIndex).containsExactly(0, 1, 2);
        assertThat(enriched.jobs()).containsExactly(new PlacedJob("train-llm", 2, 2.5),
                new PlacedJob("serve-chat", 1, 1.5));
        assertThat(enriched.costPerHour()).isEqualTo(4.0);
        assertThat(enriched.currency()).isEqualTo("USD");
        assertThat(enriched.unpricedGpus()).isZero();
        assertThat(enriched.placementStatus()).isEqualTo(PlacementStatus.CURRENT);
    }

    @Test
    void shouldListButNotAddUpGpusWithoutAPriceOrInAnotherCurrency() {
        List<PlacedGpu> gpus = List.of(gpu(0, "train-llm", 1.25, "USD"), gpu(1, "train-llm", 0, null),
                gpu(2, "train-llm", 9.0, "CNY"));

        EnrichedCapacityEvent enriched = EnrichedCapacityEvent.placed(NOTICE, T0, gpus);

        assertThat(enriched.jobs()).containsExactly(new PlacedJob("train-llm", 3, 1.25));
        assertThat(enriched.costPerHour()).isEqualTo(1.25);
        assertThat(enriched.currency()).isEqualTo("USD");
        assertThat(enriched.unpricedGpus()).isEqualTo(2);
    }

    @Test
    void shouldSayWhenNoRecentGpuIsKnownOrNoneAtAll() {
        EnrichedCapacityEvent outdated = EnrichedCapacityEvent.placed(NOTICE, T0.minusSeconds(900), List.of());
        EnrichedCapacityEvent unknown = EnrichedCapacityEvent.unplaced(NOTICE);

        assertThat(outdated.placementStatus()).isEqualTo(PlacementStatus.OUTDATED);
        assertThat(outdated.placementUpdatedAt()).isEqualTo(T0.minusSeconds(900));
        assertThat(unknown.placementStatus()).isEqualTo(PlacementStatus.UNKNOWN);
        assertThat(unknown.placementUpdatedAt()).isNull();
        assertThat(List.of(outdated, unknown)).allSatisfy(event -> {
            assertThat(event.gpus()).isEmpty();
            assertThat(event.jobs()).isEmpty();
            assertThat(event.costPerHour()).isZero();
            assertThat(event.currency()).isNull();
        });
    }

    @Test
    void shouldRefuseGpusOnAPlacementThatIsNotCurrent() {
        assertThatThrownBy(() -> new EnrichedCapacityEvent(1, NOTICE, PlacementStatus.UNKNOWN, null,
                List.of(gpu(0, "train-llm", 1.25, "USD")), List.of(), 0, null, 0))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage("gpus: must be empty when the placement is UNKNOWN");
    }

    @Test
    void shouldRoundTripThroughItsTopicSerde() {
        EnrichedCapacityEvent enriched = EnrichedCapacityEvent.placed(NOTICE, T0,
                List.of(gpu(0, "train-llm", 1.25, "USD"), gpu(1, "unknown", 0, null)));
        var serde = Topics.CAPACITY_EVENTS_ENRICHED.valueSerde();

        byte[] json = serde.serializer().serialize(Topics.CAPACITY_EVENTS_ENRICHED.name(), enriched);

        assertThat(serde.deserializer().deserialize(Topics.CAPACITY_EVENTS_ENRICHED.name(), json)).isEqualTo(enriched);
        assertThat(new String(json, java.nio.charset.StandardCharsets.UTF_8))
                .contains("\"placementStatus\":\"CURRENT\"").doesNotContain("\"priced\"");
    }

    private static PlacedGpu gpu(int index, String job, double costPerHour, String currency) {
        return new PlacedGpu("GPU-" + index, index, "A100-40GB", job, costPerHour, currency, T0);
    }
}
