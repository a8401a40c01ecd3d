package io.gpuledger.ingest.price;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The watch loop alone; publishing to a real broker is {@link PriceFeedOnBrokerTest}'s. */
class PriceWatchTest {

    @Test
    void shouldReadAgainEveryPeriodPublishOnlyWhatChangedAndStopWhenAsked() throws Exception {
        // Given a source whose price changes on its third reading, and a watch every 20 ms
        AtomicInteger readings = new AtomicInteger();
        PriceSource source = source(() -> readings.incrementAndGet() < 3 ? 1.006 : 0.95);
        MockProducer<String, PriceQuote> producer = new MockProducer<>(true, null, new StringSerializer(),
                Topics.PRICES.valueSerde().serializer());
        Recorder recorder = new Recorder();
        PriceWatch watch = new PriceWatch(List.of(source), new PriceFeed(producer), PublishedPrices.empty(), recorder);

        // When it runs until a few rounds are done, and is stopped
        Thread loop = new Thread(() -> {
            try {
                watch.runUntilStopped(Duration.ofMillis(20));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        loop.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (readings.get() < 5 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        watch.stop();
        loop.join(5_000);

        // Then it stopped, and sent the first price and the changed one, nothing else
        assertThat(loop.isAlive()).isFalse();
        assertThat(producer.history()).extracting(record -> record.value().pricePerHour()).containsExactly(1.006, 0.95);
        assertThat(recorder.outcomes.get(0)).isEqualTo(new PriceFeed.Outcome(1, 0));
        assertThat(recorder.outcomes.get(1)).isEqualTo(new PriceFeed.Outcome(0, 1));
    }

    @Test
    void shouldPublishTheSourcesThatCanBeReadWhenAnotherCannot() {
        // Given a source that fails and one that works
        PriceSource broken = new PriceSource() {
            @Override
            public String origin() {
                return "broken";
            }

            @Override
            public PriceReading read() {
                throw new PriceSourceException("broken: HTTP 503");
            }
        };
        MockProducer<String, PriceQuote> producer = new MockProducer<>(true, null, new StringSerializer(),
                Topics.PRICES.valueSerde().serializer());
        Recorder recorder = new Recorder();

        // When one round runs
        new PriceWatch(List.of(broken, source(() -> 1.006)), new PriceFeed(producer), PublishedPrices.empty(), recorder)
                .runOnce();

        // Then the failure is reported and the other source's quote published
        assertThat(recorder.rounds.get(0).failures()).containsExactly("broken: HTTP 503");
        assertThat(producer.history()).hasSize(1);
    }

    private static PriceSource source(java.util.function.DoubleSupplier price) {
        return new PriceSource() {
            @Override
            public String origin() {
                return "changing";
            }

            @Override
            public PriceReading read() {
                PriceQuote quote = new PriceQuote("aws", "us-east-1", "g5.xlarge", Lifecycle.ON_DEMAND, "A10G", 1,
                        price.getAsDouble(), "USD", Instant.parse("2026-01-01T00:00:00Z"), "test");
                return new PriceReading(origin(), PriceReading.Dating.FROM_SOURCE, List.of(quote), List.of(), List.of());
            }
        };
    }

    private static final class Recorder implements PriceWatch.Listener {

        final List<PriceWatch.Round> rounds = new CopyOnWriteArrayList<>();
        final List<PriceFeed.Outcome> outcomes = new CopyOnWriteArrayList<>();

        @Override
        public void read(PriceWatch.Round round) {
            rounds.add(round);
        }

        @Override
        public void published(PriceFeed.Outcome outcome) {
            outcomes.add(outcome);
        }

        @Override
        public void failed(RuntimeException problem) {
            throw new AssertionError("no round should fail", problem);
        }
    }
}
