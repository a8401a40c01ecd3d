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
    void shouldListEachJobOfASharedGpuWithItsPartOfTheCostAndNoJobNamedShared() {
        // Given a g5.xlarge's one GPU at 1.2 USD/h, shared by a replica (half its cost) and a notebook (a quarter),
        // the rest taken by no job, beside a GPU of the replica's own
        PlacedGpu shared = new PlacedGpu("GPU-0", 0, "A10G", TelemetrySample.SHARED_JOB, 1.2, "USD", T0,
                List.of(new JobShare("serve-chat", 0.5), new JobShare("notebook-ana", 0.25)));
        List<PlacedGpu> gpus = List.of(shared, gpu(1, "serve-chat", 1.0, "USD"));

        // When the notice is enriched with them
        EnrichedCapacityEvent enriched = EnrichedCapacityEvent.placed(NOTICE, T0, gpus);

        // Then the replica runs on both GPUs for 0.6 + 1.0 USD/h, the notebook on one for 0.3; the instance
        // costs both GPUs whole, 2.2 USD/h, the unallocated 0.3 included
        assertThat(enriched.jobs()).extracting(PlacedJob::jobId).containsExactly("serve-chat", "notebook-ana");
        assertThat(enriched.jobs().get(0).gpus()).isEqualTo(2);
        assertThat(enriched.jobs().get(0).costPerHour()).isCloseTo(1.6, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(enriched.jobs().get(1).costPerHour()).isCloseTo(0.3, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(enriched.costPerHour()).isCloseTo(2.2, org.assertj.core.data.Offset.offset(1e-12));
        // And the GPU's shares travel with it on the wire, and a GPU of one job writes none
        String json = Json.writeString(enriched);
        assertThat(json).contains("\"sharedBy\":[{\"jobId\":\"serve-chat\",\"share\":0.5}");
        assertThat(Json.writeString(gpu(1, "serve-chat", 1.0, "USD"))).doesNotContain("sharedBy");
        assertThat(Json.read(Json.write(enriched), EnrichedCapacityEvent.class)).isEqualTo(enriched);
    }

    @Test
    void shouldShareAWindowsCostAmongItsJobsPartsForTheNotice() {
        // Given a shared window that cost 0.02 USD, 0.012 of it the replica's and 0.005 the notebook's
        GpuUsage window = GpuUsage.empty(ContractFixtures.sample(), T0, T0.plusSeconds(60), "USD")
                .add(ContractFixtures.sample(), 7.2).toBuilder().job(TelemetrySample.SHARED_JOB, "ml")
                .jobParts(List.of(new JobPart("serve-chat", null, 6, 0.012, 0, 0),
                        new JobPart("notebook-ana", null, 3, 0.005, 0, 0))).build();

        // Then the placed GPU lists each job with its part of that cost
        assertThat(window.cost()).isCloseTo(0.02, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(PlacedGpu.of(window).sharedBy()).extracting(JobShare::jobId, JobShare::share).containsExactly(
                org.assertj.core.groups.Tuple.tuple("serve-chat", 0.6),
                org.assertj.core.groups.Tuple.tuple("notebook-ana", 0.25));
    }

    @Test
    void shouldNameNoJobForASharedGpuThatNoListedJobTookAPartOf() {
        // Given a shared window whose only parts are a team's unlisted jobs (past the 240 a window names), and a
        // shared GPU whose samples listed no allocation at all: both all unallocated, or no one job's
        GpuUsage unlisted = GpuUsage.empty(ContractFixtures.sample(), T0, T0.plusSeconds(60), "USD")
                .add(ContractFixtures.sample(), 7.2).toBuilder().job(TelemetrySample.SHARED_JOB, "ml")
                .jobParts(List.of(new JobPart(JobPart.UNLISTED_JOB, "ml", 6, 0.012, 0, 0))).build();
        PlacedGpu noPart = new PlacedGpu("GPU-1", 1, "A10G", TelemetrySample.SHARED_JOB, 0.8, "USD", T0, List.of());

        // When a notice is enriched with them
        EnrichedCapacityEvent enriched = EnrichedCapacityEvent.placed(NOTICE, T0, List.of(PlacedGpu.of(unlisted),
                noPart));

        // Then no job is named "unlisted" or "shared", to be moved before the instance goes; the instance still
        // costs both GPUs, 7.2 + 0.8 USD/h
        assertThat(PlacedGpu.of(unlisted).sharedBy()).isEmpty();
        assertThat(enriched.jobs()).isEmpty();
        assertThat(enriched.costPerHour()).isCloseTo(8.0, org.assertj.core.data.Offset.offset(1e-12));
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
