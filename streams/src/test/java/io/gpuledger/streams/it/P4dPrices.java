package io.gpuledger.streams.it;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.time.Instant;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Versions of one offer, an on-demand AWS p4d.24xlarge of eight A100s, published to the broker's price topic. */
public final class P4dPrices {

    public static final int GPUS_PER_INSTANCE = 8;

    private P4dPrices() {
    }

    /** The on-demand version at {@code perInstanceHour} US dollars, in force from {@code validFrom}. */
    public static PriceQuote onDemand(double perInstanceHour, Instant validFrom) {
        return new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", GPUS_PER_INSTANCE,
                perInstanceHour, "USD", validFrom, "test");
    }

    /** Publishes {@code quotes} to {@code pricing.quotes.v1}, each acknowledged before the next is sent. */
    public static void publish(String bootstrap, PriceQuote... quotes) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, PriceQuote> producer = new KafkaProducer<>(props,
                Topics.PRICES.keySerde().serializer(), Topics.PRICES.valueSerde().serializer())) {
            for (PriceQuote quote : quotes) {
                producer.send(new ProducerRecord<>(Topics.PRICES.name(), quote.key(), quote)).get();
            }
        }
    }
}
