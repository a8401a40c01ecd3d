package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.PriceQuote;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PriceBoardTest {

    private static final Instant T0 = Instant.parse("2026-03-01T00:00:00Z");
    private static final Offer SPOT = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT);

    @ParameterizedTest(name = "held from +{0} s at {1}, then +{2} s at {3}: {4} taken, price {5}")
    @CsvSource({
            // held,   second quote, taken?, price after
            "0, 10.0,  60, 11.0,  true,  11.0",  // later version replaces
            "60, 11.0, 0,  10.0,  false, 11.0",  // a late, older version is ignored
            "60, 11.0, 60, 12.0,  true,  12.0"}) // same version re-published: the correction wins
    void shouldKeepTheLatestVersionOfAnOffer(long heldAt, double heldPrice, long nextAt, double nextPrice,
            boolean taken, double priceAfter) {
        // Given a board holding one quote of the offer
        PriceBoard board = new PriceBoard();
        board.update(quote(SPOT, heldPrice, heldAt));

        // When another version arrives
        boolean accepted = board.update(quote(SPOT, nextPrice, nextAt));

        // Then only a version not older than the held one is taken
        assertThat(accepted).isEqualTo(taken);
        assertThat(board.price(SPOT)).get().extracting(PriceQuote::pricePerHour).isEqualTo(priceAfter);
    }

    @Test
    void shouldListTheWaysOfBuyingAnInstanceTypeByLifecycle() {
        // Given on-demand and spot quotes of one type, and one of another region
        PriceBoard board = new PriceBoard();
        board.update(quote(new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND), 32.77, 0));
        board.update(quote(SPOT, 9.831, 0));
        board.update(quote(new Offer("aws", "us-west-2", "p4d.24xlarge", Lifecycle.RESERVED), 21.3, 0));

        // Then the type in us-east-1 has exactly those two, and all three are on the board in key order
        assertThat(board.offersOf("aws", "us-east-1", "p4d.24xlarge")).containsOnlyKeys(Lifecycle.ON_DEMAND,
                Lifecycle.SPOT);
        assertThat(board.all()).extracting(q -> q.offer().key()).containsExactly(
                "aws|us-east-1|p4d.24xlarge|on-demand", "aws|us-east-1|p4d.24xlarge|spot",
                "aws|us-west-2|p4d.24xlarge|reserved");
        assertThat(board.price(new Offer("aws", "us-west-2", "p4d.24xlarge", Lifecycle.SPOT))).isEmpty();
    }

    @Test
    void shouldEndWithTheLatestVersionWhateverTheOrderOfConcurrentUpdates() throws Exception {
        // Given 4 threads each publishing 500 versions of one offer
        PriceBoard board = new PriceBoard();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> done = new ArrayList<>();
        for (int thread = 0; thread < 4; thread++) {
            int offset = thread;
            done.add(pool.submit(() -> {
                for (int i = 0; i < 500; i++) {
                    board.update(quote(SPOT, i * 4 + offset, i * 4L + offset));
                }
            }));
        }
        for (Future<?> future : done) {
            future.get(10, TimeUnit.SECONDS);
        }
        pool.shutdown();

        // Then the board holds the newest one: version 1999 at +1999 s
        assertThat(board.price(SPOT)).get().extracting(PriceQuote::pricePerHour).isEqualTo(1999.0);
        assertThat(board.all()).extracting(PriceQuote::pricePerHour).containsExactly(1999.0);
    }

    @Test
    void shouldListEveryOfferAsItStandsAfterEachChange() {
        // Given a board listed once
        PriceBoard board = new PriceBoard();
        Offer onDemand = new Offer("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND);
        board.update(quote(SPOT, 9.8, 0));
        assertThat(board.all()).extracting(PriceQuote::pricePerHour).containsExactly(9.8);

        // When an offer is added, a version replaces one, and a late version is ignored
        board.update(quote(onDemand, 32.77, 0));
        List<PriceQuote> afterAdding = board.all();
        board.update(quote(SPOT, 11.2, 60));
        board.update(quote(SPOT, 7.0, 30));

        // Then each listing shows the board as it stood when it was asked for
        assertThat(afterAdding).extracting(PriceQuote::pricePerHour).containsExactly(32.77, 9.8);
        assertThat(board.all()).extracting(PriceQuote::pricePerHour).containsExactly(32.77, 11.2);
        assertThat(board.all()).isSameAs(board.all());
    }

    static PriceQuote quote(Offer offer, double pricePerHour, long secondsAfterT0) {
        return new PriceQuote(offer.provider(), offer.region(), offer.instanceType(), offer.lifecycle(), "A100-40GB",
                8, pricePerHour, "USD", T0.plusSeconds(secondsAfterT0), "test");
    }
}
