package io.gpuledger.ingest.price.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.gpuledger.ingest.price.Fetcher;
import io.gpuledger.ingest.price.InstanceTypes;
import io.gpuledger.ingest.price.Location;
import io.gpuledger.ingest.price.PriceApiStandIn;
import io.gpuledger.ingest.price.PricePayloads;
import io.gpuledger.ingest.price.PriceReading;
import io.gpuledger.ingest.price.PriceSourceException;
import io.gpuledger.ingest.price.ReservedTerm;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.ReservationTerms;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetailPricesTest {

    /**
     * Standard_E4ds_v4 has no GPU; listed here only so that the published example's prices can be followed to a quote.
     */
    private static final InstanceTypes STAND_IN = InstanceTypes.parse("""
            provider,instance_type,gpu_model,gpu_count
            azure,Standard_E4ds_v4,stand-in,1
            azure,Standard_NC24ads_A100_v4,A100-80GB,1
            """, "stand-in");

    private static final String API = "/api/retail/prices";

    @Test
    void shouldFollowNextPageLinkAndQuoteOnlyTheLinuxVmPricesOfEveryPage() {
        // Given a stand-in of the API serving the published items as two linked pages
        try (PriceApiStandIn azure = new PriceApiStandIn()) {
            azure.answer(API + "?$filter=serviceName%20eq%20'Virtual%20Machines'",
                            PricePayloads.text("azure-retail-prices-page-1.json")
                                    .replace("https://prices.azure.com:443", azure.base()))
                    .answer(API + "?$skip=100", PricePayloads.text("azure-retail-prices-page-2.json"));
            RetailPrices source = new RetailPrices(
                    List.of(new Location(azure.base() + API + "?$filter=serviceName eq 'Virtual Machines'")),
                    Fetcher.standard(), STAND_IN, ReservedTerm.ONE_YEAR);

            // When it is read
            PriceReading reading = source.read();

            // Then both pages were fetched, and the consumption and reservation prices of the Linux VM are quoted
            assertThat(azure.requests()).containsExactly(
                    API + "?$filter=serviceName%20eq%20'Virtual%20Machines'", API + "?$skip=100");
            assertThat(reading.quotes()).containsExactly(
                    new PriceQuote("azure", "westeurope", "Standard_E4ds_v4", Lifecycle.ON_DEMAND, "stand-in", 1,
                            0.346, "USD", Instant.parse("2020-06-01T00:00:00Z"), RetailPrices.SOURCE),
                    new PriceQuote("azure", "westeurope", "Standard_E4ds_v4", Lifecycle.RESERVED, "stand-in", 1,
                            1788.0 / 8760, "USD", Instant.parse("2020-06-01T00:00:00Z"), RetailPrices.SOURCE)
                            .withReservation(ReservationTerms.ofMonths(12)));
            assertThat(reading.rejected()).isEmpty();
            assertThat(reading.skipped()).extracting(PriceReading.Skipped::reason).containsExactly(
                    "Windows: the price includes an OS licence",
                    "serviceName 'Virtual Machines Licenses': not a virtual machine price");
        }
    }

    @Test
    void shouldDivideAReservationsWholeTermPriceByItsHoursThoughItsUnitSaysOneHour() {
        // Given the published 1-year reservation item: retailPrice 1788.0, unitOfMeasure "1 Hour"
        String page = PricePayloads.text("azure-retail-prices-page-2.json");

        // When it is read
        PriceReading reading = RetailPrices.parse(List.of(page), "page-2.json", STAND_IN, ReservedTerm.ONE_YEAR);

        // Then the quote is the effective hourly rate over 8760 hours, not 1788 an hour
        assertThat(reading.quotes()).singleElement().satisfies(quote -> {
            assertThat(quote.lifecycle()).isEqualTo(Lifecycle.RESERVED);
            assertThat(quote.pricePerHour()).isEqualTo(1788.0 / 8760);
        });
    }

    @Test
    void shouldSkipSizesWithoutKnownGpusAndSayThatASavedPageIsReadAlone() {
        // Given the first published page saved in a file, and the shipped table
        Location saved = new Location(PricePayloads.path("azure-retail-prices-page-1.json").toString());
        RetailPrices source = new RetailPrices(List.of(saved), Fetcher.standard(), InstanceTypes.defaults(),
                ReservedTerm.ONE_YEAR);

        // When it is read
        PriceReading reading = source.read();

        // Then nothing is quoted: one item is Windows, the other a size without GPUs; the link is not followed
        assertThat(reading.quotes()).isEmpty();
        assertThat(reading.skipped()).extracting(PriceReading.Skipped::reason).containsExactly(
                "Windows: the price includes an OS licence",
                "instance type Standard_E4ds_v4: its GPUs are unknown (add it to an instance-type table)",
                "NextPageLink not followed: a saved page is read alone (give each saved page, or the API URL)");
    }

    @Test
    void shouldTakeSpotFromTheSkuNameAndPreferTheSpotMeterToLowPriority() {
        // Given (written for this test: no published Linux spot item was found) the meters of one size
        String page = page(
                item("NC24ads A100 v4", "Consumption", 3.673, null),
                item("NC24ads A100 v4 Low Priority", "Consumption", 0.7346, null),
                item("NC24ads A100 v4 Spot", "Consumption", 0.9, null),
                item("NC24ads A100 v4", "Reservation", 20000.0, "3 Years"),
                item("NC24ads A100 v4", "DevTestConsumption", 3.0, null));

        // When the page is read
        PriceReading reading = RetailPrices.parse(List.of(page), "meters.json", STAND_IN, ReservedTerm.ONE_YEAR);

        // Then there is one on-demand and one spot price, the Spot meter's
        assertThat(reading.quotes()).extracting(q -> q.lifecycle().wire(), PriceQuote::pricePerHour)
                .containsExactly(tuple("on-demand", 3.673), tuple("spot", 0.9));
        assertThat(reading.skipped()).extracting(PriceReading.Skipped::reason).containsExactly(
                "Low Priority meter: the Spot meter of the same size is its spot price",
                "reservation term 3y: the 1y term is the one published",
                "Dev/Test price: paid only by Dev/Test subscriptions");
    }

    @Test
    void shouldRejectAnItemWithoutAPriceAndNameItsLine() {
        // Given (written for this test) an item with its retailPrice missing
        String page = "{\"Items\": [\n" + item("NC24ads A100 v4", "Consumption", 3.673, null)
                .replace("\"retailPrice\": 3.673,", "") + "\n], \"NextPageLink\": null}";

        // When it is read
        PriceReading reading = RetailPrices.parse(List.of(page), "missing.json", STAND_IN, ReservedTerm.ONE_YEAR);

        // Then it is rejected, not quoted
        assertThat(reading.quotes()).isEmpty();
        assertThat(reading.rejected()).containsExactly("missing.json line 2: retailPrice: is required");
    }

    @Test
    void shouldRefuseANextPageLinkToAnotherHost() {
        // Given a first page whose NextPageLink points at another host (localhost is another name than
        // 127.0.0.1 to a client), where a second page waits
        try (PriceApiStandIn azure = new PriceApiStandIn(); PriceApiStandIn elsewhere = new PriceApiStandIn()) {
            String foreign = elsewhere.base().replace("127.0.0.1", "localhost");
            azure.answer(API, PricePayloads.text("azure-retail-prices-page-1.json")
                    .replace("https://prices.azure.com:443", foreign));
            elsewhere.answer(API + "?$skip=100", PricePayloads.text("azure-retail-prices-page-2.json"));
            Fetcher fetcher = Fetcher.standard();
            RetailPrices source = new RetailPrices(List.of(new Location(azure.base() + API)), fetcher, STAND_IN,
                    ReservedTerm.ONE_YEAR);

            // When it is read, Then the link is refused and counted, and the other host never asked
            assertThatThrownBy(source::read).isInstanceOf(PriceSourceException.class)
                    .hasMessage(azure.base() + API + ": link to " + foreign + API + "?$skip=100 refused: "
                            + "not the same host as 127.0.0.1");
            assertThat(fetcher.refused()).containsEntry(Fetcher.Refusal.LINK, 1L);
            assertThat(elsewhere.requests()).isEmpty();
        }
    }

    @Test
    void shouldReportAnApiThatAnswersWithAnErrorAsAnUnreadableSource() {
        // Given an API that fails
        try (PriceApiStandIn azure = new PriceApiStandIn()) {
            azure.fail(API, 503);
            RetailPrices source = new RetailPrices(List.of(new Location(azure.base() + API)), Fetcher.standard(),
                    STAND_IN, ReservedTerm.ONE_YEAR);

            // When it is read, Then the failure names the URL and the status
            assertThatThrownBy(source::read).isInstanceOf(PriceSourceException.class)
                    .hasMessage(azure.base() + API + ": HTTP 503");
        }
    }

    private static String page(String... items) {
        return "{\"Items\": [\n" + String.join(",\n", items) + "\n], \"NextPageLink\": null}";
    }

    private static String item(String skuName, String type, double retailPrice, String reservationTerm) {
        return """
                {"currencyCode": "USD", "retailPrice": %s, "armRegionName": "eastus",
                 "effectiveStartDate": "2024-01-01T00:00:00Z", "meterName": "%s", "productName": "Virtual Machines \
                NCadsv4 Series",
                 "skuName": "%s", "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": "%s",%s
                 "armSkuName": "Standard_NC24ads_A100_v4"}""".formatted(retailPrice, skuName, skuName, type,
                reservationTerm == null ? "" : " \"reservationTerm\": \"" + reservationTerm + "\",");
    }
}
