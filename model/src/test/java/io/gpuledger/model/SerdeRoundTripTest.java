package io.gpuledger.model;

import static io.gpuledger.model.ContractFixtures.T0;
import static io.gpuledger.model.ContractFixtures.quote;
import static io.gpuledger.model.ContractFixtures.sample;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SerdeRoundTripTest {

    @Test
    void shouldRoundTripEveryContractRecordThroughItsTopicSerde() {
        GpuUsage usage = GpuUsage.empty(sample(), T0, T0.plusSeconds(60), "USD").add(sample(), 4.09625);
        UsageRollup rollup = new UsageRollup(UsageRollup.Dimension.JOB, "train-llm", T0, T0.plusSeconds(60), "USD", 1,
                1.0, usage.totals());
        Recommendation recommendation = Recommendation.open(RecommendationKind.RECLAIM_IDLE,
                Recommendation.Target.gpu("GPU-1",
                        new Placement("node-a1", "i-0abc", "p4d.24xlarge", "aws", "us-east-1", Lifecycle.ON_DEMAND)),
                "GPU idle", RecommendationAction.ReclaimIdle.instance("i-0abc", List.of("GPU-1")), null, 2949.3,
                "USD", 0.9, T0, T0.plusSeconds(600), ContractFixtures.idleEvidence());
        CloudEvent<Recommendation> event = CloudEvent.json(recommendation).id(recommendation.id() + "@1")
                .source("/gpu-ledger/alerts").type("io.gpuledger.recommendation.v1").subject("gpu/GPU-1").time(T0)
                .dataschema("urn:gpuledger:schema:recommendation:1").build();
        CostAnomaly anomaly = new CostAnomaly(CostAnomaly.SCHEMA_VERSION,
                CostAnomaly.idFor(AnomalyKind.SPEND_RATE, "team", "research", T0), AnomalyKind.SPEND_RATE, "team",
                "research", CostAnomaly.Severity.WARNING, "spend per hour", 100, 160, 60,
                CostAnomaly.percentAbove(100, 160), "USD", T0, T0.plusSeconds(60), T0.plusSeconds(61),
                new CostAnomaly.Cause("job", "train-llm", 55, 0.92), "research spends 60% above its baseline",
                Map.of("mad", 4.5));

        assertThat(roundTrip(Topics.TELEMETRY, sample())).isEqualTo(sample());
        assertThat(roundTrip(Topics.PRICES, quote())).isEqualTo(quote());
        assertThat(roundTrip(Topics.USAGE, usage)).isEqualTo(usage);
        assertThat(roundTrip(Topics.ROLLUPS, rollup)).isEqualTo(rollup);
        assertThat(roundTrip(Topics.RECOMMENDATIONS, event)).isEqualTo(event);
        assertThat(roundTrip(Topics.COST_ANOMALIES, anomaly)).isEqualTo(anomaly);

        JobProgress progress = new JobProgress("train-llm", "research", "node-a1", "i-0abc",
                java.util.List.of("GPU-1", "GPU-2"), T0, 10, 1_048_576, "tokens", 12, 9.6, 3.1, 4.2e9,
                new JobTraits("llama-7b", true, 1800.0, 6.0e10, WorkloadClass.TRAINING));
        CapacityEvent notice = new CapacityEvent(CapacityEvent.SCHEMA_VERSION,
                CapacityEvent.idOf("aws", "i-0abc", CapacityEventKind.SPOT_INTERRUPTION, "2026-03-01T12:02:00Z"),
                "aws", "us-east-1", "i-0abc", "p4d.24xlarge", "node-a1", Lifecycle.SPOT,
                CapacityEventKind.SPOT_INTERRUPTION, "terminate", T0, T0.plusSeconds(120), "aws-imds",
                "{\"action\": \"terminate\", \"time\": \"2026-03-01T12:02:00Z\"}");
        assertThat(roundTrip(Topics.JOB_PROGRESS, progress)).isEqualTo(progress);
        assertThat(roundTrip(Topics.CAPACITY_EVENTS, notice)).isEqualTo(notice);
    }

    @Test
    void shouldWriteLifecycleAndTimesInTheirWireForm() {
        String json = new String(Topics.TELEMETRY.valueSerde().serializer().serialize("t", sample()),
                StandardCharsets.UTF_8);

        assertThat(json).contains("\"lifecycle\":\"spot\"").contains("\"time\":\"2026-03-01T12:00:00Z\"");
    }

    @Test
    void shouldReadAWorkloadClassByItsWireNameAndRefuseAnUnknownOne() {
        // Given traits naming their class as a job writes it, and a class that does not exist
        byte[] memoryBound = "{\"workload\":\"llama-70b-decode\",\"workloadClass\":\"memory-bound\"}"
                .getBytes(StandardCharsets.UTF_8);
        byte[] unknown = "{\"workloadClass\":\"rendering\"}".getBytes(StandardCharsets.UTF_8);

        // Then the first reads as memory-bound and writes back the same way; the second is refused by name
        JobTraits traits = Json.read(memoryBound, JobTraits.class);
        assertThat(traits.workloadClass()).isEqualTo(WorkloadClass.MEMORY_BOUND);
        assertThat(Json.writeString(traits)).contains("\"workloadClass\":\"memory-bound\"");
        assertThatThrownBy(() -> Json.read(unknown, JobTraits.class)).isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("workloadClass").hasMessageContaining("training, inference, memory-bound");
    }

    @Test
    void shouldWriteTheDerivedCostPerHourOfAUsageWindow() {
        GpuUsage usage = GpuUsage.empty(sample(), T0, T0.plusSeconds(60), "USD").add(sample(), 3.6);

        String json = Json.writeString(usage);

        assertThat(usage.cost()).isEqualTo(0.01, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(json).contains("\"costPerHour\":3.6");
    }

    @Test
    void shouldRateAMigSliceByWhatItSpendsPerHourOfWallTime() {
        // Given a 1g.10gb slice (a seventh) of a GPU priced 10 USD per GPU-hour, sampled for 60 s
        TelemetrySample slice = sample().toBuilder().intervalSeconds(60).migProfile("1g.10gb").gpuFraction(1.0 / 7)
                .build();
        GpuUsage usage = GpuUsage.empty(slice, T0, T0.plusSeconds(60), "USD").add(slice, 10.0);

        // When it is written
        GpuUsage read = roundTrip(Topics.USAGE, usage);

        // Then it spent 10 x 60 / 3600 / 7 = 0.0238095 USD over 60 s of wall time: 10 / 7 = 1.428571 USD/h,
        // of 60 / 7 = 8.571429 GPU-seconds
        assertThat(read.cost()).isCloseTo(0.0238095, within(1e-7));
        assertThat(read.secondsObserved()).isCloseTo(60.0, within(1e-9));
        assertThat(read.costPerHour()).isCloseTo(1.428571, within(1e-6));
        assertThat(read.totals().gpuSeconds()).isCloseTo(8.571429, within(1e-6));
        assertThat(read.gpuFraction()).isEqualTo(1.0 / 7);
    }

    @Test
    void shouldCarryTheJobPartsOfASharedWindowAndLeaveThemOutOfAnyOther() {
        // Given a shared GPU's window, two jobs of which took 0.6 and 0.3 of a 0.01 USD minute (by hand)
        GpuUsage whole = GpuUsage.empty(sample(), T0, T0.plusSeconds(60), "USD").add(sample(), 3.6);
        List<JobPart> parts = List.of(new JobPart("infer-a", "search", 6, 0.006, 0.0001, 0),
                new JobPart("notebook-b", null, 3, 0.003, 0.00005, 0));
        GpuUsage shared = whole.toBuilder().job(TelemetrySample.SHARED_JOB, "research").sharingJobs(2)
                .jobParts(parts).build();

        // When both are written and read back
        GpuUsage read = roundTrip(Topics.USAGE, shared);
        String plain = Json.writeString(whole);

        // Then the parts come back as written, and a window of one job writes no parts at all
        assertThat(read.jobParts()).isEqualTo(parts);
        assertThat(read.jobParts().get(1).team()).isNull();
        assertThat(plain).doesNotContain("jobParts");
        assertThat(Json.read(plain.getBytes(StandardCharsets.UTF_8), GpuUsage.class).jobParts()).isEmpty();
        assertThatThrownBy(() -> Json.read(Json.writeString(shared).replace("\"jobId\":\"infer-a\"",
                "\"jobId\":\"\"").getBytes(StandardCharsets.UTF_8), GpuUsage.class))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining("jobId");
    }

    @Test
    void shouldReadUsageWrittenBeforeSharesWereSentAsWholeGpus() {
        // Given a window and a roll-up as written before they carried their share of a GPU
        GpuUsage usage = GpuUsage.empty(sample(), T0, T0.plusSeconds(60), "USD").add(sample(), 3.6);
        String window = new String(Json.write(usage), StandardCharsets.UTF_8).replace(",\"gpuFraction\":1.0", "");
        UsageRollup rollup = new UsageRollup(UsageRollup.Dimension.POOL, "aws|us-east-1|p4d.24xlarge|on-demand", T0,
                T0.plusSeconds(60), "USD", 3, 3.0, usage.totals());
        String minute = new String(Json.write(rollup), StandardCharsets.UTF_8)
                .replace(",\"gpuEquivalents\":3.0", "");
        assertThat(window).doesNotContain("gpuFraction");
        assertThat(minute).doesNotContain("gpuEquivalents");

        // Then the window is of a whole GPU, and the roll-up's GPUs are whole GPUs
        assertThat(Topics.USAGE.valueSerde().deserializer().deserialize(Topics.USAGE.name(),
                window.getBytes(StandardCharsets.UTF_8)).gpuFraction()).isEqualTo(1.0);
        assertThat(Topics.ROLLUPS.valueSerde().deserializer().deserialize(Topics.ROLLUPS.name(),
                minute.getBytes(StandardCharsets.UTF_8)).gpuEquivalents()).isEqualTo(3.0);
    }

    @Test
    void shouldIgnoreFieldsAddedByNewerProducers() {
        String json = Json.writeString(quote()).replace("{", "{\"addedLater\":42,");

        assertThat(Json.read(json.getBytes(StandardCharsets.UTF_8), PriceQuote.class)).isEqualTo(quote());
    }

    @Test
    void shouldReadAQuoteWrittenBeforeConfirmationsAsObservedWhenItBecameValid() {
        String old = "{\"provider\":\"aws\",\"region\":\"us-east-1\",\"instanceType\":\"p4d.24xlarge\","
                + "\"lifecycle\":\"on-demand\",\"gpuModel\":\"A100-40GB\",\"gpuCount\":8,\"pricePerHour\":32.77,"
                + "\"currency\":\"USD\",\"validFrom\":\"2026-03-01T12:00:00Z\",\"source\":\"catalog\"}";

        PriceQuote quote = Json.read(old.getBytes(StandardCharsets.UTF_8), PriceQuote.class);

        assertThat(quote.observedAt()).isEqualTo(T0);
        assertThat(quote).isEqualTo(quote());
    }

    @Test
    void shouldKeepAConfirmationUnderItsVersionKeyWithItsOwnObservedAt() {
        PriceQuote confirmed = quote().confirmedAt(T0.plusSeconds(3_600).plusMillis(250));

        PriceQuote read = roundTrip(Topics.PRICES, confirmed);

        assertThat(read.observedAt()).isEqualTo(T0.plusSeconds(3_600));
        assertThat(read.key()).isEqualTo(quote().key());
        assertThat(read).isNotEqualTo(quote());
        assertThat(read.sameVersionAs(quote())).isTrue();
        assertThat(read.sameVersionAs(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND,
                "A100-40GB", 8, 30.0, "USD", T0, "catalog"))).as("a correction").isFalse();
        assertThat(Json.writeString(quote())).contains("\"observedAt\":\"2026-03-01T12:00:00Z\"");
    }

    @Test
    void shouldCarryASpotInterruptionFrequencyOnlyWhereItIsKnown() {
        PriceQuote spot = new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT, "A100-40GB", 8, 9.831,
                "USD", T0, "catalog").withInterruptionFrequency(0.10);

        PriceQuote read = roundTrip(Topics.PRICES, spot.confirmedAt(T0.plusSeconds(600)));

        assertThat(read.interruptionFrequency()).isEqualTo(0.10);
        assertThat(read.sameVersionAs(spot)).isTrue();
        assertThat(read.sameVersionAs(spot.withInterruptionFrequency(0.20))).as("a new band").isFalse();
        assertThat(Json.writeString(quote())).doesNotContain("interruptionFrequency");
    }

    @Test
    void shouldCarryABandsLowerEdgeAndAReservationsTermsThroughTheTopic() {
        PriceQuote spot = new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT, "A100-40GB", 8, 9.831,
                "USD", T0, "catalog").withInterruptionBand(0.10, 0.05);
        PriceQuote reserved = new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.RESERVED, "A100-40GB", 8,
                21.3005, "USD", T0, "catalog").withReservation(new ReservationTerms(12,
                        ReservationTerms.PaymentOption.NO_UPFRONT, 0.0));

        assertThat(roundTrip(Topics.PRICES, spot)).isEqualTo(spot);
        assertThat(roundTrip(Topics.PRICES, spot).interruptionFrequencyFloor()).isEqualTo(0.05);
        assertThat(roundTrip(Topics.PRICES, reserved)).isEqualTo(reserved);
        assertThat(Json.writeString(reserved)).contains("\"reservation\":{\"termMonths\":12,"
                + "\"paymentOption\":\"no-upfront\",\"upfrontFee\":0.0}");
        assertThat(roundTrip(Topics.PRICES, reserved).reservation().hours()).isEqualTo(8760);
    }

    @Test
    void shouldObserveAVersionReadBeforeItIsValidFromWhenItBecomesValid() {
        assertThat(quote().readAt(T0.minusSeconds(60)).observedAt()).isEqualTo(T0);
        assertThat(quote().readAt(T0.plusSeconds(60)).observedAt()).isEqualTo(T0.plusSeconds(60));
    }

    @Test
    void shouldKeyPriceVersionsSoThatTheySortByTimeWithinAnOffer() {
        PriceQuote earlier = quote();
        PriceQuote later = new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8,
                30.0, "USD", T0.plusSeconds(86_400 * 40), "catalog");

        assertThat(earlier.key()).isEqualTo("aws|us-east-1|p4d.24xlarge|on-demand|2026-03-01T12:00:00Z");
        assertThat(earlier.key()).isLessThan(later.key());
        assertThat(PriceQuote.firstVersionKey(earlier.offer())).isLessThan(earlier.key());
    }

    private static <T> T roundTrip(Topic<String, T> topic, T value) {
        byte[] bytes = topic.valueSerde().serializer().serialize(topic.name(), value);
        return topic.valueSerde().deserializer().deserialize(topic.name(), bytes);
    }
}
