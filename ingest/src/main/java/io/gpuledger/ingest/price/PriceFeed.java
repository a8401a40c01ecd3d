package io.gpuledger.ingest.price;

import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.util.Collection;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Publishes price versions to {@link Topics#PRICES}. Each quote goes under its version key, so
 * publishing the same catalog twice changes nothing after compaction.
 */
public final class PriceFeed {

    private final Producer<String, PriceQuote> producer;

    public PriceFeed(Producer<String, PriceQuote> producer) {
        this.producer = producer;
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
                throw new IllegalStateException("price quote not acknowledged: " + e.getCause().getMessage(), e.getCause());
            }
        }
        return quotes.size();
    }
}
