package io.gpuledger.ingest.price;

import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Publishes price versions to {@link Topics#PRICES}. Each quote goes under its version key, so
 * publishing the same catalog twice changes nothing after compaction; {@link #publishChanges}
 * does not even send it twice, only a confirmation of the version in force now and then.
 */
public final class PriceFeed {

    /**
     * What one publication of readings did.
     *
     * @param published new versions and corrections sent
     * @param confirmed versions in force sent again as confirmations
     * @param unchanged quotes read that were no news
     */
    public record Outcome(int published, int confirmed, int unchanged) {
    }

    private final Producer<String, PriceQuote> producer;

    public PriceFeed(Producer<String, PriceQuote> producer) {
        this.producer = producer;
    }

    /**
     * Publishes what readings made at {@code now} tell the topic, as {@code known} holds it: the
     * quotes that are news, and confirmations of the versions in force last confirmed
     * {@code confirmEvery} ago or earlier. Waits for the broker's acknowledgement, then notes them
     * in {@code known}. Nothing is noted when a send fails, so that the next attempt sends again.
     */
    public Outcome publishChanges(List<PriceReading> readings, PublishedPrices known, Instant now,
            Duration confirmEvery) {
        PublishedPrices.News news = known.news(readings, now, confirmEvery);
        List<PriceQuote> all = news.all();
        publish(all);
        known.record(all);
        int read = readings.stream().mapToInt(reading -> reading.quotes().size()).sum();
        return new Outcome(news.versions().size(), news.confirmations().size(), read - news.versions().size());
    }

    /** Sends every quote and waits until the broker has acknowledged all of them. */
    public int publish(Collection<PriceQuote> quotes) {
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        for (PriceQuote quote : quotes) {
            sends.add(producer.send(new ProducerRecord<>(Topics.PRICES.name(), quote.key(), quote)));
        }
        producer.flush();
        for (Future<RecordMetadata> send : sends) {
            try {
                send.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while publishing prices", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("price quote not acknowledged: " + e.getCause().getMessage(),
                        e.getCause());
            }
        }
        return quotes.size();
    }
}
