package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ValidationTest {

    private static final String VALID_SAMPLE = Json.writeString(ContractFixtures.sample());

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = ';', value = {
        // what is broken; field named; a fragment of the message
        "\"gpuUuid\":\"GPU-5fd4f087-86f3-7a43-b711-4771313afc50\" => \"gpuUuid\":\"\"; gpuUuid; is required",
        "\"gpuUuid\":\"GPU-5fd4f087-86f3-7a43-b711-4771313afc50\", => ; gpuUuid; Missing required",
        "\"host\":\"node-a1\" => \"host\":null; host; is required",
        "\"smActive\":0.82 => \"smActive\":1.5; smActive; between 0 and 1",
        "\"smActive\":0.82 => \"smActive\":\"NaN\"; smActive; finite",
        "\"smOccupancy\":0.61 => \"smOccupancy\":-0.1; smOccupancy; between 0 and 1",
        "\"intervalSeconds\":10.0 => \"intervalSeconds\":-10; intervalSeconds; positive",
        "\"intervalSeconds\":10.0 => \"intervalSeconds\":\"Infinity\"; intervalSeconds; finite",
        "\"lifecycle\":\"spot\" => \"lifecycle\":\"preemptible-ish\"; lifecycle; unknown lifecycle 'preemptible-ish'",
        "\"time\":\"2026-03-01T12:00:00Z\" => \"time\":\"yesterday\"; time; yesterday",
        "\"powerWatts\":312.5 => \"powerWatts\":-1; powerWatts; negative",
        "\"smActive\":0.82 => \"smActive\":-0.1; smActive; between 0 and 1",
        "\"instanceType\":\"p4d.24xlarge\" => \"instanceType\":\"p4d|x\"; instanceType; must not contain",
    })
    void shouldRejectTelemetryNamingTheField(String edit, String field, String fragment) {
        String[] change = edit.split("=>", -1);
        String broken = VALID_SAMPLE.replace(change[0].trim(), change[1].trim());
        assertThatThrownBy(() -> Json.read(broken.getBytes(StandardCharsets.UTF_8), TelemetrySample.class))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageStartingWith(field + ":")
                .hasMessageContaining(fragment)
                .extracting(e -> ((InvalidRecordException) e).field()).isEqualTo(field);
    }

    @Test
    void shouldRejectMalformedJsonWithAClearMessage() {
        assertThatThrownBy(() -> Json.read("{\"gpuUuid\":".getBytes(StandardCharsets.UTF_8), TelemetrySample.class))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("invalid TelemetrySample");
        assertThatThrownBy(() -> Json.read(new byte[0], TelemetrySample.class))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("empty record");
    }

    @Test
    void shouldRejectBareNaNTokens() {
        String broken = VALID_SAMPLE.replace("\"smActive\":0.82", "\"smActive\":NaN");
        assertThatThrownBy(() -> Json.read(broken.getBytes(StandardCharsets.UTF_8), TelemetrySample.class))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageStartingWith("smActive:");
    }

    @Test
    void shouldRejectPriceQuotesThatCannotBeCharged() {
        String valid = Json.writeString(ContractFixtures.quote());
        assertThatThrownBy(() -> Json.read(valid.replace("\"gpuCount\":8", "\"gpuCount\":0")
                .getBytes(StandardCharsets.UTF_8), PriceQuote.class))
                .hasMessageStartingWith("gpuCount:");
        assertThatThrownBy(() -> Json.read(valid.replace("\"currency\":\"USD\"", "\"currency\":\"dollars\"")
                .getBytes(StandardCharsets.UTF_8), PriceQuote.class))
                .hasMessageStartingWith("currency:");
        assertThatThrownBy(() -> Json.read(valid.replace("\"pricePerHour\":32.77", "\"pricePerHour\":-3")
                .getBytes(StandardCharsets.UTF_8), PriceQuote.class))
                .hasMessageStartingWith("pricePerHour:");
    }

    @Test
    void shouldRejectAnInterruptionFrequencyOutsideSpotOrAShare() {
        String spot = Json.writeString(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT,
                "A100-40GB", 8, 9.831, "USD", ContractFixtures.T0, "catalog").withInterruptionFrequency(0.10));
        String onDemand = spot.replace("\"lifecycle\":\"spot\"", "\"lifecycle\":\"on-demand\"");

        assertThatThrownBy(() -> Json.read(onDemand.getBytes(StandardCharsets.UTF_8), PriceQuote.class))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageStartingWith("interruptionFrequency: only a spot offer is interrupted");
        assertThatThrownBy(() -> Json.read(spot.replace("\"interruptionFrequency\":0.1",
                "\"interruptionFrequency\":10").getBytes(StandardCharsets.UTF_8), PriceQuote.class))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageStartingWith("interruptionFrequency: must be a ratio");
        assertThatThrownBy(() -> Json.read(spot.replace("\"interruptionFrequency\":0.1",
                "\"interruptionFrequency\":0.1,\"interruptionFrequencyLow\":0.2").getBytes(StandardCharsets.UTF_8),
                PriceQuote.class))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageStartingWith("interruptionFrequencyLow: is the lower edge of the band");
    }

    @Test
    void shouldRejectReservationTermsOutsideAReservedOfferOrOfNoLength() {
        String reserved = Json.writeString(new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.RESERVED,
                "A100-40GB", 8, 21.3005, "USD", ContractFixtures.T0, "catalog")
                .withReservation(ReservationTerms.ofMonths(12)));

        assertThatThrownBy(() -> Json.read(reserved.replace("\"lifecycle\":\"reserved\"",
                "\"lifecycle\":\"on-demand\"").getBytes(StandardCharsets.UTF_8), PriceQuote.class))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageStartingWith("reservation: only a reserved offer has reservation terms");
        assertThatThrownBy(() -> Json.read(reserved.replace("\"termMonths\":12", "\"termMonths\":0")
                .getBytes(StandardCharsets.UTF_8), PriceQuote.class))
                .hasMessageContaining("reservation.termMonths");
    }

    @Test
    void shouldRejectAConfirmationDatedBeforeItsVersion() {
        String confirmed = Json.writeString(ContractFixtures.quote().confirmedAt(ContractFixtures.T0.plusSeconds(600)));

        assertThatThrownBy(() -> Json.read(confirmed.replace("\"observedAt\":\"2026-03-01T12:10:00Z\"",
                "\"observedAt\":\"2026-03-01T11:59:59Z\"").getBytes(StandardCharsets.UTF_8), PriceQuote.class))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageStartingWith("observedAt: must not be before validFrom (2026-03-01T12:00:00Z)");
        assertThatThrownBy(() -> Json.read(confirmed.replace("\"observedAt\":\"2026-03-01T12:10:00Z\"",
                "\"observedAt\":\"soon\"").getBytes(StandardCharsets.UTF_8), PriceQuote.class))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageStartingWith("observedAt:");
    }

    @Test
    void shouldRejectAJobReportWhoseCommunicationOutlastsItsSteps() {
        assertThatThrownBy(() -> new JobProgress("job", null, "node", "i-1", null, ContractFixtures.T0, 10, 5,
                "tokens", 3, 2.0, 2.5, null, null))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageStartingWith("commSeconds:");
    }

    @Test
    void shouldRejectAJobReportOfTheJobThatMarksASharedGpu() {
        // Its work would stand beside no cost: no roll-up is ever a job named so.
        assertThatThrownBy(() -> new JobProgress("shared", null, "node", "i-1", null, ContractFixtures.T0, 10, 5,
                "tokens", 3, null, null, null, null))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageStartingWith("jobId: is 'shared', which marks a shared GPU's samples");
    }

    @Test
    void shouldRejectAJobReportOfANegativeRank() {
        assertThatThrownBy(() -> new JobProgress("job", null, "node", "i-1", -1, null, ContractFixtures.T0, 10, 5,
                "tokens", 3, null, null, null, null))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage("rank: must not be negative, was -1");
    }

    @Test
    void shouldSayWhichJobIsUnknownRatherThanLeaveItOut() {
        String noJob = VALID_SAMPLE.replace("\"jobId\":\"train-llm\",", "");
        TelemetrySample sample = Json.read(noJob.getBytes(StandardCharsets.UTF_8), TelemetrySample.class);
        org.assertj.core.api.Assertions.assertThat(sample.jobId()).isEqualTo(TelemetrySample.UNKNOWN_JOB);
    }
}
