package io.gpuledger.finance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The price versions a reconciliation learns, run again over the same bill and over the next. */
class LearnedPricesTest {

    private static final Offer P5 = new Offer("aws", "us-east-1", "p5.48xlarge", Lifecycle.ON_DEMAND);
    private static final Instant LISTED = Instant.parse("2026-10-01T00:00:00Z");
    private static final Instant OCTOBER = Instant.parse("2026-10-01T00:00:00Z");
    private static final Instant NOVEMBER = Instant.parse("2026-11-01T00:00:00Z");

    @Test
    void shouldLearnABillsDiscountOnceHoweverOftenTheSameBillIsReconciled() {
        // Given p5.48xlarge listed at 98.32 USD/h, and October's bill at 0.8 of the estimates priced at it
        List<PriceQuote> versions = new ArrayList<>(List.of(PriceQuote.builder().provider("aws").region("us-east-1")
                .instanceType("p5.48xlarge").lifecycle(Lifecycle.ON_DEMAND).gpuCount(8).pricePerHour(98.32)
                .currency("USD").validFrom(LISTED).source("aws-price-list").observedAt(LISTED).build()));
        List<Reconciliation.OfferRate> october = List.of(rate(1000, 800));

        // When it is reconciled on November 2nd, and its learned price published
        List<PriceQuote> first = LearnedPrices.versions(october, versions, OCTOBER, NOVEMBER.plusSeconds(86400));
        versions.addAll(first);

        // Then the price learned is 0.8 of the list price
        assertThat(first).singleElement().satisfies(learned -> assertThat(learned.pricePerHour())
                .isCloseTo(98.32 * 0.8, within(1e-9)));

        // When the same bill is reconciled again a day later: its estimates were priced at the list price still
        List<PriceQuote> again = LearnedPrices.versions(october, versions, OCTOBER, NOVEMBER.plusSeconds(2 * 86400));

        // Then nothing more is learned: 0.8 of the learned price would take the discount twice
        assertThat(again).isEmpty();

        // When November's bill, whose estimates the learned price priced, is at 0.95 of them
        List<PriceQuote> next = LearnedPrices.versions(List.of(rate(1000, 950)), versions,
                NOVEMBER.plusSeconds(2 * 86400), Instant.parse("2026-12-02T00:00:00Z"));

        // Then the learned price is corrected by that ratio
        assertThat(next).singleElement().satisfies(learned -> assertThat(learned.pricePerHour())
                .isCloseTo(98.32 * 0.8 * 0.95, within(1e-9)));
    }

    private static Reconciliation.OfferRate rate(double estimated, double effective) {
        return new Reconciliation.OfferRate(P5, "123456789012", BigDecimal.valueOf(estimated),
                BigDecimal.valueOf(effective), effective / estimated);
    }
}
