package io.gpuledger.ingest.price;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PublishedPricesTest {

    private static final Instant JAN = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant MAR = Instant.parse("2026-03-01T00:00:00Z");
    private static final Instant APR = Instant.parse("2026-04-01T00:00:00Z");
    private static final Duration EVERY = Duration.ofMinutes(10);

    @Test
    void shouldSkipIdenticalQuotesAndTreatANewValidFromOrAChangedPriceAsNews() {
        // Given a topic holding one version of the g5 on-demand price, confirmed in April
        PublishedPrices known = PublishedPrices.empty();
        known.record(List.of(quote(1.006, JAN).confirmedAt(APR)));

        // When a catalog reading repeats it, corrects it, and adds a later version
        List<PriceQuote> news = known.news(List.of(dated(quote(1.006, JAN), quote(1.006, MAR))), APR, EVERY)
                .versions();
        List<PriceQuote> corrected = known.news(List.of(dated(quote(1.1, JAN))), APR, EVERY).versions();

        // Then only the new version, and the correction, are news, each observed when read
        assertThat(news).containsExactly(quote(1.006, MAR).confirmedAt(APR));
        assertThat(corrected).containsExactly(quote(1.1, JAN).confirmedAt(APR));
    }

    @Test
    void shouldSkipAnUndatedPriceThatEqualsTheVersionInForce() {
        // Given a topic holding the price SkyPilot's catalog gave in January
        PublishedPrices known = PublishedPrices.empty();
        known.record(List.of(quote(1.006, JAN)));

        // When the catalog is read again in March, once unchanged and once with a new price
        List<PriceQuote> unchanged = known.news(List.of(undated(quote(1.006, MAR))), MAR, EVERY).versions();
        List<PriceQuote> changed = known.news(List.of(undated(quote(0.95, MAR))), MAR, EVERY).versions();

        // Then the unchanged price is no news, and the new one is a version from March
        assertThat(unchanged).isEmpty();
        assertThat(changed).containsExactly(quote(0.95, MAR));
    }

    @Test
    void shouldKeepAPriceLearnedFromTheBillUntilTheListPriceItselfChanges() {
        // Given the catalog's January price, and a version learned from the bill in February, 7% under it
        PublishedPrices known = PublishedPrices.empty();
        known.record(List.of(quote(1.006, JAN), quote(1.006 * 0.93, Instant.parse("2026-02-01T00:00:00Z"))
                .toBuilder().source(PriceQuote.BILL_RECONCILIATION).build()));

        // When the catalog is read again in March, unchanged, and then with a new list price
        List<PriceQuote> unchanged = known.news(List.of(undated(quote(1.006, MAR))), MAR, EVERY).versions();
        List<PriceQuote> changed = known.news(List.of(undated(quote(0.95, MAR))), MAR, EVERY).versions();

        // Then the unchanged list price is no news against the learned one; the new list price is
        assertThat(unchanged).isEmpty();
        assertThat(changed).containsExactly(quote(0.95, MAR));
    }

    @Test
    void shouldPublishAQuoteReadTwiceInOneRoundOnce() {
        // Given two sources that both give the same version
        PublishedPrices known = PublishedPrices.empty();

        // When their readings are judged together
        PublishedPrices.News news = known.news(List.of(dated(quote(1.006, JAN)), dated(quote(1.006, JAN))), APR,
                EVERY);

        // Then it is news once, needs no confirmation yet, and judging changed nothing until it is recorded
        assertThat(news.versions()).hasSize(1);
        assertThat(news.confirmations()).isEmpty();
        assertThat(known.size()).isZero();
    }

    @Test
    void shouldConfirmThePriceInForceOfAnOfferItReadsOnceItsLastConfirmationIsDue() {
        // Given a topic holding a version written before confirmations existed, and a later one not valid yet
        PublishedPrices known = PublishedPrices.empty();
        known.record(List.of(quote(1.006, JAN), quote(0.9, APR.plus(Duration.ofDays(30)))));
        PriceReading catalog = dated(quote(1.006, JAN), quote(0.9, APR.plus(Duration.ofDays(30))));

        // When the unchanged catalog is read in April, then 5 and 10 minutes later, each round recorded
        PublishedPrices.News first = known.news(List.of(catalog), APR, EVERY);
        known.record(first.all());
        PublishedPrices.News early = known.news(List.of(catalog), APR.plus(Duration.ofMinutes(5)), EVERY);
        known.record(early.all());
        PublishedPrices.News due = known.news(List.of(catalog), APR.plus(EVERY), EVERY);

        // Then no version is news, and the one in force is confirmed at once, then only once due again
        assertThat(first.versions()).isEmpty();
        assertThat(first.confirmations()).containsExactly(quote(1.006, JAN).confirmedAt(APR));
        assertThat(early.all()).isEmpty();
        assertThat(due.versions()).isEmpty();
        assertThat(due.confirmations()).containsExactly(quote(1.006, JAN).confirmedAt(APR.plus(EVERY)));
        assertThat(due.confirmations().get(0).key()).isEqualTo(quote(1.006, JAN).key());
    }

    @Test
    void shouldConfirmOnlyTheOffersTheSourcesStillRead() {
        // Given a topic holding the on-demand and the spot price of the g5
        PublishedPrices known = PublishedPrices.empty();
        known.record(List.of(quote(1.006, JAN), spot(0.3, JAN)));

        // When a reading in April no longer gives the spot price
        PublishedPrices.News news = known.news(List.of(dated(quote(1.006, JAN))), APR, EVERY);

        // Then the on-demand price is confirmed, and the spot price is left to go stale
        assertThat(news.confirmations()).containsExactly(quote(1.006, JAN).confirmedAt(APR));
    }

    @Test
    void shouldFindTheVersionInForceAtATime() {
        // Given two versions of one offer and one of another
        PublishedPrices known = PublishedPrices.empty();
        known.record(List.of(quote(1.006, JAN), quote(0.9, MAR), spot(0.3, JAN)));
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

    private static PriceQuote spot(double price, Instant validFrom) {
        return new PriceQuote("aws", "us-east-1", "g5.xlarge", Lifecycle.SPOT, "A10G", 1, price, "USD", validFrom,
                "test");
    }

    private static PriceReading dated(PriceQuote... quotes) {
        return new PriceReading("test", PriceReading.Dating.FROM_SOURCE, List.of(quotes), List.of(), List.of());
    }

    private static PriceReading undated(PriceQuote... quotes) {
        return new PriceReading("test", PriceReading.Dating.AT_READING, List.of(quotes), List.of(), List.of());
    }
}
