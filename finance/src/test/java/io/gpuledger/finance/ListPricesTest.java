package io.gpuledger.finance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import org.junit.jupiter.api.Test;

/** The list price a FOCUS row states beside what the GPU cost. */
class ListPricesTest {

    @Test
    void shouldKeepTheProvidersListPriceWhenARateIsLearnedFromTheBill() {
        // Given p5.48xlarge listed at 98.32 USD/h for 8 GPUs, and later the account's rate learned from its bill,
        // 0.63 of it (a Savings Plan)
        ListPrices prices = FocusFixtures.listPrices();
        prices.add(PriceQuote.builder().provider("aws").region("us-east-1").instanceType("p5.48xlarge")
                .lifecycle(Lifecycle.ON_DEMAND).gpuCount(8).pricePerHour(98.32 * 0.63).currency("USD")
                .validFrom(FocusFixtures.HOUR.minusSeconds(3600)).source(PriceQuote.BILL_RECONCILIATION)
                .observedAt(FocusFixtures.HOUR.minusSeconds(3600)).build());

        // When an hour after it asks for its list price
        Double listed = prices.perGpuHour(new Offer("aws", "us-east-1", "p5.48xlarge", Lifecycle.SPOT), "USD",
                FocusFixtures.HOUR.toEpochMilli());

        // Then it is the provider's, 98.32 / 8: a list price at the learned rate would hide the discount it shows
        assertThat(listed).isCloseTo(12.29, within(1e-9));
    }
}
