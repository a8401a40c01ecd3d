package io.gpuledger.ingest.price;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The price feed as a service: reads every source, publishes what changed and confirms the prices
 * in force that were last confirmed {@code confirmEvery} ago, and, when watching, does it again
 * every period until stopped. A source that cannot be read this round is reported and tried again
 * next round; the others are published all the same.
 */
public final class PriceWatch {

    /** What one round read from its sources, and the sources it could not read at all. */
    public record Round(List<PriceReading> readings, List<String> failures) {

        public int quotes() {
            return readings.stream().mapToInt(reading -> reading.quotes().size()).sum();
        }
    }

    /** Told about every round, for the person running the feed. */
    public interface Listener {

        void read(Round round);

        void published(PriceFeed.Outcome outcome);

        /** A round that failed after reading, such as a broker that did not acknowledge. */
        void failed(RuntimeException problem);
    }

    private final List<PriceSource> sources;
    private final PriceFeed feed;
    private final PublishedPrices known;
    private final Listener listener;
    private final Clock clock;
    private final Duration confirmEvery;
    private final CountDownLatch stopped = new CountDownLatch(1);

    /**
     * @param clock        when each round reads its sources
     * @param confirmEvery how old the last confirmation of a price in force may grow before a
     *                     round confirms it; with the period of a watch, it bounds how old a
     *                     price may look to the cost engine while the feed runs
     */
    public PriceWatch(List<PriceSource> sources, PriceFeed feed, PublishedPrices known, Listener listener, Clock clock,
            Duration confirmEvery) {
        this.sources = List.copyOf(sources);
        this.feed = feed;
        this.known = known;
        this.listener = listener;
        this.clock = clock;
        this.confirmEvery = confirmEvery;
    }

    /** Reads every source once; a source that fails is a failure of the round, not of the others. */
    public static Round readAll(List<PriceSource> sources) {
        List<PriceReading> readings = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (PriceSource source : sources) {
            try {
                readings.add(source.read());
            } catch (PriceSourceException e) {
                failures.add(e.getMessage());
            } catch (RuntimeException e) {
                failures.add(source.origin() + ": " + e);
            }
        }
        return new Round(readings, failures);
    }

    /** One round: read, then publish what changed and confirm what is due. */
    public PriceFeed.Outcome runOnce() {
        Round round = readAll(sources);
        Instant now = clock.instant();
        listener.read(round);
        PriceFeed.Outcome outcome = feed.publishChanges(round.readings(), known, now, confirmEvery);
        listener.published(outcome);
        return outcome;
    }

    /** Rounds every {@code period} until {@link #stop()}; a failed round is reported and the next one tried. */
    public void runUntilStopped(Duration period) throws InterruptedException {
        do {
            try {
                runOnce();
            } catch (RuntimeException e) {
                listener.failed(e);
            }
        } while (!stopped.await(period.toMillis(), TimeUnit.MILLISECONDS));
    }

    /** Ends {@link #runUntilStopped} after the round in progress, or at once between rounds. */
    public void stop() {
        stopped.countDown();
    }
}
