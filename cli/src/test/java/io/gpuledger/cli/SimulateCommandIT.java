package io.gpuledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.ingest.price.PriceCatalog;
import io.gpuledger.model.Json;
import io.gpuledger.model.PriceQuote;
import io.gpuledger.model.Topics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/** {@code gpu-ledger simulate}: the fleet alone, on a real broker. */
class SimulateCommandIT {

    @Test
    void shouldPublishTheCatalogThenEveryGpuOfTheFleetEachInterval() throws Exception {
        // Given a broker with no topics yet
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            DemoOptions options = SimulateCommand.parse(
                    new String[] {"--gpus", "8", "--interval", "1", "--spot-interruptions", "0", "--price-changes",
                            "0"},
                    Map.of("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers()));
            ByteArrayOutputStream out = new ByteArrayOutputStream();

            // When the fleet runs for a few rounds
            List<PriceQuote> catalog = PriceCatalog.loadDefault().quotes();
            Set<String> gpus = new HashSet<>();
            Map<String, List<PriceQuote>> prices = new HashMap<>();
            try (SimulatedFleet fleet = SimulateCommand.start(options,
                    new PrintStream(out, true, StandardCharsets.UTF_8));
                    KafkaConsumer<String, byte[]> consumer = consumer(kafka)) {
                consumer.subscribe(List.of(Topics.PRICES.name(), Topics.TELEMETRY.name()));
                Instant deadline = Instant.now().plusSeconds(60);
                while ((gpus.size() < 8 || prices.values().stream().mapToInt(List::size).sum() < 2 * catalog.size())
                        && Instant.now().isBefore(deadline)) {
                    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                        if (record.topic().equals(Topics.PRICES.name())) {
                            prices.computeIfAbsent(record.key(), key -> new ArrayList<>())
                                    .add(Json.read(record.value(), PriceQuote.class));
                        } else {
                            gpus.add(record.key());
                        }
                    }
                }
            }

            // Then the catalog's prices went first, observed then, and were confirmed in the first
            // round, and every GPU sent samples
            assertThat(prices).containsOnlyKeys(catalog.stream().map(PriceQuote::key).toList());
            for (PriceQuote version : catalog) {
                List<PriceQuote> copies = prices.get(version.key());
                assertThat(copies).as(version.key()).hasSize(2)
                        .allSatisfy(copy -> assertThat(copy.sameVersionAs(version)).isTrue());
                assertThat(copies.get(0).observedAt()).isAfter(version.validFrom())
                        .isBeforeOrEqualTo(copies.get(1).observedAt());
            }
            assertThat(gpus).hasSize(8);
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("Fleet          8 simulated GPUs");
        }
    }

    private static KafkaConsumer<String, byte[]> consumer(EmbeddedKafka kafka) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "simulate-test");
        return new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
    }
}
