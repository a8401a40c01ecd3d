package io.gpuledger.ingest.price;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The watch loop alone; publishing to a real broker is {@link PriceFeedOnBrokerIT}'s. */
class PriceWatchTest {

    private static final Instant NOW = Instant.parse("2026-04-01T00:00:00Z");
    private static final Duration EVERY = Duration.ofMinutes(10);

    @Test
    void shouldReadAgainEveryPeriodPublishOnlyWhatChangedAndStopWhenAsked() throws Exception {
        // Given a source whose price changes on its third reading, and a watch every 20 ms
        AtomicInteger readings = new AtomicInteger();
        PriceSource source = source(() -> readings.incrementAndGet() < 3 ? 1.006 : 0.95);
        MockProducer<String, PriceQuote> producer = new MockProducer<>(true, null, new StringSerializer(),
                Topics.PRICES.valueSerde().serializer());
        Recorder recorder = new Recorder();
        PriceWatch watch = new PriceWatch(List.of(source), new PriceFeed(producer), PublishedPrices.empty(), recorder,
                Clock.fixed(NOW, ZoneOffset.UTC), EVERY);

        // When it runs until a few rounds are done, and is stopped
        Thread loop = new Thread(() -> {
            try {
                watch.runUntilStopped(Duration.ofMillis(20));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        loop.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> readings.get() >= 5);
        watch.stop();
        loop.join(5_000);

        // Then it stopped, and sent the first price and the changed one, nothing else
        assertThat(loop.isAlive()).isFalse();
        assertThat(producer.history()).extracting(record -> record.value().pricePerHour()).containsExactly(1.006, 0.95);
        assertThat(recorder.outcomes.get(0)).isEqualTo(new PriceFeed.Outcome(1, 0, 0));
        assertThat(recorder.outcomes.get(1)).isEqualTo(new PriceFeed.Outcome(0, 0, 1));
    }

    @Test
    void shouldConfirmAnUnchangedPriceEachTimeItsLastConfirmationIsDue() {
        // Given a source whose price never changes, read by a feed whose clock moves 4 minutes a round
        MockProducer<String, PriceQuote> producer = new MockProducer<>(true, null, new StringSerializer(),
                Topics.PRICES.valueSerde().serializer());
        AtomicReference<Instant> now = new AtomicReference<>(NOW);
        Recorder recorder = new Recorder();
        PriceWatch watch = new PriceWatch(List.of(source(() -> 1.006)), new PriceFeed(producer),
                PublishedPrices.empty(), recorder, clock(now), EVERY);

        // When it runs seven rounds, 0 to 24 minutes after it started
        for (int round = 0; round < 7; round++) {
            watch.runOnce();
            now.set(now.get().plus(Duration.ofMinutes(4)));
        }

        // Then the price went out once, observed when read, then again under its key each round that
        // found it confirmed 10 minutes ago or more: at 12 and at 24 minutes
        assertThat(producer.history()).extracting(record -> record.key() + " " + record.value().observedAt())
                .containsExactly(
                        "aws|us-east-1|g5.xlarge|on-demand|2026-01-01T00:00:00Z 2026-04-01T00:00:00Z",
                        "aws|us-east-1|g5.xlarge|on-demand|2026-01-01T00:00:00Z 2026-04-01T00:12:00Z",
                        "aws|us-east-1|g5.xlarge|on-demand|2026-01-01T00:00:00Z 2026-04-01T00:24:00Z");
        assertThat(recorder.outcomes).extracting(PriceFeed.Outcome::confirmed).containsExactly(0, 0, 0, 1, 0, 0, 1);
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
        new PriceWatch(List.of(broken, source(() -> 1.006)), new PriceFeed(producer), PublishedPrices.empty(), recorder,
                Clock.fixed(NOW, ZoneOffset.UTC), EVERY).runOnce();

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
                return new PriceReading(origin(), PriceReading.Dating.FROM_SOURCE, List.of(quote), List.of(),
                        List.of());
            }
        };
    }

    private static Clock clock(AtomicReference<Instant> now) {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Instant instant() {
                return now.get();
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
