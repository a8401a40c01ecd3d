package io.gpuledger.ingest.price.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.ingest.price.InstanceTypes;
import io.gpuledger.ingest.price.PricePayloads;
import io.gpuledger.ingest.price.PriceReading;
import io.gpuledger.ingest.price.PriceSourceException;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SpotPriceHistoryTest {

    /** m1.xlarge has no GPU; listed here only so that the published example's prices can be followed to a quote. */
    private static final InstanceTypes STAND_IN = InstanceTypes.parse(
            "provider,instance_type,gpu_model,gpu_count\naws,m1.xlarge,stand-in,1\naws,g5.xlarge,A10G-24GB,1\n",
            "stand-in");

    @Test
    void shouldSkipRecordsOfInstanceTypesWhoseGpusAreUnknownAndNameTheType() {
        // Given AWS's published example history, and the shipped table, which has no m1.xlarge
        String json = PricePayloads.text("aws-describe-spot-price-history.json");

        // When it is read
        PriceReading reading = SpotPriceHistory.parse(json, "history.json", InstanceTypes.defaults());

        // Then nothing is quoted, and each record says why
        assertThat(reading.quotes()).isEmpty();
        assertThat(reading.rejected()).isEmpty();
        assertThat(reading.skipped()).extracting(PriceReading.Skipped::where, PriceReading.Skipped::reason)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("history.json line 3",
                                "instance type m1.xlarge: its GPUs are unknown (add it to an instance-type table)"),
                        org.assertj.core.groups.Tuple.tuple("history.json line 10",
                                "instance type m1.xlarge: its GPUs are unknown (add it to an instance-type table)"));
    }

    @Test
    void shouldReadTheStringPriceAndTakeTheRegionFromTheAvailabilityZone() {
        // Given the published example: one price in us-west-1c, then the same in us-west-1a
        String json = PricePayloads.text("aws-describe-spot-price-history.json");

        // When it is read with a table that places m1.xlarge
        PriceReading reading = SpotPriceHistory.parse(json, "history.json", STAND_IN);

        // Then the region has one version, from the first record's time: the second changes nothing
        assertThat(reading.dating()).isEqualTo(PriceReading.Dating.FROM_SOURCE);
        assertThat(reading.quotes()).containsExactly(new PriceQuote("aws", "us-west-1", "m1.xlarge", Lifecycle.SPOT,
                "stand-in", 1, 0.08, "USD", Instant.parse("2014-01-05T11:28:26Z"), SpotPriceHistory.SOURCE));
    }

    @Test
    void shouldReadOnlyLinuxPricesBecauseTheOthersIncludeALicence() {
        // Given the published SUSE Linux records
        String json = PricePayloads.text("aws-describe-spot-price-history-suse.json");

        // When they are read
        PriceReading reading = SpotPriceHistory.parse(json, "suse.json", STAND_IN);

        // Then none is quoted, each with its product description as the reason
        assertThat(reading.quotes()).isEmpty();
        assertThat(reading.skipped()).extracting(PriceReading.Skipped::reason).containsExactly(
                "ProductDescription 'SUSE Linux': only Linux/UNIX prices are read (the others include an OS licence)",
                "ProductDescription 'SUSE Linux': only Linux/UNIX prices are read (the others include an OS licence)",
                "ProductDescription 'SUSE Linux (Amazon VPC)': only Linux/UNIX prices are read (the others include an "
                        + "OS licence)");
    }

    @Test
    void shouldPriceARegionAtItsDearestZoneEachTimeAZonePriceChanges() {
        // Given (written for this test) two zones of us-east-1 that move apart and back, newest first as AWS lists them
        String json = """
                {"SpotPriceHistory": [
                  {"AvailabilityZone": "us-east-1b", "InstanceType": "g5.xlarge", "ProductDescription": "Linux/UNIX",
                   "SpotPrice": "0.300000", "Timestamp": "2026-03-01T12:00:00.000Z"},
                  {"AvailabilityZone": "us-east-1b", "InstanceType": "g5.xlarge", "ProductDescription": "Linux/UNIX",
                   "SpotPrice": "0.450000", "Timestamp": "2026-03-01T11:00:00.000Z"},
                  {"AvailabilityZone": "us-east-1a", "InstanceType": "g5.xlarge", "ProductDescription": "Linux/UNIX",
                   "SpotPrice": "0.400000", "Timestamp": "2026-03-01T10:00:00.000Z"},
                  {"AvailabilityZone": "us-east-1b", "InstanceType": "g5.xlarge", "ProductDescription": "Linux/UNIX",
                   "SpotPrice": "0.350000", "Timestamp": "2026-03-01T10:00:00.000Z"}
                ]}
                """;

        // When it is read
        PriceReading reading = SpotPriceHistory.parse(json, "zones.json", STAND_IN);

        // Then each version is the highest zone price in force from its time on
        assertThat(reading.quotes()).extracting(q -> q.validFrom() + " " + q.pricePerHour()).containsExactly(
                "2026-03-01T10:00:00Z 0.4", "2026-03-01T11:00:00Z 0.45", "2026-03-01T12:00:00Z 0.4");
    }

    @Test
    void shouldRejectMalformedRecordsByLineAndFieldAndKeepTheRest() {
        // Given (written for this test) one good record between three broken ones
        String json = """
                {"SpotPriceHistory": [
                  {"AvailabilityZone": "us-east-1a", "InstanceType": "g5.xlarge", "ProductDescription": "Linux/UNIX",
                   "SpotPrice": "cheap", "Timestamp": "2026-03-01T10:00:00.000Z"},
                  {"AvailabilityZone": "use1-az1", "InstanceType": "g5.xlarge", "ProductDescription": "Linux/UNIX",
                   "SpotPrice": "0.3", "Timestamp": "2026-03-01T10:00:00.000Z"},
                  {"AvailabilityZone": "us-east-1a", "InstanceType": "g5.xlarge", "ProductDescription": "Linux/UNIX",
                   "SpotPrice": "0.3", "Timestamp": "2026-03-01T10:00:00.000Z"},
                  {"AvailabilityZone": "us-east-1a", "InstanceType": "g5.xlarge", "ProductDescription": "Linux/UNIX",
                   "SpotPrice": "0.3"}
                ]}
                """;

        // When it is read
        PriceReading reading = SpotPriceHistory.parse(json, "broken.json", STAND_IN);

        // Then the good record is quoted and each broken one is named
        assertThat(reading.quotes()).extracting(PriceQuote::pricePerHour).containsExactly(0.3);
        assertThat(reading.rejected()).containsExactly(
                "broken.json line 2: SpotPrice: is not a number: 'cheap'",
                "broken.json line 4: AvailabilityZone: is not an Availability Zone name such as us-east-1a: 'use1-az1'",
                "broken.json line 8: Timestamp: is required");
    }

    @Test
    void shouldRefuseADocumentThatIsNotASpotPriceHistory() {
        assertThatThrownBy(() -> SpotPriceHistory.parse("{\"Reservations\": []}", "other.json", STAND_IN))
                .isInstanceOf(PriceSourceException.class)
                .hasMessage("other.json: no SpotPriceHistory array; expected the JSON of DescribeSpotPriceHistory");
        assertThatThrownBy(() -> SpotPriceHistory.parse("{\"SpotPriceHistory\": [\n{\"x\": }]}", "bad.json", STAND_IN))
                .isInstanceOf(PriceSourceException.class)
                .hasMessageStartingWith("bad.json line 2: not valid JSON");
    }

    @Test
    void shouldFindTheRegionOfEveryKindOfZone() {
        assertThat(SpotPriceHistory.region("us-east-1a")).isEqualTo("us-east-1");
        assertThat(SpotPriceHistory.region("ap-northeast-2c")).isEqualTo("ap-northeast-2");
        assertThat(SpotPriceHistory.region("us-gov-west-1a")).isEqualTo("us-gov-west-1");
        assertThat(SpotPriceHistory.region("us-west-2-lax-1a")).isEqualTo("us-west-2");
        assertThat(SpotPriceHistory.region("us-east-1-wl1-bos-wlz-1")).isEqualTo("us-east-1");
    }
}
