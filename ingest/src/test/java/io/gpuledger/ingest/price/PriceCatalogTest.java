package io.gpuledger.ingest.price;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.ReservationTerms;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PriceCatalogTest {

    @Test
    void shouldShipTheReferenceOffersOfTheDesignBrief() {
        PriceCatalog catalog = PriceCatalog.loadDefault();

        assertThat(catalog.errors()).isEmpty();
        assertThat(catalog.quotes())
                .filteredOn(q -> q.lifecycle() == Lifecycle.ON_DEMAND)
                .extracting(q -> q.provider() + " " + q.instanceType() + " " + q.pricePerHour() + " " + q.currency())
                .contains("tencent GN10Xp 28.5 CNY", "volcengine veGPU 19.8 CNY", "huaweicloud GCS.AI.8 25.2 CNY",
                        "aws p4d.24xlarge 32.77 USD", "aws p5.48xlarge 98.32 USD", "aws g4dn.xlarge 0.526 USD",
                        "aws g5.xlarge 1.006 USD");
        assertThat(catalog.quotes()).extracting(PriceQuote::lifecycle).contains(Lifecycle.values());
    }

    @Test
    void shouldPriceOneP4dGpuAtAnEighthOfTheInstance() {
        PriceQuote p4d = PriceCatalog.loadDefault().quotes().stream()
                .filter(q -> q.instanceType().equals("p4d.24xlarge") && q.lifecycle() == Lifecycle.ON_DEMAND)
                .findFirst().orElseThrow();

        assertThat(p4d.pricePerGpuHour()).isEqualTo(32.77 / 8);
    }

    @Test
    void shouldReportBadRowsByLineAndFieldAndKeepTheGoodOnes() throws Exception {
        String csv = """
                provider,region,instance_type,gpu_model,gpu_count,lifecycle,price_per_hour,currency,valid_from
                aws,us-east-1,g5.xlarge,A10G,1,on-demand,1.006,USD,2026-01-01T00:00:00Z
                aws,us-east-1,g5.xlarge,A10G,1,sometimes,1.006,USD,2026-01-01T00:00:00Z
                aws,us-east-1,g5.xlarge,A10G,1,spot,cheap,USD,2026-01-01T00:00:00Z
                aws,us-east-1,g5.xlarge,A10G,0,spot,0.3,USD,2026-01-01T00:00:00Z
                "aws","us-east-1","g4dn.xlarge","T4, 16 GB",1,spot,0.1578,USD,2026-01-01T00:00:00Z
                """;

        PriceCatalog catalog = PriceCatalog.parse(
                new ByteArrayInputStream(csv.getBytes(StandardCharsets.UTF_8)), "test.csv");

        assertThat(catalog.quotes()).extracting(PriceQuote::instanceType, PriceQuote::gpuModel)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("g5.xlarge", "A10G"),
                        org.assertj.core.groups.Tuple.tuple("g4dn.xlarge", "T4, 16 GB"));
        assertThat(catalog.errors()).containsExactly(
                "test.csv line 3: lifecycle: unknown lifecycle 'sometimes', expected one of on-demand, spot, reserved",
                "test.csv line 4: price_per_hour: is not a number: 'cheap'",
                "test.csv line 5: gpuCount: must be positive, was 0");
    }

    @Test
    void shouldReadTheSameFieldsFromAJsonCatalogAndNameTheLineOfEachBadRow() {
        // Given the JSON form of a catalog, with three rows that are wrong on purpose
        String json = PricePayloads.text("catalog.json");

        // When it is read
        PriceCatalog catalog = PriceCatalog.parse(json, "catalog.json");

        // Then the good rows become quotes and each bad one is named by the line its object starts on
        assertThat(catalog.quotes()).extracting(q -> q.instanceType() + " " + q.lifecycle().wire())
                .containsExactly("g5.xlarge on-demand", "g5.xlarge reserved", "p4d.24xlarge reserved");
        assertThat(catalog.quotes().get(0).pricePerHour()).isEqualTo(1.006);
        assertThat(catalog.quotes().get(0).validFrom()).isEqualTo(java.time.Instant.parse("2026-01-01T00:00:00Z"));
        assertThat(catalog.errors()).containsExactly(
                "catalog.json line 17: upfront_fee: only a reserved row has an upfront fee, this one is spot",
                "catalog.json line 22: term: is not a reservation term such as 1y, 3y, '1 Year' or '36 months': "
                        + "'forever'",
                "catalog.json line 27: currency: must be an ISO 4217 code such as USD, was 'usd'");
    }

    @Test
    void shouldAmortiseAnUpfrontFeeOverTheTermIntoAnEffectiveHourlyRate() {
        // Given reserved rows that pay all up front for a year, and part up front for three years
        PriceCatalog catalog = PriceCatalog.parse(PricePayloads.text("catalog.json"), "catalog.json");

        // When their quotes are read
        PriceQuote allUpfront = catalog.quotes().get(1);
        PriceQuote partialUpfront = catalog.quotes().get(2);

        // Then each carries what the reservation costs per hour over its whole term, and what it commits to
        assertThat(allUpfront.pricePerHour()).isCloseTo(5475.0 / 8760, within(1e-12));
        assertThat(partialUpfront.pricePerHour()).isCloseTo(10.0 + 262800.0 / (3 * 8760), within(1e-12));
        assertThat(partialUpfront.pricePerGpuHour()).isCloseTo(20.0 / 8, within(1e-12));
        assertThat(allUpfront.reservation()).isEqualTo(new ReservationTerms(12,
                ReservationTerms.PaymentOption.ALL_UPFRONT, 5475.0));
        assertThat(partialUpfront.reservation()).isEqualTo(new ReservationTerms(36,
                ReservationTerms.PaymentOption.PARTIAL_UPFRONT, 262800.0));
        assertThat(partialUpfront.reservation().hours()).isEqualTo(3 * 8760);
    }

    @Test
    void shouldAmortiseUpfrontFeesInTheCsvFormToo() {
        // Given a CSV catalog with the optional upfront_fee and term columns
        String csv = """
                provider,region,instance_type,gpu_model,gpu_count,lifecycle,price_per_hour,currency,valid_from,\
                upfront_fee,term
                aws,us-east-1,g5.xlarge,A10G,1,reserved,0.3,USD,2026-01-01T00:00:00Z,2628,1y
                aws,us-east-1,g5.xlarge,A10G,1,reserved,0.3,USD,2026-02-01T00:00:00Z,2628,
                aws,us-east-1,g5.xlarge,A10G,1.5,on-demand,1.006,USD,2026-01-01T00:00:00Z,,
                aws,us-east-1,g5.xlarge,A10G,1,reserved,0.3,USD,2026-03-01T00:00:00Z,-5,1y
                """;

        // When it is read
        PriceCatalog catalog = PriceCatalog.parse(csv, "reserved.csv");

        // Then the complete row is amortised and the incomplete or wrong ones are named
        assertThat(catalog.quotes()).singleElement()
                .satisfies(q -> assertThat(q.pricePerHour()).isCloseTo(0.3 + 2628.0 / 8760, within(1e-12)));
        assertThat(catalog.errors()).containsExactly(
                "reserved.csv line 3: term: is required",
                "reserved.csv line 4: gpu_count: must be a whole number, was '1.5'",
                "reserved.csv line 5: upfront_fee: must not be negative, was -5.0");
    }

    @Test
    void shouldCarryTheTermOfAReservedRowWhosePriceIsAlreadyEffective() {
        // Given a reserved row with a term and no upfront fee, and an on-demand row with a term
        String csv = """
                provider,region,instance_type,gpu_model,gpu_count,lifecycle,price_per_hour,currency,valid_from,term
                aws,us-east-1,p4d.24xlarge,A100-40GB,8,reserved,21.3005,USD,2026-01-01T00:00:00Z,3y
                aws,us-east-1,p4d.24xlarge,A100-40GB,8,on-demand,32.77,USD,2026-01-01T00:00:00Z,1y
                """;

        // When it is read
        PriceCatalog catalog = PriceCatalog.parse(csv, "terms.csv");

        // Then the reserved quote says its term, how it is paid not being known; the on-demand one has none
        assertThat(catalog.quotes()).extracting(PriceQuote::reservation)
                .containsExactly(ReservationTerms.ofMonths(36), null);
        assertThat(catalog.quotes().get(0).pricePerHour()).isEqualTo(21.3005);
    }

    @Test
    void shouldReadASpotInterruptionBandAsBothItsEdges() {
        // Given spot rows with AWS Spot Instance Advisor bands, a figure, and misplaced or wrong ones
        String csv = """
                provider,region,instance_type,gpu_model,gpu_count,lifecycle,price_per_hour,currency,valid_from,\
                interruption_frequency
                aws,us-east-1,p4d.24xlarge,A100-40GB,8,spot,9.831,USD,2026-01-01T00:00:00Z,5-10%
                aws,us-east-1,p5.48xlarge,H100-80GB,8,spot,29.496,USD,2026-01-01T00:00:00Z,>20%
                aws,us-east-1,g5.xlarge,A10G-24GB,1,spot,0.3018,USD,2026-01-01T00:00:00Z,<5%
                aws,us-east-1,g4dn.xlarge,T4-16GB,1,spot,0.1578,USD,2026-01-01T00:00:00Z,7%
                aws,us-west-2,g4dn.xlarge,T4-16GB,1,spot,0.1578,USD,2026-01-01T00:00:00Z,
                aws,us-east-1,g4dn.xlarge,T4-16GB,1,on-demand,0.526,USD,2026-01-01T00:00:00Z,<5%
                aws,us-east-1,g5.xlarge,A10G-24GB,1,spot,0.3018,USD,2026-02-01T00:00:00Z,often
                """;

        // When it is read
        PriceCatalog catalog = PriceCatalog.parse(csv, "bands.csv");

        // Then each band is its upper bound (the open one, every instance) and its lower edge, a figure is
        // both, none is null
        assertThat(catalog.quotes()).extracting(PriceQuote::interruptionFrequency)
                .containsExactly(0.10, 1.0, 0.05, 0.07, null);
        assertThat(catalog.quotes()).extracting(PriceQuote::interruptionFrequencyFloor)
                .containsExactly(0.05, 0.20, 0.0, 0.07, null);
        assertThat(catalog.errors()).containsExactly(
                "bands.csv line 7: interruption_frequency: only a spot row has an interruption frequency, this one"
                        + " is on-demand",
                "bands.csv line 8: interruption_frequency: expected a band (<5%, 5-10%, 10-15%, 15-20%, >20%) or a"
                        + " share of instances a month (7% or 0.07), got 'often'");
    }

    @Test
    void shouldRefuseAJsonCatalogThatIsNotAnArrayOfRows() {
        assertThatThrownBy(() -> PriceCatalog.parse("{\"quotes\": []}", "object.json"))
                .hasMessage("object.json: a JSON catalog is an array of rows, one object each");
        assertThatThrownBy(() -> PriceCatalog.parse("[{\"provider\": \"aws\",\n \"region\": }]", "broken.json"))
                .hasMessageStartingWith("broken.json line 2: not valid JSON");
    }

    @Test
    void shouldRefuseACatalogWithoutTheColumnsItNeeds() {
        String csv = "provider,region\naws,us-east-1\n";

        assertThatThrownBy(() -> PriceCatalog.parse(
                new ByteArrayInputStream(csv.getBytes(StandardCharsets.UTF_8)), "short.csv"))
                .hasMessageContaining("short.csv: header lacks column(s) [instance_type, gpu_count, lifecycle");
    }
}
