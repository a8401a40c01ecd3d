package io.gpuledger.alerts.feed;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * What the alert service reads back at start: a record it cannot read, or one that breaks what it does with
 * the records, is passed over, and the read-back goes on to the topic's end. Failing on it would fail every
 * start of the service, since the record stays in the topic.
 */
class TopicReplayIT {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void shouldReadBackEveryPriceVersionAroundPoisonsAndARecordThatBreaksItsReader() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            TopicAdmin.ensureTopics(kafka.bootstrapServers(), 1);
            // Given, on one partition, a version, every poison, a version the reader breaks on, and a last version
            PriceQuote first = quote(30.0, T0);
            PriceQuote breaking = quote(13.0, T0.plusSeconds(10));
            PriceQuote last = quote(40.0, T0.plusSeconds(20));
            try (Producer<String, byte[]> producer = new KafkaProducer<>(
                    KafkaClients.producer(kafka.bootstrapServers(), "replay-test"), new StringSerializer(),
                    new ByteArraySerializer())) {
                send(producer, first.key(), Json.write(first));
                String poisoned = PriceQuote.versionKey(first.offer(), T0.plusSeconds(5));
                for (String poison : List.of("null", "", "[]", "\"x\"", "42")) {
                    send(producer, poisoned, poison.getBytes(StandardCharsets.UTF_8));
                }
                send(producer, poisoned, null); // a tombstone: a version deleted (a compacted topic takes no null key)
                send(producer, breaking.key(), Json.write(breaking));
                send(producer, last.key(), Json.write(last));
            }

            // When the versions are read back as the service does: the valid quotes under their own keys learnt,
            // the others refused, and a reader that breaks on the 13.00 quote
            List<PriceQuote> learnt = new ArrayList<>();
            List<Long> refused = new ArrayList<>();
            long read = TopicReplay.replay(kafka.bootstrapServers(), Topics.PRICES.name(), Duration.ofSeconds(60),
                    record -> {
                        try {
                            PriceQuote quote = Json.read(record.value(), PriceQuote.class);
                            if (!quote.key().equals(record.key())) {
                                throw new InvalidRecordException("$key", "not the quote's own version key");
                            }
                            if (quote.pricePerHour() == 13.0) {
                                throw new IllegalStateException("a rule broke on " + quote.key());
                            }
                            learnt.add(quote);
                        } catch (InvalidRecordException e) {
                            refused.add(record.offset());
                        }
                    });

            // Then it went on to the end: both good versions learnt, the six poisons refused, one passed over
            assertThat(learnt).containsExactly(first, last);
            assertThat(refused).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
            assertThat(read).as("records the reader took").isEqualTo(8);
        }
    }

    private static void send(Producer<String, byte[]> producer, String key, byte[] value) throws Exception {
        producer.send(new ProducerRecord<>(Topics.PRICES.name(), 0, key, value)).get();
    }

    private static PriceQuote quote(double pricePerHour, Instant validFrom) {
        return new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.SPOT, "A100-40GB", 8, pricePerHour, "USD",
                validFrom, "test");
    }
}
