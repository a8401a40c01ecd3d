package io.gpuledger.ingest.price;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PublishedPricesTest {

    private static final Instant JAN = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant MAR = Instant.parse("2026-03-01T00:00:00Z");

    @Test
    void shouldSkipIdenticalQuotesAndTreatANewValidFromOrAChangedPriceAsNews() {
        // Given a topic holding one version of the g5 on-demand price
        PublishedPrices known = PublishedPrices.empty();
        known.record(List.of(quote(1.006, JAN)));

        // When a catalog reading repeats it, corrects it, and adds a later version
        List<PriceQuote> news = known.news(List.of(dated(quote(1.006, JAN), quote(1.006, MAR))));
        List<PriceQuote> corrected = known.news(List.of(dated(quote(1.1, JAN))));

        // Then only the new version, and the correction, are news
        assertThat(news).containsExactly(quote(1.006, MAR));
        assertThat(corrected).containsExactly(quote(1.1, JAN));
    }

    @Test
    void shouldSkipAnUndatedPriceThatEqualsTheVersionInForce() {
        // Given a topic holding the price SkyPilot's catalog gave in January
        PublishedPrices known = PublishedPrices.empty();
        known.record(List.of(quote(1.006, JAN)));

        // When the catalog is read again in March, once unchanged and once with a new price
        List<PriceQuote> unchanged = known.news(List.of(undated(quote(1.006, MAR))));
        List<PriceQuote> changed = known.news(List.of(undated(quote(0.95, MAR))));

        // Then the unchanged price is no news, and the new one is a version from March
        assertThat(unchanged).isEmpty();
        assertThat(changed).containsExactly(quote(0.95, MAR));
    }

    @Test
    void shouldPublishAQuoteReadTwiceInOneRoundOnce() {
        // Given two sources that both give the same version
        PublishedPrices known = PublishedPrices.empty();

        // When their readings are judged together
        List<PriceQuote> news = known.news(List.of(dated(quote(1.006, JAN)), dated(quote(1.006, JAN))));

        // Then it is news once, and judging changed nothing until it is recorded
        assertThat(news).hasSize(1);
        assertThat(known.size()).isZero();
    }

    @Test
    void shouldFindTheVersionInForceAtATime() {
        // Given two versions of one offer and one of another
        PublishedPrices known = PublishedPrices.empty();
        known.record(List.of(quote(1.006, JAN), quote(0.9, MAR), new PriceQuote("aws", "us-east-1", "g5.xlarge",
                Lifecycle.SPOT, "A10G", 1, 0.3, "USD", JAN, "test")));
        Offer onDemand = new Offer("aws", "us-east-1", "g5.xlarge", Lifecycle.ON_DEMAND);

        // When the version in force is asked for, Then it is the latest one started by then
        assertThat(known.inForce(onDemand, Instant.parse("2026-02-15T00:00:00Z"))).contains(quote(1.006, JAN));
        assertThat(known.inForce(onDemand, MAR)).contains(quote(0.9, MAR));
        assertThat(known.inForce(onDemand, Instant.parse("2025-12-31T23:59:59Z"))).isEmpty();
    }

    private static PriceQuote quote(double price, Instant validFrom) {
        return new PriceQuote("aws", "us-east-1", "g5.xlarge", Lifecycle.ON_DEMAND, "A10G", 1, price, "USD", validFrom,
                "test");
    }

    private static PriceReading dated(PriceQuote... quotes) {
        return new PriceReading("test", PriceReading.Dating.FROM_SOURCE, List.of(quotes), List.of(), List.of());
    }

    private static PriceReading undated(PriceQuote... quotes) {
        return new PriceReading("test", PriceReading.Dating.AT_READING, List.of(quotes), List.of(), List.of());
    }
}
