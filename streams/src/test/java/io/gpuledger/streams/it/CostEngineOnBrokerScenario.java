package io.gpuledger.streams.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.DeadLetters;
import io.gpuledger.model.GpuUsage;
import io.gpuledger.model.Json;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.model.Topics;
import io.gpuledger.streams.CostEngine;
import io.gpuledger.streams.CostEngineConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cost engine on a real broker: prices and telemetry produced, usage windows and dead
 * letters read back committed. Each subclass supplies a broker.
 */
abstract class CostEngineOnBrokerScenario {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");
    private static final String GPU = "GPU-0c5ad2e2-96e4-4d8b-9b0e-3c1b6a1f0a11";

    @TempDir
    Path stateDir;

    abstract String bootstrapServers();

    @Test
    void shouldPublishCommittedUsageWindowsChargedAtThePriceInForce() throws Exception {
        String bootstrap = bootstrapServers();
        TopicAdmin.ensureTopics(bootstrap, 2);
        publishPrice(bootstrap, 32.77, T0.minus(Duration.ofDays(30)));
        publishPrice(bootstrap, 40.00, T0.plusSeconds(30));

        CostEngineConfig defaults = CostEngineConfig.defaults(bootstrap, stateDir);
        try (CostEngine engine = new CostEngine(defaults.withApplicationId("scenario-" + System.nanoTime())
                .withCommitInterval(Duration.ofMillis(200)))) {
            engine.start();
            assertThat(engine.awaitRunning(Duration.ofSeconds(60))).isTrue();

            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            try (KafkaProducer<String, byte[]> producer =
                    new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
                for (int i = 1; i <= 6; i++) {
                    TelemetrySample sample = TelemetrySample.builder().gpuUuid(GPU).gpuModel("A100-40GB")
                            .placement(new Placement("node-1", "i-1", "p4d.24xlarge", "aws", "us-east-1",
                                    Lifecycle.ON_DEMAND))
                            .jobId("job-1").time(T0.plusSeconds(10L * i)).intervalSeconds(10).smActive(0.7).build();
                    producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), GPU, Json.write(sample)));
                }
                producer.send(new ProducerRecord<>(Topics.TELEMETRY.name(), GPU,
                        "not json".getBytes(StandardCharsets.UTF_8)));
            }

            GpuUsage total = waitFor(bootstrap, Topics.USAGE.name(), Topics.USAGE.valueSerde().deserializer(),
                    record -> record.value().samples() == 6).value();
            assertThat(total.cost()).isCloseTo(30.0 / 3600 * 32.77 / 8 + 30.0 / 3600 * 40.00 / 8, within(1e-12));
            assertThat(total.windowStart()).isEqualTo(T0);

            ConsumerRecord<String, byte[]> refused = waitFor(bootstrap, Topics.TELEMETRY_DEAD_LETTERS.name(),
                    Serdes.ByteArray().deserializer(), record -> true);
            assertThat(new String(refused.value(), StandardCharsets.UTF_8)).isEqualTo("not json");
            assertThat(DeadLetters.header(refused.headers(), DeadLetters.REASON)).contains("invalid TelemetrySample");
        }
    }

    private static void publishPrice(String bootstrap, double pricePerHour, Instant validFrom) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, PriceQuote> producer = new KafkaProducer<>(props,
                Topics.PRICES.keySerde().serializer(), Topics.PRICES.valueSerde().serializer())) {
            PriceQuote quote = new PriceQuote("aws", "us-east-1", "p4d.24xlarge", Lifecycle.ON_DEMAND, "A100-40GB", 8,
                    pricePerHour, "USD", validFrom, "test");
            producer.send(new ProducerRecord<>(Topics.PRICES.name(), quote.key(), quote)).get();
        }
    }

    private static <V> ConsumerRecord<String, V> waitFor(String bootstrap, String topic, Deserializer<V> values,
            java.util.function.Predicate<ConsumerRecord<String, V>> wanted) {
        return CommittedRecords.first(bootstrap, topic, values, wanted, Duration.ofSeconds(60));
    }
}
